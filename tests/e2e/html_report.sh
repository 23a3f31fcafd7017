#!/usr/bin/env bash
# -f html, the self-contained report (issue 26), in headless Chromium driven
# by tests/e2e/html_check.mjs (playwright-core and Debian's chromium, both
# installed by scripts/deps' mct_install_browser; npm's packages go into the
# build tree). Skips (77) only when they cannot be installed.
# On every test JDK, against scenario agg (tgt.Agg):
# - --aggregate --slowest 5 -n 40 -f html -o FILE writes one page that loads
#   with no console error and no request, draws one rectangle per node wide
#   enough to see, zooms on a click, highlights tgt.Agg.nap when searched,
#   shows the run's facts and the 5 slowest calls; the screenshot is kept in
#   the build tree (tests/e2e/html_report-JDK.png);
# - without --aggregate, -n 20 -f html builds the same page from the calls.
# Then, without a JVM:
# - diff -f html --fail-over-pct 50 of two synthetic summaries (one node's
#   time tripled, one removed, one added with "</script>" in its name) exits
#   4 and writes a page with those nodes coloured and the failed gate on top;
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
    stop_target "$PID"
done

note "diff -f html"
check "gen" gen 40 "$MCT_TMP/base.json"
check "gen grow" gen 40 "$MCT_TMP/new.json" grow
trace diff diff -f html --fail-over-pct 50 "$MCT_TMP/base.json" "$MCT_TMP/new.json"
expect_rc 4 "diff -f html with a failed gate"
expect_grep '^<!DOCTYPE html>$' "$OUT" "the diff page's first line"
grep -q '</script><b>' "$OUT" && soft_fail "a name in the data ends the page's script"
mv "$OUT" "$MCT_TMP/diff.html"
check "diff" diff "$MCT_TMP/diff.html" "$ART/html_diff.png"

note "20000 nodes"
check "gen 20000" gen 20000 "$MCT_TMP/big.json"
j=$(jdk_major "$(echo "$MCT_TEST_JDKS" | awk '{print $1}')")
check "20000 nodes" big "$MCT_TMP/$j-agg.html" "$MCT_TMP/big.json" "$ART/html_big.png"
trace_done
