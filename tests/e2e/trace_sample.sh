#!/usr/bin/env bash
# --sample N (scenario counted: tgt.Counted.run called exactly as often as
# the test says, on one thread), on every test JDK: with --sample 10, 200
# entry calls give 20 trees (the thread's countdown starts at a phase of
# its own, from 1 to 10: 200 calls trace 20 whatever it is), each whole
# (run -> step x2), and the end line says 200 entry calls seen; with
# --aggregate, the final summary holds 20 calls and says 200 seen. Without
# --sample every call is traced. tgt.Counted.nest(1) calls itself once:
# a call not sampled is one call, its nested entry call part of it, so
# --sample 10 gives 20 trees of the whole call (nest -> nest -> step) and
# 200 seen, not 40 trees of the inner call alone and 400 seen. A session
# of 2 calls with --aggregate: both warm-up (the first calls after
# instrumenting), the summary holds none, and stderr says so and what to do.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
M=200

# sampled NAME TREES ARGS...: runs mcalltree -v ARGS in the background,
# makes the target call Counted.run M times once the session traces, waits
# for TREES lines, stops the client (SIGINT); sets OUT and ERR.
sampled() {
    local name=$1 trees=$2
    shift 2
    background "$name" -v "$@"
    MCT_LAST_ERR=$BG_ERR
    wait_until 60 grep -q '^mcalltree: tracing' "$BG_ERR" || {
        cat "$BG_ERR" >&2
        fail "$name: the session did not start within 60 s"
    }
    rm -f "$DIR/done"
    echo "$M" >"$DIR/go.tmp" && mv "$DIR/go.tmp" "$DIR/go"
    wait_until 30 test -e "$DIR/done" || fail "$name: the target did not make its $M calls within 30 s"
    [ "$trees" = 0 ] || wait_lines "$BG_OUT" "$trees" 30 || true
    sleep 0.5 # a tree more than wanted would be written by now
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 30 || fail "$name: the client did not stop within 30 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "$name: exit status $WAIT_RC"
    }
    OUT=$BG_OUT
    ERR=$BG_ERR
}

for jdk in $MCT_TEST_JDKS; do
    DIR=$MCT_TMP/counted-$(jdk_major "$jdk")
    mkdir -p "$DIR"
    scenario "$jdk" counted "$DIR"
    j=$MAJOR

    note "JDK $j: --sample 10, $M calls"
    sampled "$j-sample" $((M / 10)) --sample 10 "$PID" tgt.Counted run 2 "$RX"
    check_calls "$OUT" $((M / 10)) "--sample 10" -D 2
    expect_outline "$OUT" "--sample 10" <<'OUTLINE'
tgt.Counted.run calls=1 throws=0
  tgt.Counted.step calls=2 throws=0
OUTLINE
    expect_grep "session ended \(stop\): $((M / 10)) calls completed, .*; $M entry calls seen\$" "$ERR" \
        "--sample 10: the end line says $M seen"
    expect_restored "$PID" "after --sample 10"

    note "JDK $j: --sample 10 --aggregate, $M calls"
    sampled "$j-sample-agg" 1 --sample 10 --aggregate "$PID" tgt.Counted run 2 "$RX"
    expect_grep "\"type\":\"summary\",\"final\":true,.*\"calls\":$((M / 10))," "$OUT" \
        "--sample 10 --aggregate: the summary holds $((M / 10)) calls"
    expect_grep "\"type\":\"summary\",\"final\":true,.*\"seen\":$M[,}]" "$OUT" \
        "--sample 10 --aggregate: the summary says $M seen"
    expect_grep "; $M entry calls seen\$" "$ERR" "--sample 10 --aggregate: the end line says $M seen"
    expect_restored "$PID" "after --sample 10 --aggregate"

    note "JDK $j: --sample 10, $M calls of a nesting entry method"
    sampled "$j-sample-nest" $((M / 10)) --sample 10 "$PID" tgt.Counted nest 3 "$RX"
    check_calls "$OUT" $((M / 10)) "--sample 10, nest" -D 3
    expect_outline "$OUT" "--sample 10, nest" <<'OUTLINE'
tgt.Counted.nest calls=1 throws=0
  tgt.Counted.nest calls=1 throws=0
    tgt.Counted.step calls=1 throws=0
OUTLINE
    expect_grep "session ended \(stop\): $((M / 10)) calls completed, .*; $M entry calls seen\$" "$ERR" \
        "--sample 10, nest: the end line says $M seen"
    expect_restored "$PID" "after --sample 10, nest"

    note "JDK $j: no --sample, $M calls"
    sampled "$j-every" "$M" "$PID" tgt.Counted run 2 "$RX"
    check_calls "$OUT" "$M" "no --sample" -D 2
    expect_grep "; $M entry calls seen\$" "$ERR" "no --sample: the end line says $M seen"

    note "JDK $j: --aggregate over 2 calls, both warm-up (the first after instrumenting)"
    M=2 sampled "$j-allwarm" 1 --aggregate "$PID" tgt.Counted run 2 "$RX"
    expect_grep '"type":"summary","final":true,"calls":0,' "$OUT" "2 warm-up calls: the summary holds none"
    expect_grep '^mcalltree: every call was warm-up: .* trace for longer, or count them with --include-warmup' \
        "$ERR" "2 warm-up calls: stderr says every call was warm-up and what to do"
    stop_jvm "$PID"
done
trace_done
