#!/usr/bin/env bash
# mcalltree diff, on every test JDK: two "builds" of one
# target (tgt.Dif a, and tgt.Dif b whose run() makes one more call, extra(),
# per entry call), each traced with today's per-call NDJSON (-f json -o).
# - diff --fail-on-calls of a and b exits 4 and names the added node;
# - two runs of the same build exit 0 with --fail-on-calls, in the table
#   and with -f json;
# - the diff of a and b without a gate exits 0 and shows the node added;
# - bad inputs each get their message and exit 1: a missing file, a file
#   that is not mcalltree's output, a malformed call, a malformed summary,
#   a missing argument, a bad --fail-over-pct, a FIFO nobody writes (within
#   10 s); a FIFO written is read.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\.Dif'

# run_variant JDK VARIANT NAME: traces 40 calls of tgt.Dif.run in a fresh
# JVM of that variant into $MCT_TMP/NAME.out.
run_variant() {
    local log=$MCT_TMP/jvm-$2-$3.log
    start_target "$1" "$log" tgt.Dif "$2"
    PID=$TARGET_PID
    trace "$3" -n 40 -t 60 -f json -o "$MCT_TMP/$3.json" "$PID" tgt.Dif run 2 "$RX"
    expect_rc 0 "tracing variant $2 ($3)"
    check_calls "$MCT_TMP/$3.json" 40 "variant $2 ($3)"
    stop_target "$PID"
}

