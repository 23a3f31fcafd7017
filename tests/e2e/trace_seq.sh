#!/usr/bin/env bash
# seq follows the order in which calls ended, on every
# test JDK: three threads call tgt.Work.job every few milliseconds
# (scenario threads), so that the agent often finds calls of several
# threads completed at once; in -n 400 calls, seq is 1..400 in the order of
# the lines and each call ends (start_ns + root.total_ns) no earlier than
# 20 µs before the calls numbered before it. Before, a batch was numbered
# thread by thread, and dozens of calls came out after later ones. One
# exception is allowed: a thread descheduled between recording its call's
# return and handing the call over makes the agent find it late (README,
# Output), which a busy machine may cause once in a while.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" threads
    j=$MAJOR

    note "JDK $j: 400 calls of tgt.Work.job on three threads"
    trace "$j-seq" -n 400 "$PID" tgt.Work job 2 'tgt\..*'
    expect_rc 0 "Work.job -n 400"
    check_calls "$OUT" 400 "Work.job -n 400" -D 2
    threads=$("$TREE" call "$OUT" thread.name | sort -u | wc -l)
    [ "$threads" -ge 2 ] || fail "Work.job: 400 calls on $threads thread(s), want at least 2"
    res=$("$TREE" order "$OUT" 20000) || fail "mct-tree order: seq is not 1..400 in $OUT"
    read -r n late <<<"$res"
    note "JDK $j: $n calls on $threads threads, $late out of the order of their ends"
    [ "$late" -le 1 ] || fail "Work.job: $late calls ended more than 20 µs before a call numbered earlier"
    expect_restored "$PID" "after Work.job -n 400"
    stop_jvm "$PID"
done
trace_done
