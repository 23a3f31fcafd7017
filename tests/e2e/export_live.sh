#!/usr/bin/env bash
# -f otlp and -f rows from a traced JVM, on every test JDK, into the real
# things (helpers/: an OTLP/HTTP receiver that decodes with the official
# schema, Debian's clickhouse-server on loopback; skips (77) only when they
# cannot be installed):
# - -f otlp --otlp-endpoint: one trace per call; in each, one root span
#   (the entry method, no parent), every other span's parent in the same
#   trace and its time within its parent's; the resource names the JVM
#   (service.name its main class, process.pid, process.runtime.*); the
#   end line says every span sent;
# - -f rows --clickhouse: one root row per call; every row's parent path
#   among the rows of its call; the rows of README's table sum the calls
#   the same session's rows file holds (-f rows -o FILE of a second
#   session is checked the same way).
# - --aggregate -f otlp: a summary's nodes as histogram points; the points
#   of a session's summary sent through the export sink (mct-export
#   summary, the path -f otlp takes) match it bucket by bucket (count, sum,
#   min, max, times, every bucket of its hist); the live client over two
#   JVMs (scenario agg: counts known exactly) sends the merged summary's
#   6 points, each node's count the sum of both JVMs' entry calls;
# - the fleet p99: the calls of two JVMs (one command, warm-up calls left
#   out, at least 100 each) inserted as rows, README's p99 query per node
#   agrees with the p99
#   of `mcalltree merge` of the same calls within the histogram's error
#   (1/128), and its entry calls, calls and JVMs are merge's.
# The encoders against every field are tested with synthetic calls
# (export_otlp.sh, export_clickhouse.sh).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/scripts/deps"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"
. "$MCT_SRCDIR/tests/e2e/helpers/otlp.sh"
. "$MCT_SRCDIR/tests/e2e/helpers/clickhouse.sh"

