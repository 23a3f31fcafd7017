#!/usr/bin/env bash
# --follow-async and streams (scenario pstream, tgt.PStream), on every test
# JDK:
# - par: a parallel map(pmap).collect in par and a parallel forEach(peach)
#   in each, 16 elements, the caller and a ForkJoin worker sharing them:
#   the worker's share is an async node (Function.apply, Consumer.accept)
#   under the node that built the stream, one per worker thread, named
#   ForkJoinPool.commonPool-worker-N, with queued_ns; the caller's share is
#   part of the call; every element is counted once (inline and async
#   calls add up to 16); SPEC 3's arithmetic holds (mct-tree check);
# - the function is wrapped only inside a traced call: each() called
#   outside one never sees the agent's wrapper on its stack (the target
#   prints WRAPPED lines), inside one it does, and after the session no
#   wrapper is left, no class stays instrumented;
# - seq: a sequential stream's map and forEach are plain nodes of the call,
#   no async node, nothing pending;
# - big: a parallel mapToLong over 10,000 elements gives at most one async
#   node per worker thread, of 64 runs at most, and its calls with the
#   caller's add up to 10,000: fewer only in a call marked truncated (the
#   caller's ring overflowed, before it grew) and by the runs a worker did
#   not trace, which the session counts as not traced;
# - prim: the primitive streams' own functions, a parallel IntStream's map
#   (IntUnaryOperator.applyAsInt) and a LongStream's filter
#   (LongPredicate.test), shared as in par, wrapped only inside a traced
#   call (ints() called outside one never sees the wrapper);
# - red: reduce's accumulator (BiFunction.apply, once per element),
#   collect's (BiConsumer.accept, likewise), max's Comparator.compare, an
#   IntStream's reduce (IntBinaryOperator.applyAsInt) and reduce's
#   BinaryOperator.apply (15 pairs of 16 elements each), shared as in par;
#   a sequential LongStream's reduce(0, lsum) (a long under the function
#   on the stack) is part of the call, 16 lsum nodes.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# wait_log FILE PATTERN WHAT: waits (30 s at most) for a line of FILE
# matching PATTERN.
wait_log() {
    wait_until 30 grep -q "$2" "$1" || fail "$3: no line '$2' in $1"
}

last_inside_is() {
    grep '^WRAPPED inside' "$1" | tail -1 | grep -qx "$2"
}

# not_traced ERR: the calls the session did not trace (busy), from the
# client's -v end line in ERR.
not_traced() {
    sed -n 's/.*session ended.* \([0-9][0-9]*\) not traced.*/\1/p' "$1" | tail -1
}

# shares FILE WHAT ROOT BUSY SPEC...: in every call of FILE (root ROOT),
# each SPEC "PARENT:TASK:FUNC:N" holds: under the node at path PARENT the
# async nodes TASK (the task method, CLASS.METHOD) are one per thread, each
# on a ForkJoinPool.commonPool-worker-N with queued_ns >= 0, and the calls
# of FUNC under them and under PARENT itself (the caller's share) add up
# to N, but in a call whose ring overflowed (truncated: fewer), and less
# the runs a worker did not trace (past the 64 a thread traces of one
# stream, its node truncated, or its ring full): BUSY at most in all, the
# session's count of calls not traced; some call has an async node of each
# SPEC.
shares() {
    python3 - "$@" <<'PY' || fail "$2: the streams' shares (above)"
import json, re, sys
path, what, root, busy = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4] or -1)
specs = [s.split(":") for s in sys.argv[5:]]
calls = [json.loads(l) for l in open(path) if l.strip()]
assert calls, "no calls"
assert busy >= 0, "%s: no count of calls not traced" % what
seen = {s[1]: 0 for s in specs}
missing = 0
def truncated(n):
    # the caller's own nodes (its ring overflowed), not the async ones
    return n.get("truncated") or any(truncated(k) for k in n["children"] if not k.get("async"))
def name(n):
    return n["class"] + "." + n["method"]
def at(node, parts):
    for p in parts:
        kids = [c for c in node["children"] if name(c) == p and not c.get("async")]
        assert len(kids) == 1, "%s: %d nodes %s" % (what, len(kids), p)
        node = kids[0]
    return node
for c in calls:
    r = c["root"]
    assert name(r) == root, "%s: root %s" % (what, name(r))
    for parent, task, func, n in specs:
        p = at(r, parent.split("/")[1:])
        tasks = [k for k in p["children"] if k.get("async")]
        assert all(name(k) == task for k in tasks), "%s: async nodes %s" % (what, [name(k) for k in tasks])
        threads = [k.get("thread", "") for k in tasks]
        assert len(set(threads)) == len(threads), "%s: two nodes of one thread %s" % (what, threads)
        for k in tasks:
            assert re.fullmatch(r"ForkJoinPool\.commonPool-worker-\d+", k.get("thread", "")), k
            assert k.get("queued_ns", -1) >= 0 and not k.get("pending") and not k.get("rejected"), k
            assert k["calls"] <= 64, "%s: %d runs on %s, more than a thread traces" % (what, k["calls"], k["thread"])
        fs = [x for k in tasks + [p] for x in k["children"] if name(x) == func and not x.get("async")]
        got = sum(x["calls"] for x in fs)
        assert got <= int(n), "%s: %d calls of %s, want %s" % (what, got, func, n)
        if not truncated(r):
            missing += int(n) - got
        seen[task] += len(tasks)
assert missing <= busy, "%s: %d applications missing, %d calls not traced" % (what, missing, busy)
for task, n in seen.items():
    assert n > 0, "%s: no async node %s in %d calls" % (what, task, len(calls))
print("--- %s: %d missing, %d not traced; async nodes %s" % (
    what, missing, busy, " ".join("%s=%d" % kv for kv in seen.items())), file=sys.stderr)
