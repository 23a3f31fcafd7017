#!/usr/bin/env bash
# The CI gates, on every test JDK, in the per-call mode
# (the client sums the calls it receives):
# - --max-calls on tgt.Dif a, whose run() calls step() exactly 3 times per
#   entry call: passes at 3, fails at 2 naming the method, the figure and the
#   limit (exit 4), by name and by name with descriptor; a name that no
#   traced method has is an error (exit 1), not a silent pass;
# - --percentile 50 --fail-over-ms on tgt.Sleepy.run (a 50 ms nap per call):
#   passes at 10000 ms, fails at 1 ms; the session ends by -t, so the gate is
#   judged on a session that no count ended;
# - --budget on tgt.Sleepy.nap at p50 and max: passes at 10000 ms, fails
#   at 1 ms naming the node's path;
# - the same gates with --aggregate, judged on the agent's final summary;
# - a gate judged after Ctrl-C (SIGINT) ends the session;
# - malformed gates each exit 1 with their message.
# Every session leaves the JVM restored. The per-call sessions judge
# warm-up calls too (--include-warmup): right after an attach every call of
# the hot target may be one, which trace_warmup.sh covers; here the gates'
# arithmetic is what is tested.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")

    note "JDK $j: --max-calls on tgt.Dif (step 3 times per entry call)"
    start_target "$jdk" "$MCT_TMP/jvm-$j-dif.log" tgt.Dif a
    PID=$TARGET_PID LOG=$MCT_TMP/jvm-$j-dif.log
    trace "$j-max-pass" --include-warmup -n 20 -t 60 --max-calls tgt.Dif.step=3 --max-calls 'tgt.Dif.run(Z)J=1' \
        -o "$MCT_TMP/$j-max-pass.json" "$PID" tgt.Dif run 2 "$RX"
    expect_rc 0 "--max-calls at the true count"
    check_calls "$MCT_TMP/$j-max-pass.json" 20 "--max-calls at the true count"
    trace "$j-max-fail" --include-warmup -n 20 -t 60 --max-calls tgt.Dif.step=2 -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--max-calls one under the true count"
    expect_grep '^mcalltree: --max-calls tgt\.Dif\.step=2: tgt\.Dif\.step\(I\)J was called 3 times in one entry call, over the limit of 2 \(exit status 4\)$' \
        "$ERR" "--max-calls names the method, the count and the limit"
    trace "$j-max-desc" --include-warmup -n 20 -t 60 --max-calls 'tgt.Dif.step(I)J=2' --max-calls tgt.Dif.extra=0 -o /dev/null \
        "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--max-calls with a descriptor"
    expect_grep '^mcalltree: --max-calls tgt\.Dif\.step\(I\)J=2: tgt\.Dif\.step\(I\)J was called 3 times' "$ERR" \
        "--max-calls with a descriptor"
    expect_no_grep 'extra' "$ERR" "extra(), never called, holds --max-calls 0"
    # With --aggregate the agent's final summary is judged.
    trace "$j-agg-pass" -n 20 -t 60 --aggregate --max-calls tgt.Dif.step=3 -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 0 "--aggregate --max-calls at the true count"
    trace "$j-agg-fail" -n 20 -t 60 --aggregate --max-calls tgt.Dif.step=2 -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--aggregate --max-calls one under the true count"
    expect_grep '^mcalltree: --max-calls tgt\.Dif\.step=2: tgt\.Dif\.step\(I\)J was called 3 times in one entry call, over the limit of 2 \(exit status 4\)$' \
        "$ERR" "--aggregate --max-calls names the method, the count and the limit"
    trace "$j-max-typo" --include-warmup -n 20 -t 60 --max-calls tgt.Dif.stepp=3 -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 1 "--max-calls naming no method of the plan"
    expect_grep '^mcalltree: --max-calls tgt\.Dif\.stepp=3: no method tgt\.Dif\.stepp among the [0-9]+ methods of the plan \(the depth and the regex decide which are traced; --plan lists them\)$' \
        "$ERR" "a name that matches no method is said"
    trace "$j-max-excluded" --include-warmup -n 20 -t 60 --max-calls tgt.Dif.step=3 -o /dev/null "$PID" tgt.Dif run 2 'tgt\.Other'
    expect_rc 1 "--max-calls naming a method the regex leaves out"
    expect_grep '^mcalltree: --max-calls tgt\.Dif\.step=3: tgt\.Dif\.step\(I\)J is in the plan but not traced \(excluded' \
        "$ERR" "a method left out by the regex is said"
    expect_restored "$PID" "after the --max-calls sessions"
    stop_target "$PID"

    note "JDK $j: --percentile and --budget on tgt.Sleepy (a 50 ms nap per call)"
    scenario "$jdk" sleepy
    trace "$j-pct-pass" --include-warmup -t 3 --percentile 50 --fail-over-ms 10000 --budget 'tgt.Sleepy.nap:p50=10000' \
        --budget 'tgt.Sleepy.nap()V:max=10000' -o /dev/null "$PID" tgt.Sleepy run 2 "$RX"
    expect_rc 0 "--percentile 50 and --budget far above the nap"
    trace "$j-agg-pct-fail" -t 3 --aggregate --percentile 50 --fail-over-ms 1 -o /dev/null "$PID" tgt.Sleepy run 2 "$RX"
    expect_rc 4 "--aggregate --percentile 50 far below the nap"
    trace "$j-agg-over" -t 3 --aggregate --fail-over-ms 1 -o /dev/null "$PID" tgt.Sleepy run 2 "$RX"
    expect_rc 4 "--aggregate --fail-over-ms far below the nap"
    expect_grep '^mcalltree: the slowest call took [0-9.]+ ms, over --fail-over-ms 1 \(exit status 4\)$' "$ERR" \
        "--aggregate --fail-over-ms names the figure and the limit"
    trace "$j-pct-fail" --include-warmup -t 3 --percentile 50 --fail-over-ms 1 -o /dev/null "$PID" tgt.Sleepy run 2 "$RX"
    expect_rc 4 "--percentile 50 far below the nap"
    expect_grep '^mcalltree: --percentile 50: the 50-th percentile of the [0-9]+ calls of tgt\.Sleepy\.run is [0-9.]+ ms, over --fail-over-ms 1 \(exit status 4\)$' \
        "$ERR" "--percentile names the method, the figure and the limit"
    trace "$j-budget-fail" --include-warmup -t 3 --budget 'tgt.Sleepy.nap:p99=1' --budget 'tgt.Sleepy.quick:max=10000' -o /dev/null \
        "$PID" tgt.Sleepy run 2 "$RX"
    expect_rc 4 "--budget far below the nap"
    expect_grep '^mcalltree: --budget tgt\.Sleepy\.nap:p99=1: tgt\.Sleepy\.run\(\)J > tgt\.Sleepy\.nap\(\)V: p99 [0-9.]+ ms within one entry call, over the budget of 1 ms \(exit status 4\)$' \
        "$ERR" "--budget names the node, the figure and the limit"
    expect_no_grep 'quick' "$ERR" "quick() holds its budget"

    note "JDK $j: a gate judged after Ctrl-C"
    background "$j-pct-int" --include-warmup --percentile 50 --fail-over-ms 1 -o "$MCT_TMP/$j-pct-int.json" "$PID" tgt.Sleepy run 2 "$RX"
    wait_lines "$MCT_TMP/$j-pct-int.json" 2 30 || fail "Ctrl-C: no call within 30 s"
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 30 || fail "Ctrl-C: the client did not exit within 30 s"
    [ "$WAIT_RC" = 4 ] || {
        cat "$BG_ERR" >&2
        fail "Ctrl-C: exit status $WAIT_RC, want 4"
    }
    expect_grep '^mcalltree: --percentile 50: the 50-th percentile of the [0-9]+ calls of tgt\.Sleepy\.run is' "$BG_ERR" \
        "Ctrl-C: the gate judged the calls seen"
    expect_restored "$PID" "after the --percentile and --budget sessions"
    stop_target "$PID"
