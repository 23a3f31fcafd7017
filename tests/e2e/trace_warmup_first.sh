#!/usr/bin/env bash
# The first calls after instrumenting are warm-up whatever the compile
# events say, and the summary's methods count warm-up calls, on every test
# JDK, against scenario hot on one thread in a JVM that only interprets
# (-Xint: no method is ever compiled, so the compile events mark nothing):
# - per call, -n 20: exactly the first 2 calls are marked "warmup":true
#   (one thread: the calls begin in seq order);
# - --aggregate -n 10: the summary holds 10 calls and counts 2 warm-up, its
#   nodes leave them out (the root's entries are 10) and its methods count
#   them (tgt.Hot.run's entries are 12: what --max-calls judges);
#   --max-calls on step at its true count passes, below it fails.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    MCT_JVM_OPTS=(-Xint)
    scenario "$jdk" hot 1 10
    MCT_JVM_OPTS=()

    note "JDK $j: per call, the first 2 calls are warm-up"
    trace "first-$j" -n 20 -t 60 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "JDK $j: per call"
    check_calls "$OUT" 20 "JDK $j: per call"
    marks=$(awk '/"warmup":true/ { print "w"; next } { print "-" }' "$OUT" | tr -d '\n')
    [ "$marks" = "ww------------------" ] || fail "JDK $j: the warm-up marks are $marks, want the first 2 calls"

    note "JDK $j: --aggregate: the methods count the warm-up calls"
    trace "first-agg-$j" --aggregate -n 10 -t 60 --max-calls tgt.Hot.step=10 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "JDK $j: --aggregate --max-calls at the true count"
    summary=$(grep '"type":"summary"' "$OUT" | tail -1)
    [ "$(jq -r .calls <<<"$summary")" = 10 ] || fail "JDK $j: the summary holds $(jq -r .calls <<<"$summary") calls, want 10"
    [ "$(jq -r .warmup <<<"$summary")" = 2 ] || fail "JDK $j: the summary counts $(jq -r .warmup <<<"$summary") warm-up calls, want 2"
    [ "$(jq -r .root.entries <<<"$summary")" = 10 ] ||
        fail "JDK $j: the root node has $(jq -r .root.entries <<<"$summary") entries, want the 10 calls"
    run=$(jq -r '.methods[] | select(.class == "tgt.Hot" and .method == "run") | .entries' <<<"$summary")
    [ "$run" = 12 ] || fail "JDK $j: the methods count $run calls of tgt.Hot.run, want 12 (warm-up included)"
    step=$(jq -r '.methods[] | select(.class == "tgt.Hot" and .method == "step") | .calls' <<<"$summary")
    [ "$step" = 120 ] || fail "JDK $j: the methods count $step calls of tgt.Hot.step, want 120"
    trace "first-agg-fail-$j" --aggregate -n 10 -t 60 --max-calls tgt.Hot.step=9 -o /dev/null "$PID" tgt.Hot run 3 "$RX"
    expect_rc 4 "JDK $j: --aggregate --max-calls below the true count"
    stop_jvm "$PID"
done
trace_done
