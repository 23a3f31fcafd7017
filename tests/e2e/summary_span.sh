#!/usr/bin/env bash
# The time span of each summary, on every test JDK: a startup trace with
# aggregate and interval=0.001 over 20000 calls of tgt.StartEntry.run. Every
# summary line has start_ns and end_ns (wall clock, ns since the epoch),
# start_ns <= end_ns, both within the JVM's run; the interval summaries
# follow each other without a gap or an overlap (each starts where the one
# before ended); the final one covers them all.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")

    note "JDK $j: the span of every summary"
    f=$MCT_TMP/$j.ndjson
    t0=$(date +%s%N)
    RC=0
    timeout 60 "$jdk/bin/java" -Xshare:auto \
        "-agentpath:$MCT_AGENT=trace=tgt.StartEntry.run,depth=2,aggregate,interval=0.001,out=$f" \
        -cp "$MCT_CLASSES" tgt.Start now 20000 >"$MCT_TMP/$j.out" 2>"$MCT_TMP/$j.err" || RC=$?
    t1=$(date +%s%N)
    MCT_LAST_ERR=$MCT_TMP/$j.err
    expect_rc 0 "the traced JVM"
    python3 - "$f" "$t0" "$t1" <<'PY' || fail "the summaries' spans (above)"
import json, sys
path, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
sums = [m for m in map(json.loads, open(path)) if m.get('type') == 'summary']
if not sums or not sums[-1].get('final'):
    sys.exit('no final summary')
intervals, final = sums[:-1], sums[-1]
for s in sums:
    if not isinstance(s.get('start_ns'), int) or not isinstance(s.get('end_ns'), int):
        sys.exit('a summary without start_ns and end_ns: %s' % json.dumps(s)[:200])
    if not t0 <= s['start_ns'] <= s['end_ns'] <= t1:
        sys.exit('a span outside the run or backwards: %d..%d, run %d..%d' % (s['start_ns'], s['end_ns'], t0, t1))
for a, b in zip(intervals, intervals[1:]):
    if b['start_ns'] != a['end_ns']:
        sys.exit('interval summaries do not follow each other: %d, then %d' % (a['end_ns'], b['start_ns']))
if intervals and not (final['start_ns'] <= intervals[0]['start_ns'] and final['end_ns'] >= intervals[-1]['end_ns']):
    sys.exit('the final summary does not cover the intervals')
PY
done
echo PASS
