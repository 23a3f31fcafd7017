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
done
