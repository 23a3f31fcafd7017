#!/usr/bin/env bash
# Two threads that look first at the same entry of the probe's table (ids
# equal modulo 1024), in entry calls at once, on every test JDK (scenario
# sharers: sharer-a and sharer-b call tgt.Sharers.job, which sleeps 2 ms
# between its two steps): while both are in a call, one of them holds its
# second entry, where its probes must still find it.
# - -n 40: exactly 40 trees, each job -> step x2 (a thread whose probes
#   missed its entry would give trees without steps), on both threads,
#   with calls of the two overlapping in time;
# - the same with --sample 2, after which a plain session still traces
#   both threads whole (the count of calls at a second entry went back).
# After every session the JVM is alive with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# check_sharers FILE WHAT: both threads, one outline, overlapping calls.
check_sharers() {
    local file=$1 what=$2 names
    expect_outline "$file" "$what" <<'EOF2'
tgt.Sharers.job calls=1 throws=0
  tgt.Sharers.step calls=2 throws=0
EOF2
    paste -d' ' <("$TREE" call "$file" thread.name) <("$TREE" call "$file" start_ns) \
        <("$TREE" call "$file" root.total_ns) >"$MCT_TMP/calls" || fail "$what: mct-tree call failed"
    names=$(cut -d' ' -f1 "$MCT_TMP/calls" | sort -u | tr '\n' ' ')
    [ "$names" = "sharer-a sharer-b " ] || fail "$what: calls on '$names', want sharer-a and sharer-b"
    awk '{ s[NR] = $2; e[NR] = $2 + $3; n[NR] = $1 }
         END { for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++)
                   if (n[i] != n[j] && s[i] < e[j] && s[j] < e[i]) exit 0
               exit 1 }' "$MCT_TMP/calls" || fail "$what: no call of one thread overlaps one of the other"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" sharers
    j=$MAJOR

    note "JDK $j: two threads sharing a first entry, -n 40"
    trace "$j-sharers" -n 40 "$PID" tgt.Sharers job 2 'tgt\..*'
    expect_rc 0 "Sharers.job -n 40"
    check_calls "$OUT" 40 "Sharers.job -n 40" -D 2
    check_sharers "$OUT" "Sharers.job -n 40"
    expect_restored "$PID" "after Sharers.job -n 40"

    note "JDK $j: the same with --sample 2, then a plain session"
    trace "$j-sharers-s2" -n 20 --sample 2 "$PID" tgt.Sharers job 2 'tgt\..*'
    expect_rc 0 "Sharers.job --sample 2"
    check_calls "$OUT" 20 "Sharers.job --sample 2" -D 2
    check_sharers "$OUT" "Sharers.job --sample 2"
    trace "$j-sharers-again" -n 20 "$PID" tgt.Sharers job 2 'tgt\..*'
    expect_rc 0 "Sharers.job after --sample 2"
    check_calls "$OUT" 20 "Sharers.job after --sample 2" -D 2
    check_sharers "$OUT" "Sharers.job after --sample 2"
    expect_restored "$PID" "after Sharers.job"
    stop_jvm "$PID"
done
