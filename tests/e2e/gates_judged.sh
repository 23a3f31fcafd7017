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
#   and warm-up;
# - -n N with a timing gate means N judged calls in a trace from the JVM's
#   start too, the wrap form and -agentpath's (tgt.WarmStart: BitSet.get,
#   compiled before tgt.WarmEntry loads, marks the first calls warm-up
#   with --include-jdk): N calls not warm-up written besides the warm-up
#   ones, the gate with --min-calls N holds, and the end says count.
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
    expect_grep '^mcalltree: JVM pid [0-9]+: [0-9]+ calls? written; of [0-9]+ entry calls? seen, [0-9]+ traced, [0-9]+ not traced( \(the agent was still building the trees of earlier ones\))?, [0-9]+ warm-up$' \
        "$ERR" "wrap: the counts per JVM"

    # judged_calls FILE WHAT: FILE's calls are 500 not warm-up and some warm-up.
    judged_calls() {
        local warm judged
        warm=$(grep '"type":"call"' "$1" | grep -c '"warmup":true' || true)
        judged=$(grep '"type":"call"' "$1" | grep -vc '"warmup":true' || true)
        [ "$judged" = 500 ] || fail "$2: $judged calls not warm-up written, want 500 ($warm warm-up)"
        [ "$warm" -gt 0 ] || fail "$2: no warm-up call: BitSet.get was not compiled before tgt.WarmEntry loaded"
        note "JDK $j: $2: $warm warm-up calls besides the 500 judged"
    }

    note "JDK $j: the wrap form, -n 500 with a timing gate"
    RC=0
    OUT=$MCT_TMP/$j-wrapn.out ERR=$MCT_TMP/$j-wrapn.err MCT_LAST_ERR=$MCT_TMP/$j-wrapn.err
    TMPDIR=$MCT_TMP/tmp timeout 120 "$MCT" --include-jdk -n 500 --percentile 50 --fail-over-ms 60000 --min-calls 500 \
        -o "$MCT_TMP/$j-wrapn.json" tgt.WarmEntry run 2 'java\.util\.BitSet' -- "${java[@]}" tgt.WarmStart 200000 \
        >"$OUT" 2>"$ERR" || RC=$?
    expect_rc 0 "wrap -n 500 with --percentile and --min-calls 500"
    judged_calls "$MCT_TMP/$j-wrapn.json" "wrap -n 500"

    note "JDK $j: -agentpath, count=500 with a timing gate"
    f=$MCT_TMP/$j-startn.ndjson
    RC=0
    timeout 120 "${java[@]}" "-agentpath:$MCT_AGENT=trace=tgt.WarmEntry.run,depth=2,regex=java%5C.util%5C.BitSet,include-jdk,count=500,percentile=50,fail-over-ms=60000,min-calls=500,out=$f" \
        tgt.WarmStart 200000 >"$MCT_TMP/$j-startn.out" 2>"$MCT_TMP/$j-startn.err" || RC=$?
    expect_rc 0 "-agentpath count=500: the JVM"
    judged_calls "$f" "-agentpath count=500"
    tail -n 1 "$f" | grep -q '^{"type":"end","reason":"count",' || fail "-agentpath count=500: the end: $(tail -n 1 "$f")"
    trace "$j-startn-verdict" verdict "$f"
    expect_rc 0 "-agentpath count=500: mcalltree verdict"
done
trace_done
