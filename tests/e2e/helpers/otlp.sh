# helpers/otlp.sh — sourced by the OTLP tests (after tests/setup and
# scripts/deps): a real OTLP/HTTP receiver on loopback
# (helpers/otlp_receiver.mjs, decoding with the official OTLP schema),
# started and stopped by the test.
# shellcheck shell=bash

OTLP_HELPER=$MCT_SRCDIR/tests/e2e/helpers/otlp_receiver.mjs
export MCT_OTLP_NPM=$MCT_BUILDDIR/tests/e2e/npm-otlp

# otlp_start: installs what the receiver needs (or skips the test), starts
# it; sets OTLP_URL (http://127.0.0.1:PORT), OTLP_PID, OTLP_RECORDS.
otlp_start() {
    mct_install_otlp "$MCT_OTLP_NPM" || skip "node, npm or @opentelemetry/otlp-transformer could not be installed (see above)"
    OTLP_RECORDS=$MCT_TMP/otlp-records.ndjson
    rm -f "$MCT_TMP/otlp.port"
    : >"$OTLP_RECORDS"
    node "$OTLP_HELPER" serve "$MCT_TMP/otlp.port" "$OTLP_RECORDS" 2>"$MCT_TMP/otlp-receiver.log" &
    OTLP_PID=$!
    MCT_PIDS="$MCT_PIDS $OTLP_PID"
    wait_until 30 test -s "$MCT_TMP/otlp.port" || fail "the OTLP receiver did not start: $(cat "$MCT_TMP/otlp-receiver.log")"
    OTLP_URL=http://127.0.0.1:$(cat "$MCT_TMP/otlp.port")
}

# otlp_stop: ends the receiver; its port is then closed (a receiver down).
otlp_stop() {
    kill "$OTLP_PID" 2>/dev/null
    wait "$OTLP_PID" 2>/dev/null
}

# otlp_http METHOD PATH [BODY]: the receiver's answer's body; its status
# into $MCT_TMP/otlp.status.
otlp_http() {
    node -e '
        const [m, url, body, st] = process.argv.slice(1);
        fetch(url, { method: m, body: m === "POST" ? body : undefined, headers: { "Content-Type": "application/json" } })
            .then(async (r) => { require("fs").writeFileSync(st, String(r.status)); process.stdout.write(await r.text()); })
            .catch((e) => { console.error(String(e)); process.exit(1); });
    ' "$1" "$OTLP_URL$2" "${3:-}" "$MCT_TMP/otlp.status"
}

# otlp_script JSON: the receiver's next answers, e.g.
# '[{"status":503,"retryAfter":1}]' (then 200).
otlp_script() {
    otlp_http POST /control "{\"script\":$1}" >/dev/null || fail "the OTLP receiver's /control did not answer"
}

# otlp_stat KEY: one of the receiver's counters (requests, accepted,
# refused, bad, spans, points).
otlp_stat() {
    otlp_http GET /stats | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"
}
