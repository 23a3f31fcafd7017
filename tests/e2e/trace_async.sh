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
#   error;
# - each async node has handoff_ns, and queued_ns and handoff_ns are
#   measured (scenario asyncmore queued, tgt.AsyncMore): a task that waits
#   in the queue of a one-thread pool while the task before it holds the
#   thread 50 ms has queued_ns >= 50 ms, its hand-off 30 ms into the call
#   handoff_ns >= 30 ms, and -f chrome begins it at the call's start plus
#   both;
# - a task whose future is done before it ran (scenario asyncmore cancel:
#   Future.cancel, CompletableFuture.complete) is "cancelled":true, and
#   -f tree tags it [async, cancelled];
# - --aggregate: the summary's task nodes are "async":true, the nodes under
#   them and the caller's not; -f tree tags them [async].
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# traced NAME N DEPTH [OPTION...] <OUTLINE: traces N calls of the entry
# method NAME of the scenario's class (CLASS, default tgt.Async) with
# --follow-async and the OPTIONs, to depth DEPTH, the methods of regex RX
# (default $RX), into $OUT ($j-NAME-OPTIONS.out): exit status 0, N calls
# that keep SPEC 3's invariants (mct-tree check), and their outline is
# stdin's unless stdin is empty.
traced() {
    local name=$1 n=$2 depth=$3 what want
    shift 3
    what=$name${*:+ ($*)}
    trace "$j-$name$(printf '%s' "$*" | tr -c 'a-zA-Z0-9' '-')" --follow-async "$@" -n "$n" "$PID" \
        "${CLASS:-tgt.Async}" "$name" "$depth" "${CASE_RX:-$RX}"
    expect_rc 0 "$what"
    check_calls "$OUT" "$n" "$what" -D "$depth"
    want=$(cat)
    [ -z "$want" ] || expect_outline "$OUT" "$what" <<<"$want"
}

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
# (async-pool-N, then async-inner-1), beginning its handoff_ns plus its
# queued_ns after the call's start, and a flow pair leads from that node's
# track to it.
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
        assert abs(t["ts"] - root["ts"] - (t["args"]["handoff_ns"] + t["args"]["queued_ns"]) / 1e3) < 1, (root, t)
        assert any(f.get("s", {}).get("tid") == parent["tid"] and f.get("f", {}).get("tid") == t["tid"]
                   and f["f"]["ts"] == t["ts"] for f in flows.values()), "no flow to %r" % t
    assert lam["tid"] == task["tid"], "the task's own callee off its track"
PY
}

# chrome_queued FILE WHAT: in -f chrome FILE (calls of scenario asyncmore
# queued), the queued task (Callable.call) begins at least 80 ms (its
# hand-off at least 30 ms in, then at least 50 ms in the queue) after its
# call's start, at its handoff_ns plus queued_ns.
chrome_queued() {
    python3 - "$1" <<'PY' || fail "$2: the queued task's slice (above)"
import json, sys
xs = [e for e in json.load(open(sys.argv[1])) if e.get("ph") == "X"]
roots = [i for i, e in enumerate(xs) if e["name"] == "tgt.AsyncMore.queued"]
assert roots, "no slice of tgt.AsyncMore.queued"
for r in roots:
    root = xs[r]
    task = next(e for e in xs[r + 1:] if e["name"] == "java.util.concurrent.Callable.call")
    a = task["args"]
    assert task["ts"] - root["ts"] >= 80e3, (root, task)
    assert abs(task["ts"] - root["ts"] - (a["handoff_ns"] + a["queued_ns"]) / 1e3) < 1, (root, task)
PY
}

# summary_async FILE WHAT: the summary in FILE (--aggregate of scenario
# async pool) has its two task nodes async and no other node.
summary_async() {
    python3 - "$1" <<'PY' || fail "$2: the summary's async nodes (above)"
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][-1]
got = []
def walk(n, path):
    here = path + "/" + n["class"] + "." + n["method"]
    if n.get("async"):
        got.append(here)
    for k in n.get("children", []):
        walk(k, here)
walk(s["root"], "")
want = ["/tgt.Async.pool/java.util.concurrent.Callable.call", "/tgt.Async.pool/java.lang.Runnable.run"]
assert got == want, "async nodes %r, want %r" % (got, want)
PY
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" async pool
    j=$MAJOR
    note "JDK $j: a fixed pool's tasks under the call that submitted them"
    traced pool 3 4 <<'OUTLINE'
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
    note "JDK $j: pool, --aggregate: the tasks' summary nodes are async"
    trace "$j-pool-sum" --follow-async --aggregate -n 3 "$PID" tgt.Async pool 4 "$RX"
    expect_rc 0 "pool, --aggregate"
    summary_async "$OUT" "pool, --aggregate"
    trace "$j-pool-sum-tree" --follow-async --aggregate -f tree -n 3 "$PID" tgt.Async pool 4 "$RX"
    expect_rc 0 "pool, --aggregate -f tree"
    [ "$(grep -c 'java\.util\.concurrent\.Callable\.call.*\[async\]\|java\.lang\.Runnable\.run.*\[async\]' "$OUT")" = 2 ] ||
        fail "pool, --aggregate -f tree: the two tasks' lines are not tagged [async] (see $OUT)"
    [ "$(grep -c '\[async\]' "$OUT")" = 2 ] || fail "pool, --aggregate -f tree: lines other than the tasks' tagged [async]"
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
    traced chain 3 4 <<'OUTLINE'
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
    traced nested 3 6 <<'OUTLINE'
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
    traced thread 2 4 </dev/null
    expect_all "$(threads "$OUT" thread/Runnable.run)" async-thread "thread: the new thread"
    stop_jvm "$PID"

    scenario "$jdk" async own
    note "JDK $j: an executor type of the application's own"
    CASE_RX='tgt\.Async' traced own 2 4 <<'OUTLINE'
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
    traced slow 2 4 --async-wait 50 <<'OUTLINE'
