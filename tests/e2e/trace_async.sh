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
# - -f chrome draws each task on a track of its own named after its
#   thread, not inside its parent on the caller's track, from the start of
#   the node that handed it off plus its queued_ns, with a flow event pair
#   from the hand-off to it (nested: the inner task on async-inner-1's);
# - a task given to an executor type of the application's own (own:
#   tgt.Async$Own, an Executor wrapping a pool, called as Own and outside
#   the regex) is followed to async-own-1 like a JDK executor's;
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

# chrome_tasks FILE WHAT: in -f chrome FILE (calls of scenario nested),
# each task's slice (Callable.call) is on a track other than the slice of
# the node that handed it off, that track named after the thread it ran on
# (async-pool-N, then async-inner-1), beginning its queued_ns after that
# node's start, and a flow pair leads from that node's track to it.
chrome_tasks() {
    python3 - "$1" <<'PY' || fail "$2: the tasks' slices (above)"
import json, re, sys
ev = json.load(open(sys.argv[1]))
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"}
xs = [e for e in ev if e.get("ph") == "X"]
flows = {}
for e in ev:
    if e.get("ph") in ("s", "f"):
        flows.setdefault(e["id"], {})[e["ph"]] = e
roots = [i for i, e in enumerate(xs) if e["name"] == "tgt.Async.nested"]
assert len(roots) == 2, "%d slices of tgt.Async.nested, want 2" % len(roots)
for r in roots:
    # the events of a call: the root, its task, the task's lambda, the
    # inner task, its lambda, work (pre-order, as written)
    root, task, lam, inner = xs[r], xs[r + 1], xs[r + 2], xs[r + 3]
    assert task["name"] == "java.util.concurrent.Callable.call" and task["args"].get("async"), task
    assert inner["name"] == "java.util.concurrent.Callable.call" and inner["args"].get("async"), inner
    for parent, t, want in ((root, task, r"async-pool-[12]"), (lam, inner, r"async-inner-1")):
        assert t["tid"] != parent["tid"], "task on its parent's track %r" % t
        assert re.fullmatch(want, names.get(t["tid"], "")), \
            "task's track %r named %r, want %s" % (t["tid"], names.get(t["tid"]), want)
        assert abs(t["ts"] - parent["ts"] - t["args"]["queued_ns"] / 1e3) < 1, (parent, t)
        assert any(f.get("s", {}).get("tid") == parent["tid"] and f.get("f", {}).get("tid") == t["tid"]
                   and f["f"]["ts"] == t["ts"] for f in flows.values()), "no flow to %r" % t
    assert lam["tid"] == task["tid"], "the task's own callee off its track"
PY
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
    trace "$j-nested-chrome" --follow-async -f chrome -n 2 "$PID" tgt.Async nested 6 "$RX"
    expect_rc 0 "nested, -f chrome"
    chrome_tasks "$OUT" "nested, -f chrome"
    stop_jvm "$PID"
    scenario "$jdk" async thread
    trace "$j-thread" --follow-async -n 2 "$PID" tgt.Async thread 4 "$RX"
    expect_rc 0 "thread"
    check_calls "$OUT" 2 "thread" -D 4
    expect_all "$(threads "$OUT" thread/Runnable.run)" async-thread "thread: the new thread"
    stop_jvm "$PID"

    scenario "$jdk" async own
    note "JDK $j: an executor type of the application's own"
    trace "$j-own" --follow-async -n 2 "$PID" tgt.Async own 4 'tgt\.Async'
    expect_rc 0 "own"
    check_calls "$OUT" 2 "own" -D 4
    expect_outline "$OUT" "own" <<'OUTLINE'
tgt.Async.own calls=1 throws=0
  java.lang.Runnable.run calls=1 throws=0 async
    tgt.Async.lambda$own$23 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
    expect_all "$(threads "$OUT" own/Runnable.run)" async-own-1 "own: the pool's thread"
    expect_restored "$PID" "after own"
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
