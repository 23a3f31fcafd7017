#!/usr/bin/env bash
# --trace-context: each call a child of the W3C trace context its thread
# held at the call's start, on every test JDK. The contexts are set by the
# targets' own code (tgt.W3c; the OpenTelemetry Java agent is not used: its
# storage is mimicked by this test's own copy of the API's classes, with
# their real names and fields, tests/java/target/io/opentelemetry). Each
# request sets its context, then calls tgt.W3c.handle(req), traced with
# --args so that each call says its request (W3c's comment gives the
# contexts by request number):
# - scenario w3c, --trace-context tgt.W3c.TRACEPARENT (a ThreadLocal<String>):
#   every call whose request had a valid traceparent (version 00, flags 01
#   or 00, or a later version with a field appended) carries it as
#   trace_parent; a call without one, or with an invalid one (an all-zero
#   trace id, uppercase hex), carries none; the invalid ones are counted
#   and said at the end; the same through an InheritableThreadLocal, and
#   (JDK 21+) with each request on a virtual thread of its own;
# - scenario otel, --trace-context otel (OpenTelemetry's
#   ThreadLocalContextStorage): an SDK span's and a propagated span's
#   context become the trace_parent; the root context and the invalid span
#   give none, and none is counted unreadable;
# - -f otlp --otlp-endpoint into the real OTLP receiver (official schema):
#   a call with a parent is a trace with the parent's traceId whose root's
#   parentSpanId is the parent span; a call without one keeps a trace id
#   of its own and a root without parent;
# - -f rows: every row of a call carries its trace_id and parent_span_id;
#   -f tree names the trace and the parent span on a call's title line;
# - the wrap form (trace-context= in the agent's option string; the class
#   loads after the session starts and is found later): the calls that carry
#   a trace_parent carry their request's;
# - refused: a ThreadLocal subclass, a field that is not a ThreadLocal, a
#   SRC that is not CLASS.FIELD, --trace-context with --aggregate;
# - a class that never loads: stderr says so without -v as the session
#   starts, and at the end that none of the calls had a trace context.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/scripts/deps"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"
. "$MCT_SRCDIR/tests/e2e/helpers/otlp.sh"

RX='tgt\..*'
N=40
otlp_start

