#!/usr/bin/env bash
# `mcalltree diff -f html` and `-f json` write the diff without a document
# tree: two summaries of about 20,000 nodes each, made by the summary
# module (as the agent's --aggregate writes them), are compared in a peak
# RSS under WANT_KIB_PER_NODE per node read over the same diff of two
# summaries of 10 nodes (the rows and the summaries as jansson trees took
# about 3 KiB a node with -f json, 6 KiB with -f html). The page holds
# each summary as its file had it (its span included), byte for byte.
# No JVM: the same on every JDK.
. "$MCT_SRCDIR/tests/setup"

GEN=$MCT_BUILDDIR/tests/bench/mctsum
NODES=20000
WANT_KIB_PER_NODE=2
[ -x /usr/bin/time ] || skip "needs GNU time (/usr/bin/time) for the peak RSS"

# the span an agent's summary carries, last
"$GEN" "$NODES" 200 1 | sed 's/}$/,"start_ns":1700000000000000000,"end_ns":1700000060000000000}/' \
    >"$MCT_TMP/a.json" || fail "mctsum $NODES 1"
"$GEN" "$NODES" 200 2 >"$MCT_TMP/b.json" || fail "mctsum $NODES 2"
"$GEN" 10 200 1 >"$MCT_TMP/a10.json" || fail "mctsum 10 1"
"$GEN" 10 200 2 >"$MCT_TMP/b10.json" || fail "mctsum 10 2"

# diffed NAME FORMAT BASE NEW: diff -f FORMAT BASE NEW, its output in
# $MCT_TMP/NAME.out; sets KB (its peak RSS).
diffed() {
    local name=$1 format=$2
    RC=0
    /usr/bin/time -f %M -o "$MCT_TMP/$name.time" "$MCT" diff -f "$format" "$3" "$4" \
        >"$MCT_TMP/$name.out" 2>"$MCT_TMP/$name.err" || RC=$?
    MCT_LAST_ERR=$MCT_TMP/$name.err
    expect_rc 0 "$name: diff -f $format"
    KB=$(tail -n 1 "$MCT_TMP/$name.time")
}

for format in json html; do
    diffed "small-$format" "$format" "$MCT_TMP/a10.json" "$MCT_TMP/b10.json"
    base=$KB
    diffed "big-$format" "$format" "$MCT_TMP/a.json" "$MCT_TMP/b.json"
    note "diff -f $format: peak RSS $base KiB with 10 + 10 nodes, $KB KiB with $NODES + $NODES"
    awk -v b="$base" -v k="$KB" -v n="$((2 * NODES))" -v w="$WANT_KIB_PER_NODE" 'BEGIN { exit !((k - b) / n < w) }' ||
        fail "diff -f $format took $(awk -v b="$base" -v k="$KB" -v n="$((2 * NODES))" \
            'BEGIN { printf "%.2f", (k - b) / n }') KiB per summary node, over $WANT_KIB_PER_NODE"
done

grep -q '"type":"diff","base":{"file":' "$MCT_TMP/big-json.out" || fail "-f json: no diff object"
[ "$(grep -o '"status":"' "$MCT_TMP/big-json.out" | wc -l)" -gt "$((NODES / 2))" ] || fail "-f json: few rows"

# the page's summaries: the files' text, as the data blob holds it
awk -v out="$MCT_TMP/page" '
    { b = index($0, ",\"base\":{\"type\":\"summary\""); n = index($0, ",\"new\":{\"type\":\"summary\"")
      t = index($0, ",\"tool\":\"mcalltree ") }
    b > 0 && n > b && t > n { print substr($0, b + 8, n - b - 8) >(out ".base.json")
                              print substr($0, n + 7, t - n - 7) >(out ".new.json") }' "$MCT_TMP/big-html.out"
cmp -s "$MCT_TMP/a.json" "$MCT_TMP/page.base.json" || fail "-f html: the base summary is not the file's (span included)"
cmp -s "$MCT_TMP/b.json" "$MCT_TMP/page.new.json" || fail "-f html: the new summary is not the file's"
exit 0
