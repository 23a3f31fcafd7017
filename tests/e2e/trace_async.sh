#!/usr/bin/env bash
# --follow-async: tasks handed to other threads from a traced call are
# traced where they run and appear under the node that handed them off,
# "async":true with their thread and queued_ns (scenario async, tgt.Async),
# on every test JDK:
# - a fixed pool (pool: a Callable and a Runnable on async-pool-N), a
#   CompletableFuture chain across two pools (chain: supplyAsync on
#   async-a-1, thenApplyAsync on async-b-1), a new thread (thread), a task
#   that hands off again (nested: async-inner-1 under async-pool-N): exact
#   outlines, thread names, queued_ns, and SPEC 3's arithmetic with async
#   nodes outside their parent's (mct-tree check);
# - a task still running when --async-wait is over is pending (slow, 50 ms;
#   with the default wait it is there, its sleep under it); a task the
#   executor refused is rejected (full);
# - a task its executor runs at once on the caller's thread is part of the
#   call (spy: no async node, nothing pending), and after the session the
#   executor gets the application's own task again (the target prints the
#   class of the tasks it is given when it changes): no wrapper is left,
#   no class stays instrumented;
# - JDK 21+: a task on a virtual thread of its own (the virtual thread per
#   task executor);
# - without --follow-async no node is async; --async-wait alone is a usage
#   error.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# wait_log FILE PATTERN WHAT: waits (30 s at most) for a line of FILE
# matching PATTERN.
wait_log() {
    wait_until 30 grep -q "$2" "$1" || fail "$3: no line '$2' in $1"
}

# wait_log_last FILE PATTERN WHAT: waits (30 s at most) until the last
# TASK line of FILE matches PATTERN.
wait_log_last() {
    wait_until 30 last_task_is "$1" "$2" || fail "$3: the last TASK line of $1 is not '$2'"
}

last_task_is() {
    grep '^TASK' "$1" | tail -1 | grep -q "$2"
}

