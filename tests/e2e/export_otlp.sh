#!/usr/bin/env bash
# OTLP/HTTP JSON (protocol/otlp.c) through the export sink and queue
# (client/expsink.c, client/export.c) into a real OTLP receiver on loopback that decodes every
# payload with the official OTLP schema (helpers/otlp_receiver.mjs; skips
# (77) only when node or npm's packages cannot be installed); no JVM
# (tests/e2e/mct-export makes the calls):
# - 200 calls of 7 nodes: one trace per call, one span per node, names,
#   ids, parent links, times and attributes as the calls say;
# - the same under a W3C parent: every call in its trace, the roots
#   children of its span;
# - each node's histogram as an OTLP metric: counts as the calls say;
# - the receiver refuses a field the schema lacks (it does decode);
# - 503 with Retry-After, then 200: retried, all sent;
# - slow past the timeout: tried again, then dropped and counted;
# - a queue at its bound before a slow receiver: drops counted, the rest sent;
# - the receiver down: the exporter gives up within its bound, every span
#   counted dropped, and the command ends.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/scripts/deps"
. "$MCT_SRCDIR/tests/e2e/helpers/otlp.sh"

EXPORT=$MCT_BUILDDIR/tests/e2e/mct-export
TP=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
otlp_start

# expect_line FILE REGEX: the exporter's line in FILE matches REGEX.
expect_line() {
    grep -Eq "$2" "$1" || fail "expected /$2/ in: $(cat "$1")"
}

note "traces: 200 calls checked span by span"
"$EXPORT" traces -n 200 -k 7 -b 20000 -u "$OTLP_URL" -c "$MCT_TMP/calls.ndjson" 2>"$MCT_TMP/t.err" ||
    fail "mct-export traces: $(cat "$MCT_TMP/t.err")"
expect_line "$MCT_TMP/t.err" '^otlp: 1400 spans sent, 0 rejected, 0 dropped, 0 retries$'
node "$OTLP_HELPER" check-traces "$OTLP_RECORDS" "$MCT_TMP/calls.ndjson" >&2 || fail "the spans received do not match the calls"
[ "$(otlp_stat spans)" = 1400 ] || fail "the receiver decoded $(otlp_stat spans) spans, not 1400"

note "traces under a W3C parent"
: >"$OTLP_RECORDS"
"$EXPORT" traces -n 30 -k 5 -p "$TP" -u "$OTLP_URL" -c "$MCT_TMP/calls.ndjson" 2>"$MCT_TMP/t.err" ||
    fail "mct-export traces -p: $(cat "$MCT_TMP/t.err")"
node "$OTLP_HELPER" check-traces "$OTLP_RECORDS" "$MCT_TMP/calls.ndjson" "$TP" >&2 || fail "the spans do not join the parent's trace"

note "metrics: one histogram point per node"
: >"$OTLP_RECORDS"
"$EXPORT" metrics -n 300 -k 9 -u "$OTLP_URL/v1/metrics" -e "$MCT_TMP/points.tsv" 2>"$MCT_TMP/m.err" ||
    fail "mct-export metrics: $(cat "$MCT_TMP/m.err")"
expect_line "$MCT_TMP/m.err" '^metrics: 9 points sent, 0 rejected, 0 dropped'
node "$OTLP_HELPER" check-metrics "$OTLP_RECORDS" "$MCT_TMP/points.tsv" >&2 || fail "the histograms received do not match the calls"

note "the receiver decodes: a field the schema lacks is refused"
otlp_http POST /v1/traces '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"00f067aa0ba902b7","parentSpanID":"00f067aa0ba902b7"}]}]}]}' >/dev/null
[ "$(cat "$MCT_TMP/otlp.status")" = 400 ] || fail "a misspelt field was accepted"

note "503 with Retry-After, then accepted"
otlp_script '[{"status":503,"retryAfter":1}]'
before=$(otlp_stat requests)
"$EXPORT" traces -n 10 -k 3 -u "$OTLP_URL" 2>"$MCT_TMP/r.err" || fail "mct-export: $(cat "$MCT_TMP/r.err")"
expect_line "$MCT_TMP/r.err" '^otlp: 30 spans sent, 0 rejected, 0 dropped, 1 retries'
[ "$(otlp_stat requests)" = $((before + 2)) ] || fail "not one request and one retry"

note "slow past the timeout: dropped and counted"
otlp_script '[{"status":200,"delayMs":1500},{"status":200,"delayMs":1500}]'
timeout 60 "$EXPORT" traces -n 10 -k 3 -T 300 -t 2 -u "$OTLP_URL" 2>"$MCT_TMP/s.err" ||
    fail "mct-export against a slow receiver: $(cat "$MCT_TMP/s.err")"
expect_line "$MCT_TMP/s.err" '^otlp: 0 spans sent, 0 rejected, 30 dropped, 1 retries'

note "the queue at its bound: drops counted, the rest sent"
otlp_script '[{"status":200,"delayMs":1000}]'
timeout 60 "$EXPORT" traces -n 400 -k 7 -b 4096 -q 65536 -u "$OTLP_URL" 2>"$MCT_TMP/q.err" ||
    fail "mct-export with a small queue: $(cat "$MCT_TMP/q.err")"
sent=$(sed -n 's/^otlp: \([0-9]*\) spans sent.* \([0-9]*\) dropped.*/\1/p' "$MCT_TMP/q.err")
dropped=$(sed -n 's/^otlp: \([0-9]*\) spans sent.* \([0-9]*\) dropped.*/\2/p' "$MCT_TMP/q.err")
[ -n "$sent" ] && [ "$dropped" -gt 0 ] && [ $((sent + dropped)) = 2800 ] ||
    fail "sent and dropped do not add up to the 2800 spans: $(cat "$MCT_TMP/q.err")"
peak=$(sed -n 's/.* peak_bytes=\([0-9]*\).*/\1/p' "$MCT_TMP/q.err")
[ -n "$peak" ] && [ "$peak" -gt 0 ] && [ "$peak" -le 65536 ] || fail "the queue held $peak bytes, its bound is 65536"

note "the receiver down: spans dropped and counted, the command ends"
otlp_stop
timeout 60 "$EXPORT" traces -n 300 -k 7 -b 8192 -s 500 -u "$OTLP_URL" 2>"$MCT_TMP/d.err"
rc=$?
[ "$rc" = 0 ] || fail "mct-export against a receiver down: status $rc: $(cat "$MCT_TMP/d.err")"
expect_line "$MCT_TMP/d.err" '^otlp: 0 spans sent, 0 rejected, 2100 dropped'
exit 0
