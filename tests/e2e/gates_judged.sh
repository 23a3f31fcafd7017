#!/usr/bin/env bash
# What the gates judge, on every test JDK:
# - a timing gate over too few calls for its percentile fails, saying so:
#   --percentile 99 over 30 calls exits 4 ("too few to tell their 99-th
#   percentile"), and passes with --min-calls 30 (the user says 30 are
#   enough); --min-calls 31 over 30 calls fails saying so; --min-calls
#   without a timing gate is a usage error;
# - -n N with a timing gate ends after N judged calls, warm-up ones printed
#   besides (tgt.Hot attached once its run() is compiled);
# - the wrap form passes --include-warmup on: the JVM takes the trace (it
#   used to refuse it without a gate the agent judges), and the gate judged
#   by the client holds; the client says per JVM how many calls were
#   written, and of the entry calls seen how many were traced, not traced
#   and warm-up.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
mkdir -p "$MCT_TMP/tmp"

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    java=("$jdk/bin/java" -Xshare:auto -cp "$MCT_CLASSES")

    note "JDK $j: a percentile over too few calls"
    start_target "$jdk" "$MCT_TMP/jvm-$j-dif.log" tgt.Dif a
    PID=$TARGET_PID LOG=$MCT_TMP/jvm-$j-dif.log
    trace "$j-few" --include-warmup -n 30 -t 60 --percentile 99 --fail-over-ms 60000 -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--percentile 99 over 30 calls"
    expect_grep '^mcalltree: --percentile 99: 30 calls of tgt\.Dif\.run are too few to tell their 99-th percentile \(it takes at least 100; --min-calls N says how many are enough\) \(exit status 4\)$' \
        "$ERR" "--percentile 99 over 30 calls says they are too few"
    trace "$j-enough" --include-warmup -n 30 -t 60 --percentile 99 --fail-over-ms 60000 --min-calls 30 -o /dev/null \
        "$PID" tgt.Dif run 2 "$RX"
    expect_rc 0 "--percentile 99 over 30 calls with --min-calls 30"
    trace "$j-under" --include-warmup -n 30 -t 60 --budget 'tgt.Dif.step:p90=60000' --min-calls 31 -o /dev/null \
        "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--budget at p90 over 30 calls with --min-calls 31"
    expect_grep '^mcalltree: --budget tgt\.Dif\.step:p90=60000: 30 calls of tgt\.Dif\.run were judged, under --min-calls 31 \(exit status 4\)$' \
        "$ERR" "--min-calls not met is said"
    trace "$j-alone" -n 3 --min-calls 3 "$PID" tgt.Dif run 2 "$RX"
    expect_rc 1 "--min-calls without a timing gate"
    expect_grep '^mcalltree: --min-calls needs --percentile or --budget' "$ERR" "--min-calls alone"
    expect_restored "$PID" "after the sessions"
    stop_target "$PID"

    note "JDK $j: -n N counts the calls a timing gate judges, warm-up ones left out"
    MCT_JVM_OPTS=(-XX:+PrintCompilation)
    scenario "$jdk" hot 1 10
    MCT_JVM_OPTS=()
    # Attached once tgt.Hot.run is compiled: the first calls are warm-up.
    wait_until 60 grep -q 'tgt\.Hot::run (24 bytes)$' "$LOG" || fail "tgt.Hot.run was not compiled within 60 s"
    sleep 2
    trace "$j-hot" -n 2000 -t 120 --percentile 50 --fail-over-ms 60000 --min-calls 2000 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "-n 2000 with --percentile and --min-calls 2000"
    warm=$(grep -c '"warmup":true' "$OUT" || true)
    check_calls "$OUT" $((2000 + warm)) "-n 2000: the judged calls and the warm-up ones printed" -t
    note "JDK $j: $warm warm-up calls printed besides the 2000 judged"
    expect_restored "$PID" "after -n with a timing gate"
    stop_target "$PID"

    note "JDK $j: the wrap form with --include-warmup"
    RC=0
    OUT=$MCT_TMP/$j-wrap.out ERR=$MCT_TMP/$j-wrap.err MCT_LAST_ERR=$MCT_TMP/$j-wrap.err
    TMPDIR=$MCT_TMP/tmp timeout 120 "$MCT" --include-warmup --max-calls tgt.StartEntry.twice=1 \
        -o "$MCT_TMP/$j-wrap.json" tgt.StartEntry run 2 "$RX" -- "${java[@]}" tgt.Wrapped 4 0 >"$OUT" 2>"$ERR" || RC=$?
    expect_rc 0 "wrap --include-warmup --max-calls at the true count"
    expect_no_grep 'needs aggregate or a gate' "$ERR" "wrap --include-warmup: the JVM took the trace"
    check_calls "$MCT_TMP/$j-wrap.json" +1 "wrap --include-warmup"
    expect_grep '^mcalltree: JVM pid [0-9]+: [0-9]+ calls? written; of [0-9]+ entry calls? seen, [0-9]+ traced, [0-9]+ not traced \(.*\), [0-9]+ warm-up$' \
        "$ERR" "wrap: the counts per JVM"
done
trace_done