done

note "malformed gates"
# usage NAME PATTERN ARGS...: ARGS exit 1 with a line matching PATTERN.
usage() {
    local name=$1 pattern=$2
    shift 2
    trace "usage-$name" "$@" 1 a.B m 2 x
    expect_rc 1 "$name"
    expect_grep "$pattern" "$ERR" "$name"
}
usage max-syntax "^mcalltree: --max-calls takes CLASS\.METHOD=N \(com\.shop\.Repo\.find=1\), got 'a\.B\.m'" \
    --max-calls a.B.m
usage max-negative "^mcalltree: --max-calls a\.B\.m=-1: N must be an integer >= 0 \(calls in one entry call\), got '-1'" \
    --max-calls a.B.m=-1
usage max-noclass "^mcalltree: --max-calls: 'm' is not CLASS\.METHOD" --max-calls m=1
usage max-desc "^mcalltree: --max-calls: '\(I' is not a JVM method descriptor" --max-calls 'a.B.m(I=1'
usage pct-zero "^mcalltree: --percentile must be a number over 0 and at most 100, got '0'" \
    --percentile 0 --fail-over-ms 5
usage pct-101 "^mcalltree: --percentile must be a number over 0 and at most 100, got '101'" \
    --percentile 101 --fail-over-ms 5
usage pct-alone "^mcalltree: --percentile needs --fail-over-ms MS" --percentile 50
usage budget-stat "^mcalltree: --budget a\.B\.m:p95=3: 'p95' is not p50, p90, p99 or max" --budget a.B.m:p95=3
usage budget-syntax "^mcalltree: --budget takes CLASS\.METHOD:STAT=MS \(com\.shop\.Repo\.find:p99=20\), got 'a\.B\.m=3'" \
    --budget a.B.m=3
usage budget-ms "^mcalltree: --budget a\.B\.m:p99=fast: the budget must be a number of milliseconds >= 0, got 'fast'" \
    --budget a.B.m:p99=fast
usage min-ms "^mcalltree: --max-calls cannot be used with --min-ms" --max-calls a.B.m=1 --min-ms 5
trace_done
