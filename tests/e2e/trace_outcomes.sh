#!/usr/bin/env bash
# No silent outcomes, on every test JDK:
# - a session that saw no call of the entry method says so at its end, with
#   the session's length and why that may be (not called, calls still
#   running; for an inherited entry method, calls on other classes), and
#   --fail-over-ms with no call to judge exits 4 saying so (scenario
#   inherit, which calls only when told);
# - a session whose calls were all under --min-ms says how many there were
#   (scenario shape), and --fail-over-ms exits 4 there too;
# - a regex written as a package without .* ('tgt') is warned about, with
#   the number of callee classes and the suggestion 'tgt\..*', in --plan,
#   --plan -f json and a trace; one that matches nothing and is no plain
#   name gets the warning without a suggestion; one that matches gets none;
# - the --plan text ends with the summary (counts, time, what the regex
#   matched), and a capped plan (scenario wide, 20100 classes: more than
#   the 20000 methods a plan holds) says so in that line and in one
#   sentence on stderr, in --plan, --plan -f json and a trace.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
# nocall METHOD: the line that says a session saw no call of METHOD (an ERE).
nocall() {
    echo "^mcalltree: no call of $1 completed during the session \([0-9]+\.[0-9] s\): it was not called, or its calls had not returned \(a call already running when tracing began is not traced\)"
}
# shellcheck disable=SC2016
INHERITED=', or it ran on instances of other classes \(it is inherited: only its calls on an instance of tgt\.Inherit\$B are traced\)'
NOJUDGE='--fail-over-ms 50: no call to judge, none was printed \(exit status 4\)'
SUGGEST="the regex 'tgt' matched none of the 2 callee classes, so nothing below the entry method is traced; did you mean 'tgt\\\\\\.\\.\\*' \\(it matches 2 of them\\)\\?"
CAPPED='the plan was capped at 20000 methods, so methods of its deepest levels are missing; lower the depth or narrow the regex$'

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    DIR=$MCT_TMP/inherit-$j
    mkdir -p "$DIR"
    scenario "$jdk" inherit "$DIR"

    note "JDK $j: no call of the entry method"
    trace "$j-nocall" -t 1 "$PID" tgt.Inherit round 2 "$RX"
    expect_rc 0 "a session without a call"
    [ ! -s "$OUT" ] || fail "a session without a call printed something"
    expect_grep "$(nocall 'tgt\.Inherit\.round')$" "$ERR" "the end of a session without a call"
    trace "$j-nocall-inherited" -t 1 "$PID" "tgt.Inherit\$B" handle 2 "$RX"
    expect_rc 0 "an inherited entry method without a call"
    expect_grep "$(nocall 'tgt\.Inherit\$B\.handle')$INHERITED$" "$ERR" \
        "the end of a session without a call of an inherited entry method"
    trace "$j-nocall-gate" -t 1 --fail-over-ms 50 "$PID" tgt.Inherit round 2 "$RX"
    expect_rc 4 "--fail-over-ms without a call"
    expect_grep "$NOJUDGE" "$ERR" "--fail-over-ms without a call"
    expect_restored "$PID" "after the sessions without a call"
    stop_jvm "$PID"

    scenario "$jdk" shape
    note "JDK $j: every call under --min-ms"
    trace "$j-minms" -t 1 --min-ms 5000 "$PID" tgt.Shape run 3 "$RX"
    expect_rc 0 "--min-ms 5000"
    [ ! -s "$OUT" ] || fail "--min-ms 5000 printed a call"
    expect_grep '^mcalltree: [1-9][0-9]* calls? of tgt\.Shape\.run completed, all under --min-ms 5000$' "$ERR" \
        "--min-ms 5000: the calls under it"
    expect_no_grep 'no call of' "$ERR" "--min-ms 5000: calls were seen"
    trace "$j-minms-gate" -t 1 --min-ms 5000 --fail-over-ms 50 "$PID" tgt.Shape run 3 "$RX"
    expect_rc 4 "--min-ms 5000 --fail-over-ms 50"
    expect_grep "$NOJUDGE" "$ERR" "--min-ms 5000 --fail-over-ms 50"

    note "JDK $j: a regex that matches no callee class"
    trace "$j-rx-plan" --plan "$PID" tgt.Shape run 3 tgt
    expect_rc 0 "--plan, regex tgt"
    expect_grep "^mcalltree: $SUGGEST$" "$ERR" "--plan, regex tgt: the warning"
    [ "$(grep -c 'matched none' "$ERR")" = 1 ] || fail "--plan, regex tgt: the warning is not said once"
    expect_grep '^summary: 1 to instrument, 0 when their class loads, 4 left out; planned in [0-9.]+ ms over [0-9]+ loaded classes; the regex matched 0 of 2 callee classes$' \
        "$OUT" "--plan, regex tgt: the summary"
    [ "$(tail -n 1 "$OUT" | cut -c1-8)" = "summary:" ] || fail "--plan: the summary is not the last line"
    trace "$j-rx-json" --plan -f json "$PID" tgt.Shape run 3 tgt
    expect_rc 0 "--plan -f json, regex tgt"
    expect_grep "^mcalltree: $SUGGEST$" "$ERR" "--plan -f json, regex tgt: the warning"
    expect_field "$OUT" summary.callee_classes 2
    expect_field "$OUT" summary.matched_classes 0
    expect_field "$OUT" summary.suggestion 'tgt\..*'
    trace "$j-rx-trace" -n 1 "$PID" tgt.Shape run 3 tgt
    expect_rc 0 "a trace, regex tgt"
    expect_grep "^mcalltree: $SUGGEST$" "$ERR" "a trace, regex tgt: the warning"
    check_calls "$OUT" 1 "a trace, regex tgt"
    trace "$j-rx-none" --plan "$PID" tgt.Shape run 3 'com\.shop\..*'
    expect_rc 0 "--plan, regex com\\.shop\\..*"
    expect_grep "^mcalltree: the regex 'com\\\\\\.shop\\\\\\.\\.\\*' matched none of the 2 callee classes, so nothing below the entry method is traced; it must match whole class names, as 'com\\\\\\.shop\\\\\\.\\.\\*' matches the classes of package com\\.shop$" \
        "$ERR" "--plan, a regex matching no callee and no plain name"
    trace "$j-rx-ok" --plan "$PID" tgt.Shape run 3 "$RX"
    expect_rc 0 "--plan, regex $RX"
    expect_no_grep 'matched none' "$ERR" "--plan, a regex that matches"
    expect_grep '; the regex matched 2 of 2 callee classes$' "$OUT" "--plan, regex $RX: the summary"
    expect_restored "$PID" "after the regex warnings"
    stop_jvm "$PID"

    note "JDK $j: a capped plan"
    scenario "$jdk" wide 20100
    # Planned while the first call still links the classes, the plan would
    # miss those not linked yet.
    wait_until 60 grep -q '^FIRST' "$LOG" || fail "scenario wide: no first call within 60 s"
    trace "$j-cap-plan" --plan "$PID" tgt.Wd00000 m 64 'tgt\.Wd.*'
    expect_rc 0 "--plan, capped"
    expect_grep "^mcalltree: $CAPPED" "$ERR" "--plan, capped: stderr"
    expect_grep '^summary: 20000 to instrument, 0 when their class loads, 0 left out; planned in [0-9.]+ ms over [0-9]+ loaded classes; the regex matched 20000 of 20000 callee classes; capped at 20000 methods$' \
        "$OUT" "--plan, capped: the summary"
    trace "$j-cap-json" --plan -f json "$PID" tgt.Wd00000 m 64 'tgt\.Wd.*'
    expect_rc 0 "--plan -f json, capped"
    expect_grep "^mcalltree: $CAPPED" "$ERR" "--plan -f json, capped: stderr"
    expect_field "$OUT" summary.capped true
    trace "$j-cap-trace" -n 1 "$PID" tgt.Wd00000 m 64 'tgt\.Wd.*'
    expect_rc 0 "a trace, capped"
    expect_grep "^mcalltree: $CAPPED" "$ERR" "a trace, capped: stderr"
    [ "$(grep -c 'capped' "$ERR")" = 1 ] || fail "a trace, capped: said more than once"
    expect_restored "$PID" "after the capped plan"
    stop_jvm "$PID"
done
trace_done