PY
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" pstream par
    j=$MAJOR
    wait_log "$LOG" '^WRAPPED outside false' "par: each() outside a traced call"
    note "JDK $j: a parallel map and forEach, shared by the caller and the common pool"
    trace "$j-par" -v --follow-async -n 3 "$PID" tgt.PStream par 6 "$RX"
    expect_rc 0 "par"
    check_calls "$OUT" 3 "par" -D 6
    shares "$OUT" "JDK $j: par" tgt.PStream.par "$(not_traced "$ERR")" \
        'tgt.PStream.par:java.util.function.Function.apply:tgt.PStream.pmap:16' \
        'tgt.PStream.par/tgt.PStream.each:java.util.function.Consumer.accept:tgt.PStream.peach:16'
    expect_grep '^WRAPPED inside true$' "$LOG" "par: the wrapper inside a traced call"
    expect_no_grep '^WRAPPED outside true' "$LOG" "par: a wrapper outside a traced call"
    trace "$j-plain" -n 2 "$PID" tgt.PStream par 6 "$RX"
    expect_rc 0 "par without --follow-async"
    expect_no_grep '"async"' "$OUT" "par without --follow-async"
    expect_restored "$PID" "after par"
    wait_until 30 last_inside_is "$LOG" 'WRAPPED inside false' ||
        fail "par: the wrapper is still there after the session"
    expect_no_grep '^WRAPPED outside true' "$LOG" "par: a wrapper outside a traced call, after the session"
    stop_jvm "$PID"

    scenario "$jdk" pstream seq
    note "JDK $j: a sequential stream is part of the call"
    trace "$j-seq" --follow-async -n 3 "$PID" tgt.PStream seq 4 "$RX"
    expect_rc 0 "seq"
    check_calls "$OUT" 3 "seq" -D 4
    expect_outline "$OUT" "seq" <<'OUTLINE'
tgt.PStream.seq calls=1 throws=0
  tgt.PStream.seqWork calls=16 throws=0
    tgt.PStream.work calls=16 throws=0
  tgt.PStream.take calls=16 throws=0
OUTLINE
    expect_restored "$PID" "after seq"
    stop_jvm "$PID"

    scenario "$jdk" pstream big
    note "JDK $j: a parallel stream of 10,000 elements"
    trace "$j-big" -v --follow-async -n 3 "$PID" tgt.PStream big 4 "$RX"
    expect_rc 0 "big"
    check_calls "$OUT" 3 "big" -t -D 4
    shares "$OUT" "JDK $j: big" tgt.PStream.big "$(not_traced "$ERR")" \
        'tgt.PStream.big:java.util.function.ToLongFunction.applyAsLong:tgt.PStream.tiny:10000'
    expect_restored "$PID" "after big"
    stop_jvm "$PID"

    scenario "$jdk" pstream prim
    wait_log "$LOG" '^WRAPPED outside false' "prim: ints() outside a traced call"
    note "JDK $j: a parallel IntStream's map and LongStream's filter"
    trace "$j-prim" -v --follow-async -n 3 "$PID" tgt.PStream prim 6 "$RX"
    expect_rc 0 "prim"
    check_calls "$OUT" 3 "prim" -D 6
    shares "$OUT" "JDK $j: prim" tgt.PStream.prim "$(not_traced "$ERR")" \
        'tgt.PStream.prim/tgt.PStream.ints:java.util.function.IntUnaryOperator.applyAsInt:tgt.PStream.imap:16' \
        'tgt.PStream.prim/tgt.PStream.longs:java.util.function.LongPredicate.test:tgt.PStream.ltest:16'
    expect_grep '^WRAPPED inside true$' "$LOG" "prim: the wrapper inside a traced call"
    expect_no_grep '^WRAPPED outside true' "$LOG" "prim: a wrapper outside a traced call"
    expect_restored "$PID" "after prim"
    wait_until 30 last_inside_is "$LOG" 'WRAPPED inside false' ||
        fail "prim: the wrapper is still there after the session"
    stop_jvm "$PID"

    scenario "$jdk" pstream red
    note "JDK $j: a parallel reduce, collect and max"
    trace "$j-red" -v --follow-async -n 3 "$PID" tgt.PStream red 6 "$RX"
    expect_rc 0 "red"
    check_calls "$OUT" 3 "red" -D 6
    shares "$OUT" "JDK $j: red" tgt.PStream.red "$(not_traced "$ERR")" \
        'tgt.PStream.red:java.util.function.BiFunction.apply:tgt.PStream.acc:16' \
        'tgt.PStream.red/tgt.PStream.col:java.util.function.BiConsumer.accept:tgt.PStream.cacc:16' \
        'tgt.PStream.red/tgt.PStream.most:java.util.Comparator.compare:tgt.PStream.cmp:15' \
        'tgt.PStream.red/tgt.PStream.ired:java.util.function.IntBinaryOperator.applyAsInt:tgt.PStream.isum:15' \
        'tgt.PStream.red/tgt.PStream.ored:java.util.function.BinaryOperator.apply:tgt.PStream.osum:15'
    python3 - "$OUT" <<'PY' || fail "JDK $j: red: a sequential LongStream's reduce is part of the call"
import json, sys
for l in open(sys.argv[1]):
    if not l.strip():
        continue
    lt = [k for k in json.loads(l)["root"]["children"] if k["method"] == "ltotal"]
    assert len(lt) == 1 and not any(k.get("async") for k in lt[0]["children"]), lt
    assert [(k["method"], k["calls"]) for k in lt[0]["children"]] == [("lsum", 16)], lt[0]["children"]
PY
    expect_restored "$PID" "after red"
    stop_jvm "$PID"
done
trace_done
