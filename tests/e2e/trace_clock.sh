#!/usr/bin/env bash
# The probes' clock and a protocol error during a session, on every test
# JDK: an agent loaded at startup with clock=monotonic traces with
# CLOCK_MONOTONIC (the fallback for CPUs without an invariant TSC), its
# probes then the Java writer, and its trees are right; garbage sent on a running session's connection gets a
# protocol error, ends the session (its `end` says protocol_error) and
# restores every class; a stop whose reason the agent cuts mid-character
# still has it as the `end`'s detail.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
for jdk in $MCT_TEST_JDKS; do
    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=clock=monotonic")
    scenario "$jdk" sleepy
    unset MCT_JVM_OPTS
    j=$MAJOR

    note "JDK $j: clock=monotonic"
    trace "$j-mono" -v -n 3 "$PID" tgt.Sleepy run 3 "$RX"
    expect_rc 0 "clock=monotonic"
    expect_grep 'clock: monotonic; probes: java$' "$ERR" "clock=monotonic: the plan's clock, the Java writer"
    check_calls "$OUT" 3 "clock=monotonic" -D 3
    expect_outline "$OUT" "clock=monotonic" <<'OUTLINE'
tgt.Sleepy.run calls=1 throws=0
  tgt.Sleepy.nap calls=1 throws=0
  tgt.Sleepy.quick calls=1 throws=0
OUTLINE
    expect_all_ge "$(field "$OUT" run/nap min_ns)" 50000000 "clock=monotonic: nap lasts its 50 ms"
    expect_restored "$PID" "after clock=monotonic"

    note "JDK $j: garbage on a running session"
    "$PEER" session-garbage "/tmp/.mcalltree-$PID/agent.sock" tgt.Sleepy run >"$MCT_TMP/$j-garbage" ||
        fail "session-garbage: no plan"
    expect_grep '"type":"plan"' "$MCT_TMP/$j-garbage" "session-garbage: the plan"
    expect_grep '"type":"error","code":"protocol"' "$MCT_TMP/$j-garbage" "session-garbage: the error"
    tail -n 1 "$MCT_TMP/$j-garbage" >"$MCT_TMP/$j-garbage-end"
    expect_grep '"type":"end","reason":"protocol_error"' "$MCT_TMP/$j-garbage-end" "session-garbage: the end"
    expect_grep '"instrumented_classes":0' "$MCT_TMP/$j-garbage-end" "session-garbage: restored at the end"
    start=$(now_ms)
    for _ in $(seq 1 100); do
        run_mct "$MCT_TMP/info" "$MCT_TMP/info.err" --info "$PID"
        [ "$(json_get "$MCT_TMP/info" instrumented_classes)" = 0 ] &&
            [ "$(json_get "$MCT_TMP/info" session)" = null ] && break
        sleep 0.02
    done
    note "JDK $j: restored $(($(now_ms) - start)) ms after the garbage"
    expect_restored "$PID" "after the garbage"

    note "JDK $j: a stop's reason cut mid-character is still the end's detail"
    # 253 bytes and U+1D453 (4 bytes): the agent keeps 255 bytes of it.
    x253=$(printf 'x%.0s' $(seq 1 253))
    "$PEER" session-stop "/tmp/.mcalltree-$PID/agent.sock" tgt.Sleepy run "$x253"$'\xf0\x9d\x91\x93' \
        >"$MCT_TMP/$j-stop" || fail "session-stop: no plan"
    tail -n 1 "$MCT_TMP/$j-stop" >"$MCT_TMP/$j-stop-end"
    expect_grep '"type":"end","reason":"stop"' "$MCT_TMP/$j-stop-end" "session-stop: the end"
    detail=$("$PEER" get "$MCT_TMP/$j-stop-end" detail) || fail "session-stop: the end has no detail"
    # The two bytes of the cut character are not UTF-8: each is U+FFFD.
    [ "$detail" = "$x253"$'\xef\xbf\xbd\xef\xbf\xbd' ] || fail "session-stop: the detail is '$detail'"
    expect_restored "$PID" "after the stop"
    stop_jvm "$PID"
done
trace_done
