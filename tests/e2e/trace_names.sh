#!/usr/bin/env bash
# Names that are not plain UTF-8 in class files, on every
# test JDK: a method named with a supplementary character (tgt.Names.𝑓,
# U+1D453, a surrogate pair in modified UTF-8) and one whose name holds
# U+0000 (tgt.NulName.nul\0name, renamed at load) are planned, traced and
# printed as UTF-8 (U+0000 as U+2400 "␀"), in trees, in the plan (text and
# JSON), in thread names and in error messages; the entry method can be
# named in UTF-8. Before, every tree holding such a name vanished.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" names
    j=$MAJOR

    note "JDK $j: the plan lists the names in UTF-8"
    trace "$j-plan" --plan "$PID" tgt.Names run 3 "$RX"
    expect_rc 0 "--plan"
    expect_grep '^  planned +tgt\.Names\.𝑓\(J\)J$' "$OUT" "--plan: the method named 𝑓"
    expect_grep '^  planned +tgt\.NulName\.nul␀name\(J\)J$' "$OUT" "--plan: the method named nul\\0name"
    trace "$j-plan-json" --plan -f json "$PID" tgt.Names run 3 "$RX"
    expect_rc 0 "--plan -f json"
    expect_grep '"class":"tgt\.Names","method":"𝑓","desc":"\(J\)J","level":2' "$OUT" "--plan -f json: 𝑓"
    expect_grep '"class":"tgt\.NulName","method":"nul␀name","desc":"\(J\)J","level":3' "$OUT" \
        "--plan -f json: nul\\0name"

    note "JDK $j: the trees hold them"
    trace "$j-calls" -n 3 "$PID" tgt.Names run 3 "$RX"
    expect_rc 0 "tracing tgt.Names.run"
    check_calls "$OUT" 3 "tgt.Names.run"
    expect_outline "$OUT" "tgt.Names.run" <<'OUTLINE'
tgt.Names.run calls=1 throws=0
  tgt.Names.𝑓 calls=1 throws=0
  tgt.NulName.applyAsLong calls=1 throws=0
    tgt.NulName.nul␀name calls=1 throws=0
OUTLINE
    expect_grep '"thread":\{"id":[0-9]+,"name":"names-𝑓"\}' "$OUT" "the thread's name"

    note "JDK $j: the entry method named in UTF-8"
    trace "$j-entry" -n 2 "$PID" tgt.Names '𝑓' 1 "$RX"
    expect_rc 0 "tracing tgt.Names.𝑓"
    check_calls "$OUT" 2 "tgt.Names.𝑓"
    expect_outline "$OUT" "tgt.Names.𝑓" <<'OUTLINE'
tgt.Names.𝑓 calls=1 throws=0
OUTLINE
    trace "$j-near" --plan "$PID" tgt.Names '𝑔' 1 "$RX"
    expect_rc 3 "a method name that is not there"
    expect_grep 'tgt\.Names has no method 𝑔 .*Did you mean 𝑓\?' "$ERR" "the error message"
    expect_restored "$PID" "after the sessions"
    stop_jvm "$PID"
done
trace_done