# threads FILE PATH: the thread names of the node at PATH, one per call.
threads() {
    field "$1" "$2" thread
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" async pool
    j=$MAJOR
    note "JDK $j: a fixed pool's tasks under the call that submitted them"
    trace "$j-pool" --follow-async -n 3 "$PID" tgt.Async pool 4 "$RX"
    expect_rc 0 "pool"
    check_calls "$OUT" 3 "pool" -D 4
    expect_outline "$OUT" "pool" <<'OUTLINE'
tgt.Async.pool calls=1 throws=0
  java.util.concurrent.Callable.call calls=1 throws=0 async
    tgt.Async.lambda$pool$2 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
  java.lang.Runnable.run calls=1 throws=0 async
    tgt.Async.lambda$pool$3 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
    for p in pool/Callable.call pool/Runnable.run; do
        bad=$(threads "$OUT" $p | grep -vxE 'async-pool-[12]' | head -1)
        [ -z "$bad" ] || soft_fail "pool: $p ran on '$bad', want async-pool-1 or 2"
        expect_all_ge "$(field "$OUT" $p queued_ns)" 0 "pool: $p's queued_ns"
    done
    note "JDK $j: pool: queued_ns $(field "$OUT" pool/Callable.call queued_ns | tr '\n' ' ')"
    trace "$j-plain" -n 2 "$PID" tgt.Async pool 4 "$RX"
    expect_rc 0 "pool without --follow-async"
    expect_no_grep '"async"' "$OUT" "pool without --follow-async"
    trace "$j-usage" --async-wait 100 -n 1 "$PID" tgt.Async pool 4 "$RX"
    expect_rc 1 "--async-wait without --follow-async"
    expect_grep 'async-wait needs --follow-async' "$ERR" "--async-wait without --follow-async"
    expect_restored "$PID" "after pool"
    stop_jvm "$PID"

    scenario "$jdk" async chain
    note "JDK $j: a CompletableFuture chain across two pools"
    trace "$j-chain" --follow-async -n 3 "$PID" tgt.Async chain 4 "$RX"
    expect_rc 0 "chain"
    check_calls "$OUT" 3 "chain" -D 4
    expect_outline "$OUT" "chain" <<'OUTLINE'
tgt.Async.chain calls=1 throws=0
  java.util.function.Supplier.get calls=1 throws=0 async
    tgt.Async.stepA calls=1 throws=0
      tgt.Async.work calls=1 throws=0
  java.util.function.Function.apply calls=1 throws=0 async
    tgt.Async.stepB calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
    expect_all "$(threads "$OUT" chain/Supplier.get)" async-a-1 "chain: supplyAsync's thread"
    expect_all "$(threads "$OUT" chain/Function.apply)" async-b-1 "chain: thenApplyAsync's thread"
    stop_jvm "$PID"

    scenario "$jdk" async nested
    note "JDK $j: a task that hands off again, and a new thread"
    trace "$j-nested" --follow-async -n 3 "$PID" tgt.Async nested 6 "$RX"
    expect_rc 0 "nested"
    check_calls "$OUT" 3 "nested" -D 6
    expect_outline "$OUT" "nested" <<'OUTLINE'
tgt.Async.nested calls=1 throws=0
  java.util.concurrent.Callable.call calls=1 throws=0 async
    tgt.Async.lambda$nested$10 calls=1 throws=0
      java.util.concurrent.Callable.call calls=1 throws=0 async
        tgt.Async.lambda$nested$9 calls=1 throws=0
          tgt.Async.work calls=1 throws=0
OUTLINE
    expect_all "$(threads "$OUT" nested/Callable.call/lambda\$nested\$10/Callable.call)" async-inner-1 \
        "nested: the inner task's thread"
    stop_jvm "$PID"
    scenario "$jdk" async thread
    trace "$j-thread" --follow-async -n 2 "$PID" tgt.Async thread 4 "$RX"
    expect_rc 0 "thread"
    check_calls "$OUT" 2 "thread" -D 4
    expect_all "$(threads "$OUT" thread/Runnable.run)" async-thread "thread: the new thread"
    stop_jvm "$PID"

    scenario "$jdk" async slow
    note "JDK $j: a task still running when the wait is over is pending"
    trace "$j-slow" --follow-async --async-wait 50 -n 2 "$PID" tgt.Async slow 4 "$RX"
    expect_rc 0 "slow, --async-wait 50"
    check_calls "$OUT" 2 "slow" -D 4
    expect_outline "$OUT" "slow" <<'OUTLINE'
tgt.Async.slow calls=1 throws=0
  tgt.Async.nap calls=1 throws=0
  tgt.Async.work calls=1 throws=0
  java.lang.Runnable.run calls=0 throws=0 async pending
OUTLINE
    trace "$j-slow-waited" --follow-async -n 2 "$PID" tgt.Async slow 4 "$RX"
    expect_rc 0 "slow, the default wait"
    check_calls "$OUT" 2 "slow, waited" -D 4
    expect_outline "$OUT" "slow, waited" <<'OUTLINE'
tgt.Async.slow calls=1 throws=0
  tgt.Async.nap calls=1 throws=0
  tgt.Async.work calls=1 throws=0
  java.lang.Runnable.run calls=1 throws=0 async
    tgt.Async.lambda$slow$4 calls=1 throws=0
      tgt.Async.nap calls=1 throws=0
OUTLINE
    expect_all_ge "$(field "$OUT" 'slow/Runnable.run/lambda$slow$4/nap' total_ns)" 1000000000 "slow: the task's own sleep"
    stop_jvm "$PID"

    scenario "$jdk" async full
    note "JDK $j: a task the executor refuses is rejected"
    trace "$j-full" --follow-async -n 2 "$PID" tgt.Async full 4 "$RX"
    expect_rc 0 "full"
    check_calls "$OUT" 2 "full" -D 4
    expect_outline "$OUT" "full" <<'OUTLINE'
tgt.Async.full calls=1 throws=0
  tgt.Async.work calls=1 throws=0
  java.lang.Runnable.run calls=0 throws=0 async rejected
OUTLINE
    stop_jvm "$PID"

    scenario "$jdk" async spy
    note "JDK $j: a task run at once on the caller's thread is part of the call; nothing stays"
    wait_log "$LOG" '^TASK tgt\.Async\$\$Lambda' "spy: the application's task"
    trace "$j-spy" --follow-async -n 2 "$PID" tgt.Async spy 4 "$RX"
    expect_rc 0 "spy"
    check_calls "$OUT" 2 "spy" -D 4
    expect_outline "$OUT" "spy" <<'OUTLINE'
tgt.Async.spy calls=1 throws=0
  tgt.Async$Spy.execute calls=1 throws=0
    tgt.Async.lambda$spy$7 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
    expect_grep '^TASK mcalltree\.agent\.Probe$' "$LOG" "spy: the wrapper during the session"
    expect_restored "$PID" "after spy"
    wait_log_last "$LOG" '^TASK tgt\.Async\$\$Lambda' "spy: the application's task after the session"
    stop_jvm "$PID"

    if [ "$j" -ge 21 ]; then
        scenario "$jdk" async virtual
        note "JDK $j: a task on a virtual thread of its own"
        trace "$j-virtual" --follow-async -n 3 "$PID" tgt.Async virtual 4 "$RX"
        expect_rc 0 "virtual"
        check_calls "$OUT" 3 "virtual" -D 4
        expect_outline "$OUT" "virtual" <<'OUTLINE'
tgt.Async.virtual calls=1 throws=0
  java.util.concurrent.Callable.call calls=1 throws=0 async
    tgt.Async.lambda$virtual$8 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
        expect_restored "$PID" "after virtual"
        stop_jvm "$PID"
    fi
done
trace_done
