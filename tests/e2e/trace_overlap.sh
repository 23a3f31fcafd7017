#!/usr/bin/env bash
# More threads inside traced calls at once than the agent once had slots
# (8), on every test JDK (scenario overlap: 24 platform threads overlap-N
# and, on JDK 21+, 24 virtual threads ov-N call tgt.Overlap.job, which waits
# mid-call until every thread is inside its own call): every call is
# traced (the end line says 0 not traced), every tree is whole and right
# (job -> step x2), and every thread is seen. Before, past 8 threads the
# virtual threads' calls were not traced.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

N=24
for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" overlap "$N"
    j=$MAJOR
    per_round=$N
    [ "$j" -ge 21 ] && per_round=$((2 * N))
    calls=$((3 * per_round))

    note "JDK $j: $per_round threads inside tgt.Overlap.job at once, -n $calls"
    trace "$j-overlap" -v -n "$calls" -t 120 "$PID" tgt.Overlap job 2 'tgt\..*'
    expect_rc 0 "overlapping calls"
    check_calls "$OUT" "$calls" "overlapping calls" -D 2
    expect_outline "$OUT" "overlapping calls" <<'OUTLINE'
tgt.Overlap.job calls=1 throws=0
  tgt.Overlap.step calls=2 throws=0
OUTLINE
    expect_grep 'session ended \(count\): .*, 0 not traced;' "$ERR" "overlapping calls: every call traced"
    "$TREE" call "$OUT" thread.name >"$MCT_TMP/$j-names"
    platform=$(grep -cxE 'overlap-[0-9]+' <(sort -u "$MCT_TMP/$j-names"))
    note "JDK $j: $platform distinct platform threads"
    [ "$platform" = "$N" ] || fail "overlapping calls: $platform distinct platform threads, want $N"
    if [ "$j" -ge 21 ]; then
        virtual=$(grep -cxE 'ov-[0-9]+' <(sort -u "$MCT_TMP/$j-names"))
        note "JDK $j: $virtual distinct virtual threads"
        [ "$virtual" = "$N" ] || fail "overlapping calls: $virtual distinct virtual threads, want $N"
    fi
    expect_restored "$PID" "after the overlapping calls"
    stop_jvm "$PID"
done
trace_done