N=20
RX='tgt\..*'
EXPORT=$MCT_BUILDDIR/tests/e2e/mct-export
otlp_start
ch_start
ch_query "$(ch_readme_sql clickhouse-table)" || fail "README's table was refused"

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    j=$MAJOR

    note "JDK $j: -f otlp --otlp-endpoint, $N calls"
    : >"$OTLP_RECORDS"
    trace "$j-otlp" -n "$N" -f otlp --otlp-endpoint "$OTLP_URL" "$PID" tgt.Shape run 3 "$RX"
    expect_rc 0 "-f otlp"
    [ -s "$OUT" ] && fail "-f otlp with an endpoint wrote to stdout"
    expect_grep '^mcalltree: otlp: [0-9]+ spans sent, 0 rejected, 0 dropped' "$ERR" "-f otlp: every span sent"
    node -e '
        const fs = require("fs");
        const [file, n, pid] = process.argv.slice(1);
        const traces = new Map();
        let res = null;
        for (const l of fs.readFileSync(file, "utf8").split("\n").filter(Boolean)) {
            const r = JSON.parse(l);
            if (r.path !== "/v1/traces") continue;
            for (const rs of r.body.resourceSpans) {
                res = Object.fromEntries(rs.resource.attributes.map((a) => [a.key, Object.values(a.value)[0]]));
                for (const ss of rs.scopeSpans) for (const s of ss.spans) {
                    if (!traces.has(s.traceId)) traces.set(s.traceId, []);
                    traces.get(s.traceId).push(s);
                }
            }
        }
        const fail = (m) => { console.error(m); process.exit(1); };
        if (traces.size !== Number(n)) fail(`${traces.size} traces, want ${n}`);
        if (res["service.name"] !== "tgt.Main" || String(res["process.pid"]) !== pid || !res["process.runtime.name"])
            fail("resource: " + JSON.stringify(res));
        for (const [id, spans] of traces) {
            const byId = new Map(spans.map((s) => [s.spanId, s]));
            const roots = spans.filter((s) => !s.parentSpanId);
            if (roots.length !== 1 || roots[0].name !== "tgt.Shape.run") fail(`trace ${id}: roots ${roots.map((s) => s.name)}`);
            if (spans.length < 2) fail(`trace ${id}: ${spans.length} span(s)`);
            for (const s of spans) {
                if (!s.parentSpanId) continue;
                const p = byId.get(s.parentSpanId);
                if (!p) fail(`trace ${id}: ${s.name} has no parent in its trace`);
                if (BigInt(s.startTimeUnixNano) < BigInt(p.startTimeUnixNano) ||
                    BigInt(s.endTimeUnixNano) > BigInt(p.endTimeUnixNano))
                    fail(`trace ${id}: ${s.name} outside its parent ${p.name}`);
            }
        }
    ' "$OTLP_RECORDS" "$N" "$PID" || fail "JDK $j: the spans received do not form the traced calls"

    note "JDK $j: -f rows --clickhouse, $N calls; and -f rows -o FILE"
    ch_query 'TRUNCATE TABLE mcalltree.nodes' || fail "cannot empty the table"
    trace "$j-rows" -n "$N" -f rows --clickhouse "$CH_URL" "$PID" tgt.Shape run 3 "$RX"
    expect_rc 0 "-f rows --clickhouse"
    expect_grep '^mcalltree: clickhouse: [0-9]+ rows sent, 0 rejected, 0 dropped' "$ERR" "-f rows: every row sent"
    [ "$(ch_query 'SELECT count(DISTINCT seq), countIf(depth = 0) FROM mcalltree.nodes')" = "$N	$N" ] ||
        fail "JDK $j: not one root row for each of the $N calls: $(ch_query 'SELECT seq, depth, path FROM mcalltree.nodes')"
    [ "$(ch_query 'SELECT count() FROM mcalltree.nodes AS c WHERE parent_hash != 0 AND (seq, parent_hash)
         NOT IN (SELECT seq, path_hash FROM mcalltree.nodes)')" = 0 ] ||
        fail "JDK $j: rows whose parent path is not among their call's rows"
    trace "$j-rows-file" -n "$N" -f rows -o "$MCT_TMP/$j-rows.ndjson" "$PID" tgt.Shape run 3 "$RX"
    expect_rc 0 "-f rows -o FILE"
    [ "$(grep -c '"depth":0,' "$MCT_TMP/$j-rows.ndjson")" = "$N" ] || fail "JDK $j: the rows file has not $N root rows"
    stop_target "$PID"

    start_target "$jdk" "$MCT_TMP/jvm-$j-aggA.log" tgt.Main agg
    PA=$TARGET_PID
    start_target "$jdk" "$MCT_TMP/jvm-$j-aggB.log" tgt.Main agg
    PB=$TARGET_PID

    note "JDK $j: a summary's histograms as OTLP metrics, bucket by bucket"
    trace "$j-sum" --aggregate -n 42 -t 120 "$PA" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate -n 42"
    : >"$OTLP_RECORDS"
    "$EXPORT" summary -u "$OTLP_URL" "$OUT" 2>"$MCT_TMP/$j-sum.sent" || fail "mct-export summary: $(cat "$MCT_TMP/$j-sum.sent")"
    grep -q '^otlp metrics: 6 points sent, 0 rejected, 0 dropped' "$MCT_TMP/$j-sum.sent" ||
        fail "JDK $j: the summary's points not all sent: $(cat "$MCT_TMP/$j-sum.sent")"
    node "$OTLP_HELPER" check-summary "$OTLP_RECORDS" "$OUT" >&2 || fail "JDK $j: the points do not match the summary"

    note "JDK $j: --aggregate -f otlp --otlp-endpoint over two JVMs: the merged summary's points"
    : >"$OTLP_RECORDS"
    trace "$j-metrics" --aggregate -n 42 -t 120 -f otlp --otlp-endpoint "$OTLP_URL" "$PA,$PB" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate -f otlp"
    [ -s "$OUT" ] && fail "--aggregate -f otlp with an endpoint wrote to stdout"
    expect_grep '^mcalltree: otlp metrics: 6 points sent, 0 rejected, 0 dropped' "$ERR" "--aggregate -f otlp: every point sent"
    # entry calls per node over 42 consecutive calls of each JVM (Agg.java)
    R='tgt.Agg.run()J'
    printf '%s\t84\n' "$R" "$R / tgt.Agg.part(I)J" "$R / tgt.Agg.extra(I)J" "$R / tgt.Agg.check(I)J" \
        "$R / tgt.Agg.nap()V" >"$MCT_TMP/$j-counts.tsv"
    printf '%s\t42\n' "$R / tgt.Agg.branch(I)J" >>"$MCT_TMP/$j-counts.tsv"
    node "$OTLP_HELPER" check-summary "$OTLP_RECORDS" - "$MCT_TMP/$j-counts.tsv" >&2 ||
        fail "JDK $j: the merged points' counts are not the two JVMs' calls"

    note "JDK $j: README's fleet p99 in ClickHouse agrees with mcalltree merge"
    # for a time, not a count: on a busy machine a JVM's first hundreds of
    # calls may all be warm-up ones, which README's query leaves out
    trace "$j-fleet" -t 8 "$PA,$PB" tgt.Agg run 2 "$RX"
    expect_rc 0 "two JVMs for 8 s"
    FLEET=$MCT_TMP/$j-fleet.json
    grep -v '"warmup":true' "$OUT" >"$FLEET"
    for p in "$PA" "$PB"; do
        [ "$(grep -c "\"pid\":$p," "$FLEET")" -ge 100 ] || fail "JDK $j: JVM $p ran fewer than 100 calls past warm-up"
    done
    # a p99 over a multiple of 100 samples is one rank apart in ClickHouse's
    # quantileExact (position 0.99 n) and the nearest rank: no node gets one
    while [ $(($(wc -l <"$FLEET") % 100)) = 0 ] || [ $(($(grep -c '"method":"branch"' "$FLEET") % 100)) = 0 ]; do
        sed -i '$d' "$FLEET"
    done
    ch_query 'TRUNCATE TABLE mcalltree.nodes' || fail "cannot empty the table"
    "$EXPORT" calls -u "$CH_URL" "$FLEET" 2>"$MCT_TMP/$j-fleet.sent" || fail "mct-export calls: $(cat "$MCT_TMP/$j-fleet.sent")"
    [ "$(grep -c 'clickhouse: [0-9]* rows sent, 0 rejected, 0 dropped' "$MCT_TMP/$j-fleet.sent")" = 2 ] ||
        fail "JDK $j: the rows of the two JVMs not all inserted: $(cat "$MCT_TMP/$j-fleet.sent")"
    "$MCT" merge "$FLEET" >"$MCT_TMP/$j-merged.json" || fail "JDK $j: mcalltree merge failed"
    ch_query "$(ch_readme_sql clickhouse-p99)" >"$MCT_TMP/$j-p99.tsv" || fail "README's p99 query failed"
    node -e '
        const fs = require("fs");
        const [mergedFile, tsv] = process.argv.slice(1);
        const s = JSON.parse(fs.readFileSync(mergedFile, "utf8"));
        const nodes = new Map();
        const walk = (n, above) => {
            const p = (above ? above + " / " : "") + n.class + "." + n.method + n.desc;
            nodes.set(p, n);
            for (const k of n.children || []) walk(k, p);
        };
        walk(s.root, "");
        const rows = fs.readFileSync(tsv, "utf8").split("\n").filter(Boolean).map((l) => l.split("\t"));
        let bad = 0;
        const fail = (m) => { console.error(m); bad++; };
        if (rows.length !== nodes.size) fail(`${rows.length} nodes in ClickHouse, ${nodes.size} in the merge`);
        for (const [path, entries, calls, p99, jvms] of rows) {
            const n = nodes.get(path);
            if (!n) { fail(`${path}: not in the merge`); continue; }
            if (Number(entries) !== n.entries || Number(calls) !== n.calls || jvms !== "2")
                fail(`${path}: entry calls ${entries}, calls ${calls}, JVMs ${jvms}; merge: ${n.entries}, ${n.calls}`);
            const exact = BigInt(p99), got = BigInt(n.p99_ns), d = got > exact ? got - exact : exact - got;
            if (d * 128n > exact) fail(`${path}: merge p99 ${got} ns, ClickHouse ${exact} ns: more than 1/128 apart`);
        }
        process.exit(bad ? 1 : 0);
    ' "$MCT_TMP/$j-merged.json" "$MCT_TMP/$j-p99.tsv" || fail "JDK $j: the fleet p99 of ClickHouse and of mcalltree merge differ"
    stop_target "$PA"
    stop_target "$PB"
done