# diff_run NAME ARGS...: runs mcalltree diff ARGS, output in NAME.out/.err.
diff_run() {
    trace "$@"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    note "JDK $j: two builds, traced as per-call NDJSON"
    run_variant "$jdk" a "$j-a1"
    run_variant "$jdk" a "$j-a2"
    run_variant "$jdk" b "$j-b"
    A1=$MCT_TMP/$j-a1.json A2=$MCT_TMP/$j-a2.json B=$MCT_TMP/$j-b.json

    note "JDK $j: the same build twice"
    diff_run "$j-same" diff --fail-on-calls "$A1" "$A2"
    expect_rc 0 "diff --fail-on-calls of two runs of the same build"
    expect_grep '^ +1 +1 +.*tgt\.Dif\.run\(boolean\)$' "$OUT" "the entry method's row"
    expect_grep '^ +3 +3 +.*  tgt\.Dif\.step\(int\)$' "$OUT" "step's row: 3 calls per entry call on both sides"
    [ -s "$ERR" ] && { cat "$ERR" >&2; fail "diff of the same build wrote to stderr"; }
    diff_run "$j-same-json" diff -f json --fail-on-calls "$A1" "$A2"
    expect_rc 0 "diff -f json --fail-on-calls of the same build"
    expect_grep '^\{"type":"diff",.*"failures":\[\]\}$' "$OUT" "the JSON diff without failures"
    expect_grep '"path":"tgt\.Dif\.run\(Z\)J > tgt\.Dif\.step\(I\)J","depth":1,.*"status":"same","calls_per_entry":\{"base":"3","new":"3"\}' \
        "$OUT" "step in the JSON diff"

    note "JDK $j: one more call per entry call"
    diff_run "$j-ab" diff --fail-on-calls "$A1" "$B"
    expect_rc 4 "diff --fail-on-calls of a and b"
    expect_grep '^mcalltree diff: --fail-on-calls: tgt\.Dif\.run\(Z\)J > tgt\.Dif\.extra\(\)J: calls per entry call 0 -> 1 \(added; reached by 0 of 40 -> 40 of 40 entry calls, two-proportion z-test p = [0-9.e-]+, under [0-9.e-]+\)$' \
        "$ERR" "the added node named"
    expect_grep '^ +- +1 \*.*  tgt\.Dif\.extra\(\)  \[added\]$' "$OUT" "the added node in the table"
    diff_run "$j-ba" diff --fail-on-calls "$B" "$A1"
    expect_rc 4 "diff --fail-on-calls of b and a"
    expect_grep 'tgt\.Dif\.extra\(\)J: calls per entry call 1 -> 0 \(removed; reached by 40 of 40 -> 0 of 40 entry calls, two-proportion z-test p = [0-9.e-]+, under [0-9.e-]+\)$' "$ERR" "the removed node named"
    diff_run "$j-ab-nogate" diff "$A1" "$B"
    expect_rc 0 "diff of a and b without a gate"
done

note "bad inputs"
A1=$(ls "$MCT_TMP"/*-a1.json | head -1)
diff_run missing diff "$MCT_TMP/nonexistent.json" "$A1"
expect_rc 1 "a missing file"
expect_grep "^mcalltree diff: cannot read $MCT_TMP/nonexistent\.json: No such file or directory$" "$ERR" "a missing file"
mkfifo "$MCT_TMP/fifo"
diff_run fifo diff "$MCT_TMP/fifo" "$A1"
expect_rc 1 "a FIFO nobody writes"
expect_grep "^mcalltree diff: $MCT_TMP/fifo is a FIFO and no writer opened it within 10 s: start the writer first" "$ERR" \
    "a FIFO nobody writes"
cat "$A1" >"$MCT_TMP/fifo" &
diff_run fifo-written diff --fail-on-calls "$MCT_TMP/fifo" "$A1"
expect_rc 0 "a FIFO written"
printf 'hello\n' >"$MCT_TMP/notjson.txt"
diff_run notjson diff "$A1" "$MCT_TMP/notjson.txt"
expect_rc 1 "a text file"
expect_grep "^mcalltree diff: $MCT_TMP/notjson\.txt:1: not JSON .*: not mcalltree's output; give a file written by mcalltree -f json$" "$ERR" "a text file"
printf '{"type":"status","calls":1}\n' >"$MCT_TMP/other.json"
diff_run other diff "$A1" "$MCT_TMP/other.json"
expect_rc 1 "JSON of another kind"
expect_grep "^mcalltree diff: $MCT_TMP/other\.json:1: a message of type \"status\": not mcalltree's output" "$ERR" "JSON of another kind"
: >"$MCT_TMP/empty.json"
diff_run empty diff "$MCT_TMP/empty.json" "$A1"
expect_rc 1 "an empty file"
expect_grep "^mcalltree diff: $MCT_TMP/empty\.json: no call and no summary in it: not mcalltree's output" "$ERR" "an empty file"
{ head -1 "$A1"; head -1 "$A1" | sed 's/"calls":3/"calls":-3/'; } >"$MCT_TMP/badcall.json"
diff_run badcall diff "$A1" "$MCT_TMP/badcall.json"
expect_rc 1 "a malformed call"
expect_grep "^mcalltree diff: $MCT_TMP/badcall\.json:2: call: root\.children\[0\]\.calls: not an integer >= 0$" "$ERR" "a malformed call"
printf '{"type":"summary","final":true,"calls":2,"not_traced":0,"root":null,"methods":[],"slowest":[]}\n' >"$MCT_TMP/badsum.json"
diff_run badsum diff "$MCT_TMP/badsum.json" "$A1"
expect_rc 1 "a malformed summary"
expect_grep "^mcalltree diff: $MCT_TMP/badsum\.json:1: summary: root: null although calls is 2$" "$ERR" "a malformed summary"
# A file with no newline: read up to the line cap (64 MiB), not to the end
# of memory; the address-space limit makes a reader that keeps going fail.
OUT=$MCT_TMP/zero.out ERR=$MCT_TMP/zero.err MCT_LAST_ERR=$MCT_TMP/zero.err RC=0
(ulimit -v 1000000 && exec "$MCT" diff /dev/zero "$A1") >"$OUT" 2>"$ERR" || RC=$?
expect_rc 1 "a file without newlines"
expect_grep "^mcalltree diff: /dev/zero:1: a line of more than 67108864 bytes: not mcalltree's output$" "$ERR" \
    "a file without newlines"
diff_run onearg diff "$A1"
expect_rc 1 "one file only"
expect_grep "^mcalltree diff: give two files, BASE and NEW \(1 given\); try 'mcalltree diff -h'$" "$ERR" "one file only"
diff_run badpct diff --fail-over-pct ten "$A1" "$A1"
expect_rc 1 "a bad --fail-over-pct"
expect_grep "^mcalltree diff: --fail-over-pct 'ten': give a percentage >= 0 \(e\.g\. 20\)$" "$ERR" "a bad --fail-over-pct"
diff_run help diff -h
expect_rc 0 "diff -h"
expect_grep '^Usage: mcalltree diff \[OPTIONS\] BASE NEW$' "$OUT" "diff -h"
trace_done