tgt.Async.slow calls=1 throws=0
  tgt.Async.nap calls=1 throws=0
  tgt.Async.work calls=1 throws=0
  java.lang.Runnable.run calls=0 throws=0 async pending
OUTLINE
    traced slow 2 4 <<'OUTLINE'
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
    traced full 2 4 <<'OUTLINE'
tgt.Async.full calls=1 throws=0
  tgt.Async.work calls=1 throws=0
  java.lang.Runnable.run calls=0 throws=0 async rejected
OUTLINE
    stop_jvm "$PID"

    scenario "$jdk" async spy
    note "JDK $j: a task run at once on the caller's thread is part of the call; nothing stays"
    wait_log "$LOG" '^TASK tgt\.Async\$\$Lambda' "spy: the application's task"
    traced spy 2 4 <<'OUTLINE'
tgt.Async.spy calls=1 throws=0
  tgt.Async$Spy.execute calls=1 throws=0
    tgt.Async.lambda$spy$7 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
    expect_grep '^TASK mcalltree\.agent\.Probe$' "$LOG" "spy: the wrapper during the session"
    expect_restored "$PID" "after spy"
    wait_log_last "$LOG" '^TASK tgt\.Async\$\$Lambda' "spy: the application's task after the session"
    stop_jvm "$PID"

    scenario "$jdk" asyncmore queued
    note "JDK $j: a task's queue time and hand-off time are measured"
    CLASS=tgt.AsyncMore traced queued 2 5 <<'OUTLINE'
tgt.AsyncMore.queued calls=1 throws=0
  tgt.Async.nap calls=1 throws=0
  java.lang.Runnable.run calls=1 throws=0 async
    tgt.AsyncMore.lambda$queued$1 calls=1 throws=0
      tgt.AsyncMore.hold calls=1 throws=0
        tgt.Async.nap calls=1 throws=0
  java.util.concurrent.Callable.call calls=1 throws=0 async
    tgt.AsyncMore.lambda$queued$2 calls=1 throws=0
      tgt.Async.work calls=1 throws=0
OUTLINE
    expect_all_ge "$(field "$OUT" queued/Callable.call queued_ns)" 50000000 "queued: the task's queued_ns"
    expect_all_ge "$(field "$OUT" queued/Callable.call handoff_ns)" 30000000 "queued: the task's handoff_ns"
    expect_all_ge "$(field "$OUT" queued/Runnable.run handoff_ns)" 30000000 "queued: the first task's handoff_ns"
    note "JDK $j: queued: queued_ns $(field "$OUT" queued/Callable.call queued_ns | tr '\n' ' ')"
    trace "$j-queued-chrome" --follow-async -f chrome -n 2 "$PID" tgt.AsyncMore queued 5 "$RX"
    expect_rc 0 "queued, -f chrome"
    chrome_queued "$OUT" "queued, -f chrome"
    stop_jvm "$PID"

    scenario "$jdk" asyncmore cancel
    note "JDK $j: tasks whose futures were done before they ran are cancelled"
    CLASS=tgt.AsyncMore traced cancel 2 5 --async-wait 300 <<'OUTLINE'
tgt.AsyncMore.cancel calls=1 throws=0
  java.lang.Runnable.run calls=1 throws=0 async
    tgt.AsyncMore.lambda$cancel$4 calls=1 throws=0
      tgt.AsyncMore.hold calls=1 throws=0
        tgt.Async.nap calls=1 throws=0
  java.util.concurrent.Callable.call calls=0 throws=0 async cancelled
  java.util.function.Supplier.get calls=0 throws=0 async cancelled
OUTLINE
    trace "$j-cancel-tree" --follow-async --async-wait 300 -f tree -n 1 "$PID" tgt.AsyncMore cancel 5 "$RX"
    expect_rc 0 "cancel, -f tree"
    [ "$(grep -c '\[async, cancelled\]' "$OUT")" = 2 ] || fail "cancel, -f tree: not two lines tagged [async, cancelled]"
    stop_jvm "$PID"

    if [ "$j" -ge 21 ]; then
        scenario "$jdk" async virtual
        note "JDK $j: a task on a virtual thread of its own"
        traced virtual 3 4 <<'OUTLINE'
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
