#!/usr/bin/env bash
# Warm-up calls, on every test JDK, against scenario hot
# (tgt.Hot.run called back to back on one thread), attached late once the
# JIT has compiled run (-XX:+PrintCompilation says so) before each session:
# - per call (-n 20000: the JIT may be slow on a loaded machine; the ring
#   of the thread overflows now and then, back to back: truncated nodes are
#   allowed): calls are marked "warmup":true until the JIT has compiled the
#   instrumented methods again: at least one is, no marked call
#   follows an unmarked one (one thread: the calls begin in seq order), and
#   the last ones are not; the end line counts the marked calls;
# - --aggregate: the final summary leaves them out (its calls are the
#   session's completed calls less the warm-up ones) and counts them in
#   "warmup", and the client says so;
# - --aggregate --include-warmup: they are in (calls = completed calls);
# - --include-warmup without --aggregate or a gate is a usage error.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

trace usage --include-warmup 1 tgt.Hot run 2 "$RX"
expect_rc 1 "--include-warmup alone"
expect_grep '^mcalltree: --include-warmup needs --aggregate or a gate' "$ERR" "--include-warmup alone: the message"

# compiled_runs: how many compilations of the original tgt.Hot.run (24
# bytes; the instrumented one is longer) the JVM has printed.
compiled_runs() {
    grep -c 'tgt\.Hot::run (24 bytes)$' "$LOG" || true
}

# compiled_since N: run was compiled more than N times.
compiled_since() {
    [ "$(compiled_runs)" -gt "$1" ]
}

# await_hot BEFORE: waits (bounded) until run was compiled again after
# BEFORE compilations, i.e. runs compiled as the next session attaches.
await_hot() {
    wait_until 60 compiled_since "$1" || fail "tgt.Hot.run was not compiled within 60 s"
    # PrintCompilation prints as the compilation starts; the code is
    # installed when it ends (a loaded JIT takes its time).
    sleep 2
}

# end_count NAME: the figure before NAME in the -v end line of $ERR.
end_count() {
    sed -n "s/^mcalltree: session ended.* \([0-9][0-9]*\) $1.*/\1/p" "$ERR"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    MCT_JVM_OPTS=(-XX:+PrintCompilation)
    scenario "$jdk" hot 1 10
    MCT_JVM_OPTS=()
    await_hot 0

    note "JDK $j: per call, the first calls are warm-up"
    seen=$(compiled_runs)
    trace "warm-$j" -v -n 20000 -t 120 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "JDK $j: per call"
    check_calls "$OUT" 20000 "JDK $j: per call" -t
    marks=$(awk '/"warmup":true/ { print "w"; next } { print "-" }' "$OUT" | tr -d '\n')
    marked=$(grep -c '"warmup":true' "$OUT" || true)
    [ "$marked" -ge 1 ] || fail "JDK $j: no call marked warm-up after a late attach to a compiled method"
    case $marks in *-*w*) fail "JDK $j: a warm-up call after one that was not: $marks" ;; esac
    [ "${marks: -1}" = - ] || fail "JDK $j: the marks did not stop within 20000 calls ($marked marked)"
    [ "$(end_count warm-up)" = "$marked" ] ||
        fail "JDK $j: the end line counts $(end_count warm-up) warm-up calls, $marked were marked"
    expect_grep "^mcalltree: $marked warm-up calls? \(begun before the JIT" "$ERR" "JDK $j: the warm-up line"
    note "JDK $j: $marked of 20000 calls marked warm-up"

    note "JDK $j: --aggregate leaves them out"
    await_hot "$seen"
    seen=$(compiled_runs)
    trace "warm-agg-$j" -v --aggregate -n 200 -t 120 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "JDK $j: --aggregate"
    calls=$("$TREE" call "$OUT" calls)
    warm=$("$TREE" call "$OUT" warmup)
    completed=$(end_count 'calls\? completed')
    [ "$warm" -ge 1 ] || fail "JDK $j: --aggregate: the summary counts no warm-up call"
    [ "$(end_count warm-up)" = "$warm" ] || fail "JDK $j: --aggregate: the end says $(end_count warm-up) warm-up calls, the summary $warm"
    [ "$calls" = $((completed - warm)) ] ||
        fail "JDK $j: --aggregate: the summary holds $calls calls, want $completed completed less $warm warm-up"
    expect_grep "warm-up calls? .*; left out of the summary and the gates \(--include-warmup counts them\)" "$ERR" \
        "JDK $j: --aggregate: the warm-up line"

    note "JDK $j: --aggregate --include-warmup counts them"
    await_hot "$seen"
    trace "warm-inc-$j" -v --aggregate --include-warmup -n 200 -t 120 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "JDK $j: --include-warmup"
    calls=$("$TREE" call "$OUT" calls)
    warm=$("$TREE" call "$OUT" warmup)
    completed=$(end_count 'calls\? completed')
    [ "$warm" -ge 1 ] || fail "JDK $j: --include-warmup: the summary counts no warm-up call"
    [ "$calls" = "$completed" ] ||
        fail "JDK $j: --include-warmup: the summary holds $calls calls, want all $completed completed"
    expect_no_grep 'left out of the summary' "$ERR" "JDK $j: --include-warmup: the warm-up line"
    stop_jvm "$PID"
done
trace_done