# check_json FILE SCENARIO [loose]: each call of FILE (JSON lines; other
# lines ignored) carries the trace_parent its request's context says
# (loose: a call may also carry none); prints the calls with a parent and
# the requests whose context was invalid, as "PARENTED BAD".
check_json() {
    node -e '
        const fs = require("fs");
        const [file, scenario, loose] = process.argv.slice(1);
        const hex = (n, w) => n.toString(16).padStart(w, "0");
        const tid = (r) => "4bf92f3577b34da6a3ce" + hex(r, 12), sid = (r) => "00f067aa" + hex(r, 8);
        const want = (r) => {
            if (scenario === "otel") return r % 4 === 0 || r % 4 === 2 ? `00-${tid(r)}-${sid(r)}-01` : null;
            switch (r % 8) {
            case 0: case 4: case 7: return `00-${tid(r)}-${sid(r)}-01`;
            case 3: return `00-${tid(r)}-${sid(r)}-00`;
            default: return null;
            }
        };
        let parented = 0, bad = 0, calls = 0;
        for (const l of fs.readFileSync(file, "utf8").split("\n")) {
            if (!l.startsWith("{\"type\":\"call\"")) continue;
            const c = JSON.parse(l), r = c.root.args[0].value, w = want(r);
            calls++;
            if (scenario === "w3c" && (r % 8 === 2 || r % 8 === 6)) bad++;
            if (c.trace_parent !== undefined) parented++;
            if ((c.trace_parent ?? null) === w || (loose && c.trace_parent === undefined)) continue;
            console.error(`request ${r}: trace_parent ${c.trace_parent}, want ${w}`);
            process.exit(1);
        }
        if (calls === 0) { console.error("no call"); process.exit(1); }
        console.log(parented, bad);
    ' "$1" "$2" "${3:-}"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" w3c
    j=$MAJOR

    note "JDK $j: a ThreadLocal<String> traceparent, -n $N"
    trace "$j-w3c" -n "$N" --args --trace-context tgt.W3c.TRACEPARENT "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "--trace-context CLASS.FIELD"
    check_calls "$OUT" "$N" "--trace-context CLASS.FIELD"
    if got=$(check_json "$OUT" w3c); then
        read -r parented bad <<<"$got"
        [ "$parented" -ge $((N / 2 - 1)) ] || soft_fail "only $parented of $N calls carry a trace_parent"
        [ "$bad" -gt 0 ] && expect_grep "^mcalltree: $bad calls had a trace context on their thread that could not be read" \
            "$ERR" "the invalid traceparents counted"
    else
        soft_fail "--trace-context CLASS.FIELD: a call's trace_parent is not its request's"
    fi

    note "JDK $j: an InheritableThreadLocal (the thread's other map)"
    trace "$j-inh" -n 16 --args --trace-context tgt.W3c.INHERITED "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "--trace-context with an InheritableThreadLocal"
    if got=$(check_json "$OUT" w3c); then
        read -r parented bad <<<"$got"
        [ "$parented" -gt 0 ] || soft_fail "InheritableThreadLocal: no call carries a trace_parent"
    else
        soft_fail "--trace-context with an InheritableThreadLocal: a call's trace_parent is not its request's"
    fi

    note "JDK $j: -f tree names the trace"
    trace "$j-tree" -n 8 -f tree --trace-context tgt.W3c.TRACEPARENT "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "-f tree --trace-context"
    expect_grep '^#[0-9]+ .*\(id [0-9]+\)  trace 4bf92f3577b34da6a3ce[0-9a-f]{12}, parent 00f067aa[0-9a-f]{8}$' "$OUT" \
        "-f tree: a call's title names its trace"

    note "JDK $j: -f otlp --otlp-endpoint, under the requests' traces"
    : >"$OTLP_RECORDS"
    trace "$j-otlp" -n "$N" -f otlp --otlp-endpoint "$OTLP_URL" --trace-context tgt.W3c.TRACEPARENT \
        "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "-f otlp --trace-context"
    expect_grep '^mcalltree: otlp: [0-9]+ spans sent, 0 rejected, 0 dropped' "$ERR" "-f otlp: every span sent"
    node -e '
        const fs = require("fs");
        const [file, n] = process.argv.slice(1);
        const traces = new Map();
        for (const l of fs.readFileSync(file, "utf8").split("\n").filter(Boolean)) {
            const r = JSON.parse(l);
            if (r.path !== "/v1/traces") continue;
            for (const rs of r.body.resourceSpans) for (const ss of rs.scopeSpans) for (const s of ss.spans) {
                if (!traces.has(s.traceId)) traces.set(s.traceId, []);
                traces.get(s.traceId).push(s);
            }
        }
        const fail = (m) => { console.error(m); process.exit(1); };
        if (traces.size !== Number(n)) fail(`${traces.size} traces, want ${n}`);
        let joined = 0, own = 0;
        for (const [id, spans] of traces) {
            const ids = new Set(spans.map((s) => s.spanId));
            const roots = spans.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
            if (roots.length !== 1 || roots[0].name !== "tgt.W3c.handle") fail(`trace ${id}: roots ${roots.map((s) => s.name)}`);
            const root = roots[0];
            if (id.startsWith("4bf92f3577b34da6a3ce")) {
                const r = parseInt(id.slice(20), 16);
                if (![0, 3, 4, 7].includes(r % 8)) fail(`trace ${id}: request ${r} had no valid context`);
                if (root.parentSpanId !== "00f067aa" + id.slice(24)) fail(`trace ${id}: root parent ${root.parentSpanId}`);
                joined++;
            } else {
                if (root.parentSpanId) fail(`trace ${id} of its own: root parent ${root.parentSpanId}`);
                own++;
            }
        }
        if (joined === 0 || own === 0) fail(`${joined} traces joined, ${own} of their own: want both`);
    ' "$OTLP_RECORDS" "$N" || soft_fail "-f otlp --trace-context: the spans do not join the requests' traces"

    note "JDK $j: -f rows"
    trace "$j-rows" -n 16 -f rows --trace-context tgt.W3c.TRACEPARENT "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "-f rows --trace-context"
    node -e '
        const fs = require("fs");
        const calls = new Map();
        for (const l of fs.readFileSync(process.argv[1], "utf8").split("\n").filter(Boolean)) {
            const r = JSON.parse(l), k = r.seq;
            if (!calls.has(k)) calls.set(k, new Set());
            calls.get(k).add(r.trace_id + "/" + r.parent_span_id);
        }
        let joined = 0;
        for (const [seq, set] of calls) {
            if (set.size !== 1) { console.error(`call ${seq}: rows disagree: ${[...set]}`); process.exit(1); }
            const [t, p] = [...set][0].split("/");
            if (t === "" && p === "") continue;
            if (!t.startsWith("4bf92f3577b34da6a3ce") || p !== "00f067aa" + t.slice(24)) {
                console.error(`call ${seq}: trace_id ${t}, parent_span_id ${p}`);
                process.exit(1);
            }
            joined++;
        }
        if (joined === 0) { console.error("no row carries a trace"); process.exit(1); }
    ' "$OUT" || soft_fail "-f rows --trace-context: the rows do not carry their calls' traces"

    note "JDK $j: refused sources"
    trace "$j-sub" -n 1 --trace-context tgt.W3c.SUBCLASSED "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 3 "a ThreadLocal subclass"
    expect_grep "subclass of ThreadLocal" "$ERR" "a ThreadLocal subclass"
    trace "$j-notl" -n 1 --trace-context tgt.W3c.NOT_THREAD_LOCAL "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 3 "a field that is not a ThreadLocal"
    expect_grep "no static field 'NOT_THREAD_LOCAL' declared ThreadLocal" "$ERR" "a field that is not a ThreadLocal"

    note "JDK $j: a class that never loads: said without -v, as the session starts and at its end"
    trace "$j-absent" -n 4 --trace-context tgt.NoSuch.CURRENT "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "--trace-context naming a class not loaded"
    expect_grep '^mcalltree: --trace-context tgt\.NoSuch\.CURRENT: its class is not loaded' "$ERR" \
        "--trace-context: a class not loaded said"
    expect_grep '^mcalltree: --trace-context tgt\.NoSuch\.CURRENT: none of the 4 calls printed had a trace context' \
        "$ERR" "--trace-context: no call with a trace context said"
    expect_restored "$PID" "after --trace-context"
    stop_jvm "$PID"

    if [ "$j" -ge 21 ]; then
        scenario "$jdk" w3c virtual
        note "JDK $j: each request on a virtual thread of its own"
        trace "$j-virtual" -n 16 --args --trace-context tgt.W3c.TRACEPARENT "$PID" tgt.W3c handle 2 "$RX"
        expect_rc 0 "--trace-context on virtual threads"
        if got=$(check_json "$OUT" w3c); then
            read -r parented bad <<<"$got"
            [ "$parented" -gt 0 ] || soft_fail "virtual threads: no call carries a trace_parent"
        else
            soft_fail "--trace-context on virtual threads: a call's trace_parent is not its request's"
        fi
        stop_jvm "$PID"
    fi

    scenario "$jdk" otel
    note "JDK $j: OpenTelemetry's storage (this test's copy of its classes), -n $N"
    trace "$j-otel" -n "$N" --args --trace-context otel "$PID" tgt.W3c handle 2 "$RX"
    expect_rc 0 "--trace-context otel"
    if got=$(check_json "$OUT" otel); then
        read -r parented bad <<<"$got"
        [ "$parented" -ge $((N / 2 - 1)) ] || soft_fail "otel: only $parented of $N calls carry a trace_parent"
    else
        soft_fail "--trace-context otel: a call's trace_parent is not its request's span"
    fi
    expect_no_grep "could not be read" "$ERR" "--trace-context otel: no context is unreadable"
    stop_jvm "$PID"

    note "JDK $j: the wrap form (the class loads after the session began)"
    trace "$j-wrap" --args --trace-context tgt.W3c.TRACEPARENT tgt.W3c handle 2 "$RX" -- \
        "$jdk/bin/java" -cp "$MCT_CLASSES" tgt.W3c 400
    expect_rc 0 "--trace-context in the wrap form"
    if got=$(check_json "$OUT" w3c loose); then
        read -r parented bad <<<"$got"
        [ "$parented" -gt 0 ] || soft_fail "the wrap form: no call carries a trace_parent"
    else
        soft_fail "--trace-context in the wrap form: a call's trace_parent is not its request's"
    fi
done

note "usage errors"
trace "form" --trace-context nodot 1 a.B m 1 x
expect_rc 1 "--trace-context without a field"
expect_grep "^mcalltree: --trace-context must be CLASS.FIELD" "$ERR" "--trace-context without a field"
trace "agg" --trace-context otel --aggregate 1 a.B m 1 x
expect_rc 1 "--trace-context --aggregate"
expect_grep "^mcalltree: --trace-context cannot be used with --aggregate" "$ERR" "--trace-context --aggregate"
trace_done
