#!/usr/bin/env bash
# -f html, the self-contained report, in headless Chromium driven
# by tests/e2e/html_check.mjs (playwright-core and Debian's chromium, both
# installed by scripts/deps' mct_install_browser; npm's packages go into the
# build tree). Skips (77) only when they cannot be installed.
# On every test JDK, against scenario agg (tgt.Agg):
# - --aggregate --slowest 5 -n 40 -f html -o FILE writes one page that loads
#   with no console error and no request, draws one rectangle per node wide
#   enough to see, zooms on a click, highlights tgt.Agg.nap when searched,
#   shows the run's facts and the 5 slowest calls; the screenshot is kept in
#   the build tree (tests/e2e/html_report-JDK.png);
# - without --aggregate, -n 20 -f html builds the same page from the calls;
# - with gates (--max-calls one under the true count, a --percentile that
#   holds), the page lists each gate with its verdict, the failed one first
#   and its evidence at the top (exit status 4);
# - mcalltree merge -f html -o FILE of two --aggregate runs: the page of the
#   merged summary (their calls added up, the files named).
# Then, without a JVM:
# - diff -f html -o FILE --fail-over-pct 50 of two synthetic summaries (one
#   node's time tripled, one removed, one added with "</script>" in its
#   name) exits 4 and writes a page with those nodes coloured and the
#   failed gate on top, nothing on stdout;
# - a summary of 20000 nodes opens in the page and stays responsive (the
#   page's own clock times it; printed, not judged).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"
. "$MCT_SRCDIR/scripts/deps"

NPM=$MCT_BUILDDIR/tests/e2e/npm
mct_install_browser "$NPM" || skip "chromium, playwright-core or eslint could not be installed (see above)"
export MCT_NPM_DIR=$NPM
ART=$MCT_BUILDDIR/tests/e2e
# check WHAT ARGS...: html_check.mjs ARGS, its failures counted.
check() {
    local what=$1
    shift
    node "$MCT_SRCDIR/tests/e2e/html_check.mjs" "$@" || soft_fail "$what: the page's checks failed (above)"
}
RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    scenario "$jdk" agg

    note "JDK $j: --aggregate -f html"
    trace "$j-agg" --aggregate --slowest 5 -n 40 -t 120 -f html -o "$MCT_TMP/$j-agg.html" "$PID" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate -f html"
    [ -s "$MCT_TMP/$j-agg.out" ] && fail "-f html -o FILE wrote to stdout"
    expect_grep '^<!DOCTYPE html>$' "$MCT_TMP/$j-agg.html" "the page's first line"
    check "JDK $j --aggregate" run "$MCT_TMP/$j-agg.html" "$ART/html_report-$j.png" nap

    note "JDK $j: -f html of calls"
    trace "$j-calls" -n 20 -t 120 -f html -o "$MCT_TMP/$j-calls.html" "$PID" tgt.Agg run 2 "$RX"
    expect_rc 0 "-f html without --aggregate"
    expect_grep '"from_calls":true' "$MCT_TMP/$j-calls.html" "the page says it was built from calls"
    expect_grep '"type":"summary","final":true,"calls":20,' "$MCT_TMP/$j-calls.html" "the summary of the 20 calls"
    check "JDK $j calls" run "$MCT_TMP/$j-calls.html" "$ART/html_calls-$j.png" nap

    note "JDK $j: -f html with gates"
    trace "$j-gates" --aggregate -n 40 -t 120 --max-calls tgt.Agg.part=2 --percentile 50 --fail-over-ms 60000 \
        -f html -o "$MCT_TMP/$j-gates.html" "$PID" tgt.Agg run 2 "$RX"
    expect_rc 4 "-f html, --max-calls one under"
    expect_grep '"gates":\[\{"gate":"--max-calls tgt.Agg.part=2","passed":false,' "$MCT_TMP/$j-gates.html" \
        "the page's data holds the failed gate"
    check "JDK $j gates" gates "$MCT_TMP/$j-gates.html" "$ART/html_gates-$j.png"

    note "JDK $j: merge -f html"
    for k in 1 2; do
        trace "$j-m$k" --aggregate -n 20 -t 120 -o "$MCT_TMP/$j-m$k.json" "$PID" tgt.Agg run 2 "$RX"
        expect_rc 0 "--aggregate run $k to merge"
    done
    trace "$j-merge" merge -f html -o "$MCT_TMP/$j-merge.html" "$MCT_TMP/$j-m1.json" "$MCT_TMP/$j-m2.json"
    expect_rc 0 "merge -f html -o FILE"
    [ -s "$OUT" ] && fail "merge -f html -o FILE wrote to stdout"
    expect_grep '"type":"summary","final":true,"calls":40,' "$MCT_TMP/$j-merge.html" "the merged summary of 40 calls"
    check "JDK $j merge" merge "$MCT_TMP/$j-merge.html" "$ART/html_merge-$j.png" 2
    stop_target "$PID"
done

note "diff -f html"
check "gen" gen 40 "$MCT_TMP/base.json"
check "gen grow" gen 40 "$MCT_TMP/new.json" grow
trace diff diff -f html -o "$MCT_TMP/diff.html" --fail-over-pct 50 "$MCT_TMP/base.json" "$MCT_TMP/new.json"
expect_rc 4 "diff -f html with a failed gate"
[ -s "$OUT" ] && fail "diff -f html -o FILE wrote to stdout"
expect_grep '^<!DOCTYPE html>$' "$MCT_TMP/diff.html" "the diff page's first line"
grep -q '</script><b>' "$MCT_TMP/diff.html" && soft_fail "a name in the data ends the page's script"
check "diff" diff "$MCT_TMP/diff.html" "$ART/html_diff.png"

note "20000 nodes"
check "gen 20000" gen 20000 "$MCT_TMP/big.json"
j=$(jdk_major "$(echo "$MCT_TEST_JDKS" | awk '{print $1}')")
check "20000 nodes" big "$MCT_TMP/$j-agg.html" "$MCT_TMP/big.json" "$ART/html_big.png"
trace_done
