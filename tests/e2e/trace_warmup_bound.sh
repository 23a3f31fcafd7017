#!/usr/bin/env bash
# Warm-up marks are bounded (agent/warm.h), on every test JDK, against
# scenario huge: tgt.HugeRun.m is compiled before the attach (-XX:+PrintCompilation
# says so), but once instrumented it is over HugeMethodLimit and the JIT
# never compiles it again. Its calls are warm-up for the first 30 s after
# the session instrumented it, and no longer after that: --aggregate -n 50
# (which counts only calls that are not warm-up) ends, with 50 calls in
# the summary, and the client says that one method was not compiled again.
# Before the bound every call was warm-up for good and the session never
# ended (here: the client's -t 150 ran out first).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# compiled_huge: the original m (7990 bytes) was compiled.
compiled_huge() {
    grep -q 'tgt\.HugeRun::m (7990 bytes)' "$LOG"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    MCT_JVM_OPTS=(-XX:+PrintCompilation)
    scenario "$jdk" huge
    MCT_JVM_OPTS=()
    wait_until 60 compiled_huge || fail "JDK $j: tgt.HugeRun.m was not compiled within 60 s"

    note "JDK $j: a method never compiled again stops marking calls after 30 s"
    trace "bound-$j" -v --aggregate -n 50 -t 150 "$PID" tgt.HugeRun m 1 'tgt\..*'
    expect_rc 0 "JDK $j: --aggregate -n 50"
    calls=$("$TREE" call "$OUT" calls)
    warm=$("$TREE" call "$OUT" warmup)
    [ "$calls" = 50 ] || fail "JDK $j: the summary holds $calls calls, want 50"
    [ "$warm" -ge 1 ] || fail "JDK $j: no call was warm-up in the first 30 s"
    expect_grep '^mcalltree: 1 instrumented method was not compiled again by the JIT within 30 s' "$ERR" \
        "JDK $j: the client says which methods were not compiled again"
    grep -q 'tgt\.HugeRun::m (8[0-9][0-9][0-9] bytes)$' "$LOG" &&
        fail "JDK $j: the instrumented m was compiled after all; the scenario tests nothing"
    note "JDK $j: $warm warm-up calls, then 50 counted"
    stop_jvm "$PID"
done
trace_done
