#!/usr/bin/env bash
# diff's statistics and mcalltree merge on a branchy target (tgt.Branchy:
# nodes reached by 1/2, 1/7 and 1/100 of the entry calls, a cache that hits
# 9 in 10, a 5 ms node), on every test JDK. Each "build" is traced once as
# per-call NDJSON; its calls (past the first 200) are cut into runs of 500
# calls (A/A) or 1000 calls (the changed builds, against two runs of 500
# joined), each read by diff as one run of that build.
# - A/A: at least 18 of 20 pairs of runs of the same build pass
#   --fail-on-calls and --fail-over-pct 10 (no false alarm on counts,
#   shares or times beyond the confidence's): at 99.9 % confidence a pair
#   raises a false alarm about 1 time in 1,000, so demanding all 20 on
#   both JDKs would fail about 1 run in 25 (once in CI: 97 of 500 calls
#   reaching a node of share 1/7), and pair i shares a run with pair
#   i + 1, so one run that strays fails up to two;
# - one more call per reached node (seventh calls step twice): fails every
#   time (3 of 3), naming the node and its calls min..max; --ignore of that
#   node passes; --junit writes the failed check with its evidence;
# - the branch share doubled (1/7 -> 2/7): fails every time with the
#   z-test's evidence;
# - +30 % at p50 on the 5 ms node: detected every time, with its interval;
# - merge: the summaries of 3 runs, merged, equal the summary of all their
#   calls (counts and histograms exactly), and diff accepts the merge; the
#   agent's --interval summaries merge into the final summary exactly (the
#   last interval's comes before it) and pass diff
#   against the run's final summary;
#   the summaries of two JVMs in one file are merged by diff, which says so.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\.Branchy'
# build JDK VARIANT NAME RUNS CALLS: traces 200 + RUNS * CALLS calls of
# tgt.Branchy.handle in a fresh JVM of that variant and cuts them into runs
# of CALLS calls, $MCT_TMP/NAME-00.json, NAME-01.json, ...
build() {
    local n=$((200 + $4 * $5))
    start_target "$1" "$MCT_TMP/jvm-$3.log" tgt.Branchy "$2"
    trace "$3" -n "$n" -t 300 -f json -o "$MCT_TMP/$3.json" "$TARGET_PID" tgt.Branchy handle 3 "$RX"
    expect_rc 0 "tracing variant $2 ($3)"
    stop_target "$TARGET_PID"
    [ "$(wc -l <"$MCT_TMP/$3.json")" -eq "$n" ] || fail "$3: not $n calls"
    tail -n +201 "$MCT_TMP/$3.json" | split -l "$5" -d -a 2 --additional-suffix=.json - "$MCT_TMP/$3-"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    note "JDK $j: four builds of tgt.Branchy"
    build "$jdk" a "$j-a" 21 500
    build "$jdk" extra "$j-x" 3 1000
    build "$jdk" share "$j-s" 3 1000
    build "$jdk" slow "$j-w" 3 1000

    note "JDK $j: A/A, 20 pairs"
    pass=0
    for i in $(seq 0 19); do
        trace "$j-aa-$i" diff --fail-on-calls --fail-over-pct 10 \
            "$MCT_TMP/$j-a-$(printf %02d "$i").json" "$MCT_TMP/$j-a-$(printf %02d $((i + 1))).json"
        if [ "$RC" = 0 ]; then pass=$((pass + 1)); else cat "$ERR" >&2; fi
    done
    [ "$pass" -ge 18 ] || fail "JDK $j: A/A diff passed $pass of 20, want at least 18"

    for k in 0 1 2; do
        A=$MCT_TMP/$j-a2-$k.json
        cat "$MCT_TMP/$j-a-0$((2 * k)).json" "$MCT_TMP/$j-a-0$((2 * k + 1)).json" >"$A"
        note "JDK $j: one more call per reached node ($k)"
        trace "$j-x-$k" diff --fail-on-calls --junit "$MCT_TMP/$j-x-$k.xml" "$A" "$MCT_TMP/$j-x-0$k.json"
        expect_rc 4 "one more step() per seventh()"
        expect_grep '^mcalltree diff: --fail-on-calls: tgt\.Branchy\.handle\(J\)J > tgt\.Branchy\.seventh\(J\)J > tgt\.Branchy\.step\(J\)J: calls per entry call that reached it 1 -> 2 ' \
            "$ERR" "the node named with its calls"
        expect_grep '<failure message="--fail-on-calls: tgt\.Branchy\.handle\(J\)J &gt; tgt\.Branchy\.seventh\(J\)J &gt; tgt\.Branchy\.step\(J\)J: calls per entry call that reached it 1 -&gt; 2 ' \
            "$MCT_TMP/$j-x-$k.xml" "the JUnit failure"
        expect_grep '<testcase classname="mcalltree diff" name="calls: tgt\.Branchy\.handle\(J\)J &gt; tgt\.Branchy\.get\(JZ\)J"/>' \
            "$MCT_TMP/$j-x-$k.xml" "a passed JUnit case"
        trace "$j-xi-$k" diff --fail-on-calls --ignore 'seventh' "$A" "$MCT_TMP/$j-x-0$k.json"
        expect_rc 0 "the same with --ignore seventh"
        expect_grep '  tgt\.Branchy\.step\(long\)  \[ignored\]$' "$OUT" "the ignored node marked"

        note "JDK $j: branch share doubled ($k)"
        trace "$j-s-$k" diff --fail-on-calls "$A" "$MCT_TMP/$j-s-0$k.json"
        expect_rc 4 "seventh() on 2 calls in 7"
        expect_grep '^mcalltree diff: --fail-on-calls: tgt\.Branchy\.handle\(J\)J > tgt\.Branchy\.seventh\(J\)J: share of entry calls that reached it 1[0-9]\.[0-9]+% \([0-9]+ of 1000\) -> [23][0-9]\.[0-9]+% \([0-9]+ of 1000\): two-proportion z-test p = [0-9.e-]+, under ' \
            "$ERR" "the share's test"
        expect_no_grep 'seventh\(J\)J: calls per entry call that reached it' "$ERR" "no calls change"

        note "JDK $j: +30 % at p50 of the 5 ms node ($k)"
        trace "$j-w-$k" diff --fail-over-pct 10 "$A" "$MCT_TMP/$j-w-0$k.json"
        expect_rc 4 "half() 5 ms -> 6.5 ms"
        expect_grep '^mcalltree diff: --fail-over-pct 10: p50 of tgt\.Branchy\.handle\(J\)J > tgt\.Branchy\.half\(J\)J grew from 5\.[0-9]+ ms to 6\.[0-9]+ ms \(\+[0-9.]+%; 99\.9% interval of the change \+[0-9.]+% \.\. \+[0-9.]+%\), over 10%$' \
            "$ERR" "the growth with its interval"
    done

    note "JDK $j: merge"
    # Summaries of 3 runs of calls, merged, equal the summary of all their
    # calls: counts and histograms exactly (the same tree, byte for byte).
    for k in 0 1 2; do
        trace "$j-m$k" merge "$MCT_TMP/$j-a-0$k.json"
        expect_rc 0 "merge of one run's calls"
        mv "$OUT" "$MCT_TMP/$j-m$k.json"
    done
    trace "$j-m" merge "$MCT_TMP/$j-m0.json" - "$MCT_TMP/$j-m2.json" <"$MCT_TMP/$j-m1.json"
    expect_rc 0 "merge of three summaries (one on stdin)"
    mv "$OUT" "$MCT_TMP/$j-merged.json"
    cat "$MCT_TMP/$j-a-00.json" "$MCT_TMP/$j-a-01.json" "$MCT_TMP/$j-a-02.json" >"$MCT_TMP/$j-a-all.json"
    trace "$j-mall" merge "$MCT_TMP/$j-a-all.json"
    expect_field "$MCT_TMP/$j-merged.json" calls 1500
    sed 's/.*"root"://; s/,"methods".*//' "$MCT_TMP/$j-merged.json" >"$MCT_TMP/$j-merged.root"
    sed 's/.*"root"://; s/,"methods".*//' "$OUT" >"$MCT_TMP/$j-all.root"
    cmp -s "$MCT_TMP/$j-merged.root" "$MCT_TMP/$j-all.root" ||
        fail "the merged summaries' tree differs from the summary of all their calls"
    trace "$j-mdiff" diff -f json --fail-on-calls --fail-over-pct 0 --min-ns 0 "$MCT_TMP/$j-merged.json" \
        "$MCT_TMP/$j-a-all.json"
    expect_rc 0 "diff of the merge and the calls"
    expect_no_grep '"status":"(calls|share|added|removed)"' "$OUT" "a row that differs"
    expect_no_grep '"pct":[-1-9]' "$OUT" "a percentile that differs"
    # The agent's --interval summaries of a run, merged by the agent's rule
    # (a JVM without a final summary: all its intervals).
    start_target "$jdk" "$MCT_TMP/jvm-$j-m.log" tgt.Branchy a
    PID1=$TARGET_PID
    trace "$j-agg" --aggregate --interval 0.2 -n 600 -t 120 -f json -o "$MCT_TMP/$j-agg.json" "$PID1" \
        tgt.Branchy handle 3 "$RX"
    expect_rc 0 "--aggregate --interval"
    grep '"final":false' "$MCT_TMP/$j-agg.json" >"$MCT_TMP/$j-iv.json"
    grep '"final":true' "$MCT_TMP/$j-agg.json" >"$MCT_TMP/$j-fin.json"
    [ "$(wc -l <"$MCT_TMP/$j-iv.json")" -ge 2 ] || fail "fewer than 2 interval summaries"
    trace "$j-merge" merge "$MCT_TMP/$j-iv.json"
    expect_rc 0 "merge of the interval summaries"
    mv "$OUT" "$MCT_TMP/$j-ivm.json"
    want=0
    for c in $(grep -o '^{"type":"summary","final":false,"calls":[0-9]*' "$MCT_TMP/$j-iv.json" | sed 's/.*://'); do
        want=$((want + c))
    done
    expect_field "$MCT_TMP/$j-ivm.json" calls "$want"
    # the last interval's summary comes before the final one: together the
    # intervals hold every call of the final summary, and their merge is it
    expect_field "$MCT_TMP/$j-fin.json" calls "$want"
    sed 's/.*"root"://; s/,"methods".*//' "$MCT_TMP/$j-ivm.json" >"$MCT_TMP/$j-ivm.root"
    sed 's/.*"root"://; s/,"methods".*//' "$MCT_TMP/$j-fin.json" >"$MCT_TMP/$j-fin.root"
    cmp -s "$MCT_TMP/$j-ivm.root" "$MCT_TMP/$j-fin.root" ||
        fail "the merged interval summaries' tree differs from the final summary's"
    trace "$j-ivdiff" diff --fail-on-calls "$MCT_TMP/$j-ivm.json" "$MCT_TMP/$j-fin.json"
    expect_rc 0 "diff of the merged intervals and the final summary"

    note "JDK $j: two JVMs in one file"
    start_target "$jdk" "$MCT_TMP/jvm-$j-m2.log" tgt.Branchy a
    PID2=$TARGET_PID
    trace "$j-agg2" --aggregate -n 300 -t 120 -f json -o "$MCT_TMP/$j-agg2.json" "$PID2" tgt.Branchy handle 3 "$RX"
    expect_rc 0 "--aggregate of the second JVM"
    stop_target "$PID1"
    stop_target "$PID2"
    { sed "s/^{/{\"pid\":$PID1,/" "$MCT_TMP/$j-fin.json"; sed "s/^{/{\"pid\":$PID2,/" "$MCT_TMP/$j-agg2.json"; } \
        >"$MCT_TMP/$j-two.json"
    trace "$j-two" diff --fail-on-calls "$MCT_TMP/$j-two.json" "$MCT_TMP/$j-fin.json"
    expect_rc 0 "diff of two JVMs' summaries against one"
    expect_grep "^mcalltree diff: $MCT_TMP/$j-two\.json holds the summaries of 2 JVMs: compared merged$" "$ERR" \
        "the merge said"
    expect_grep "^base: $(($(json_get "$MCT_TMP/$j-fin.json" calls) + $(json_get "$MCT_TMP/$j-agg2.json" calls))) entry calls" "$OUT" "the calls of both JVMs"
done
trace_done
