#!/usr/bin/env bash
# The wrap form reads a JVM's final summary into the compact summary, not a
# document tree: a COMMAND that writes the trace file of a JVM (start, plan,
# a final summary of about 20,000 nodes made by the summary module, as the
# agent's --aggregate writes it, end) is read by `mcalltree --aggregate`
# with a gate (its judge keeps the summary) in a peak RSS under
# WANT_KIB_PER_NODE per node over the same run with a summary of 10 nodes
# (a tree of jansson objects took about 5 KiB a node). The output is the
# summary as the file had it (its span included), byte for byte, with the
# JVM's pid last; the tree and folded formats show its nodes. No JVM: the
# same on every JDK.
. "$MCT_SRCDIR/tests/setup"

GEN=$MCT_BUILDDIR/tests/bench/mctsum
NODES=20000
WANT_KIB_PER_NODE=1.5
[ -x /usr/bin/time ] || skip "needs GNU time (/usr/bin/time) for the peak RSS"

mkdir -p "$MCT_TMP/tmp"
# the span an agent's summary carries, last
"$GEN" "$NODES" 200 1 | sed 's/}$/,"start_ns":1700000000000000000,"end_ns":1700000060000000000}/' \
    >"$MCT_TMP/big.json" || fail "mctsum $NODES"
"$GEN" 10 200 1 >"$MCT_TMP/small.json" || fail "mctsum 10"
printf '%s\n' '{"type":"plan","methods":[{"class":"tgt.StartEntry","method":"run","desc":"(I)J","level":1,"status":"instrumented","root":true,"id":0}],"summary":{"instrumented":1,"pending":0,"skipped":0,"failed":0,"excluded":0,"planned":0,"capped":false,"plan_ms":0.5,"instrument_ms":1.5,"loaded_classes":431,"clock":"tsc","callee_classes":1,"matched_classes":1}}' \
    >"$MCT_TMP/plan.json"
printf '%s\n' '{"type":"end","reason":"jvm_exit","calls":200,"printed":200,"filtered":0,"seen":200,"dropped":0,"discarded":0,"restored_classes":1,"instrumented_classes":0,"unloaded_classes":0,"warmup":0,"not_recompiled":0}' \
    >"$MCT_TMP/end.json"

# The COMMAND: writes the trace file of "JVM" 999991 with the summary $1.
cat >"$MCT_TMP/jvm.sh" <<'EOF'
#!/bin/sh
dir=$(printf "%s" "$JAVA_TOOL_OPTIONS" | sed -n "s/.*out=\(.*\)\/{pid}\.ndjson.*/\1/p")
t=$(dirname "$0")
{
    printf '%s\n' '{"type":"start","pid":999991,"vm":"x","version":"17","entry":"tgt.StartEntry.run"}'
    cat "$t/plan.json" "$1" "$t/end.json"
} >"$dir/999991.ndjson"
EOF
chmod +x "$MCT_TMP/jvm.sh"

# wrapped NAME SUMMARY MCT_ARGS...: the wrap form over that file, stdout
# in $MCT_TMP/NAME.out; sets KB (its peak RSS).
wrapped() {
    local name=$1 summary=$2
    shift 2
    RC=0
    TMPDIR=$MCT_TMP/tmp /usr/bin/time -f %M -o "$MCT_TMP/$name.time" "$MCT" --aggregate "$@" \
        --max-calls tgt.StartEntry.run=5 tgt.StartEntry run 2 'tgt\..*' -- "$MCT_TMP/jvm.sh" "$summary" \
        >"$MCT_TMP/$name.out" 2>"$MCT_TMP/$name.err" || RC=$?
    MCT_LAST_ERR=$MCT_TMP/$name.err
    expect_rc 0 "$name: the wrap form over a summary of $NODES nodes"
    KB=$(tail -n 1 "$MCT_TMP/$name.time")
}

wrapped small "$MCT_TMP/small.json"
base=$KB
wrapped big "$MCT_TMP/big.json"
big=$KB
note "peak RSS: $base KiB with 10 nodes, $big KiB with $NODES"
awk -v b="$base" -v k="$big" -v n="$NODES" -v w="$WANT_KIB_PER_NODE" 'BEGIN { exit !((k - b) / n < w) }' ||
    fail "the wrap form took $(awk -v b="$base" -v k="$big" -v n="$NODES" 'BEGIN { printf "%.2f", (k - b) / n }') KiB per summary node, over $WANT_KIB_PER_NODE"

# the summary as written, the pid last
sed 's/}$/,"pid":999991}/' "$MCT_TMP/big.json" >"$MCT_TMP/want.json"
cmp -s "$MCT_TMP/want.json" "$MCT_TMP/big.out" || fail "-f json: not the summary as the file had it"

wrapped tree "$MCT_TMP/big.json" -f tree
grep -q '^summary (final): 200 entry calls' "$MCT_TMP/tree.out" || fail "-f tree: no summary line: $(head -c 300 "$MCT_TMP/tree.out")"
grep -q 'com.example.gen.pkg0.Class0.method0' "$MCT_TMP/tree.out" || fail "-f tree: no root node"
wrapped folded "$MCT_TMP/big.json" -f folded
[ "$(wc -l <"$MCT_TMP/folded.out")" -gt 1000 ] || fail "-f folded: few lines: $(head -c 300 "$MCT_TMP/folded.out")"
exit 0
