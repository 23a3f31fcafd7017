#!/usr/bin/env bash
# Durations and the options that act on them, on every test JDK:
# - tgt.Sleepy.run: nap() sleeps 50 ms and is measured at no less than
#   50 ms, run at no less than nap, and (SPEC 3's invariants, on every node)
#   the children never sum to more than their parent; -f tree --slow-ms
#   tags the slow nodes and only those; on a terminal (script(1)) the tree
#   is coloured, and not with NO_COLOR;
# - tgt.Mixed.run alternates slow (nap) and fast (quick) calls: --min-ms 20
#   prints only calls of at least 20 ms (the fast ones never), and --count
#   counts the printed ones; --fail-over-ms 20 exits 4 with a message
#   naming the call and the limit, after printing every call; a limit that
#   no call reaches exits 0.
# After every session the JVM is alive with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" sleepy
    j=$MAJOR

    note "JDK $j: a 50 ms sleep measured at 50 ms or more (tgt.Sleepy.run)"
    trace "$j-sleepy" -n 3 "$PID" tgt.Sleepy run 3 "$RX"
    expect_rc 0 "Sleepy.run"
    check_calls "$OUT" 3 "Sleepy.run" -D 3
    expect_outline "$OUT" "Sleepy.run" <<'EOF'
tgt.Sleepy.run calls=1 throws=0
  tgt.Sleepy.nap calls=1 throws=0
  tgt.Sleepy.quick calls=1 throws=0
EOF
    naps=$(field "$OUT" run/nap total_ns)
    note "JDK $j: nap took $(tr '\n' ' ' <<<"$naps")ns"
    expect_all_ge "$naps" 50000000 "Sleepy.nap's total_ns"
    expect_all_ge "$(field "$OUT" run/nap min_ns)" 50000000 "Sleepy.nap's min_ns"
    expect_all_ge "$(field "$OUT" run total_ns)" 50000000 "Sleepy.run's total_ns"
    expect_restored "$PID" "after Sleepy.run"

    note "JDK $j: -f tree --slow-ms 20 tags the slow nodes"
    trace "$j-slow" -f tree --slow-ms 20 -n 1 "$PID" tgt.Sleepy run 3 "$RX"
    expect_rc 0 "-f tree --slow-ms 20"
    expect_grep 'tgt\.Sleepy\.run\(\).*\[slow\]' "$OUT" "--slow-ms: run"
    expect_grep 'tgt\.Sleepy\.nap\(\).*\[slow\]' "$OUT" "--slow-ms: nap"
    expect_grep 'tgt\.Sleepy\.quick\(\)' "$OUT" "--slow-ms: quick"
    expect_no_grep 'tgt\.Sleepy\.quick\(\).*\[slow\]' "$OUT" "--slow-ms: quick is not slow"
    expect_restored "$PID" "after --slow-ms"

    if command -v script >/dev/null; then
        note "JDK $j: -f tree on a terminal: colours, none with NO_COLOR"
        tty_cmd="'$MCT' -f tree --slow-ms 20 -n 1 $PID tgt.Sleepy run 3 'tgt\..*'"
        script -qec "$tty_cmd" /dev/null >"$MCT_TMP/$j-tty.out" 2>&1 </dev/null ||
            fail "-f tree on a terminal: exit status $?"
        expect_grep 'tgt\.Sleepy.*nap' "$MCT_TMP/$j-tty.out" "-f tree on a terminal"
        grep -q $'\033\[' "$MCT_TMP/$j-tty.out" || fail "-f tree on a terminal: no colour"
        NO_COLOR=1 script -qec "$tty_cmd" /dev/null >"$MCT_TMP/$j-nocolor.out" 2>&1 </dev/null ||
            fail "-f tree with NO_COLOR: exit status $?"
        expect_grep 'tgt\.Sleepy\.nap\(\).*\[slow\]' "$MCT_TMP/$j-nocolor.out" "-f tree with NO_COLOR"
        if grep -q $'\033\[' "$MCT_TMP/$j-nocolor.out"; then fail "-f tree with NO_COLOR: colours"; fi
        expect_restored "$PID" "after -f tree on a terminal"
    else
        note "JDK $j: no script(1): -f tree on a terminal not tested"
    fi
    stop_jvm "$PID"

    scenario "$jdk" mixed
    note "JDK $j: --min-ms 20 prints the slow calls only (tgt.Mixed.run)"
    trace "$j-minms" -v --min-ms 20 -n 4 "$PID" tgt.Mixed run 2 "$RX"
    expect_rc 0 "--min-ms 20"
    check_calls "$OUT" 4 "--min-ms 20 -n 4" -D 2
    expect_all_ge "$(field "$OUT" run total_ns)" 20000000 "--min-ms 20: a root's total_ns"
    expect_outline "$OUT" "--min-ms 20" <<'EOF'
tgt.Mixed.run calls=1 throws=0
  tgt.Sleepy.nap calls=1 throws=0
EOF
    expect_grep 'session ended.* 4 printed, [1-9][0-9]* under --min-ms' "$ERR" \
        "--min-ms 20: fast calls completed and were not printed"
    expect_restored "$PID" "after --min-ms"

    note "JDK $j: without --min-ms, both kinds of call"
    trace "$j-mixed" -n 6 "$PID" tgt.Mixed run 2 "$RX"
    expect_rc 0 "Mixed.run -n 6"
    check_calls "$OUT" 6 "Mixed.run -n 6" -D 2
    expect_grep '"method":"quick"' "$OUT" "Mixed.run -n 6: a fast call"
    expect_grep '"method":"nap"' "$OUT" "Mixed.run -n 6: a slow call"
    expect_restored "$PID" "after Mixed.run -n 6"

    note "JDK $j: --fail-over-ms"
    trace "$j-failover" --fail-over-ms 20 -n 4 "$PID" tgt.Mixed run 2 "$RX"
    expect_rc 4 "--fail-over-ms 20"
    check_calls "$OUT" 4 "--fail-over-ms 20 -n 4"
    expect_grep 'call #[1-4] took [0-9.]+ ms, over --fail-over-ms 20 \(exit status 4\)' "$ERR" \
        "--fail-over-ms 20: the call and the limit named"
    expect_restored "$PID" "after --fail-over-ms 20"
    trace "$j-failover-ok" --fail-over-ms 60000 -n 4 "$PID" tgt.Mixed run 2 "$RX"
    expect_rc 0 "--fail-over-ms 60000"
    check_calls "$OUT" 4 "--fail-over-ms 60000 -n 4"
    expect_restored "$PID" "after --fail-over-ms 60000"
    stop_jvm "$PID"
done
trace_done
