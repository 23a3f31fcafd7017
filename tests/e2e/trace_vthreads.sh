#!/usr/bin/env bash
# The entry method on virtual threads (JDK 21+; scenario vthreads): twelve
# virtual threads call tgt.VWork.job, which sleeps between its two steps, so
# a call may continue on another carrier thread. Every call printed is whole
# and right (job -> step x2, pause; pause lasts its millisecond), named after
# its virtual thread. Any number of threads may be inside a call at once
# (trace_overlap.sh); a call not traced is reported at the end of the
# session, and no tree mixes two calls up.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
ran=0
for jdk in $MCT_TEST_JDKS; do
    if [ "$(jdk_major "$jdk")" -lt 21 ]; then
        note "JDK $(jdk_major "$jdk"): no virtual threads"
        continue
    fi
    scenario "$jdk" vthreads
    j=$MAJOR

    note "JDK $j: calls on virtual threads that sleep mid-call"
    trace "$j-vt" -v -n 40 -t 60 "$PID" tgt.VWork job 3 "$RX"
    expect_rc 0 "virtual threads"
    check_calls "$OUT" 40 "virtual threads" -D 3
    expect_grep 'session ended \(count\): .*, [0-9]+ not traced;' "$ERR" "virtual threads: calls not traced reported"
    expect_outline "$OUT" "virtual threads" <<'OUTLINE'
tgt.VWork.job calls=1 throws=0
  tgt.VWork.step calls=2 throws=0
  tgt.VWork.pause calls=1 throws=0
OUTLINE
    "$TREE" call "$OUT" thread.name >"$MCT_TMP/$j-names"
    grep -Evq '^vt-[0-9]+$' "$MCT_TMP/$j-names" && fail "virtual threads: a name that is not vt-N"
    [ "$(sort -u "$MCT_TMP/$j-names" | wc -l)" -ge 4 ] ||
        fail "virtual threads: fewer than 4 distinct threads in 40 calls"
    expect_all_ge "$(field "$OUT" job/pause min_ns)" 1000000 "virtual threads: pause lasts its sleep"
    expect_restored "$PID" "after the virtual threads"
    stop_jvm "$PID"
    ran=1
done
[ "$ran" = 1 ] || skip "no JDK with virtual threads"
trace_done
