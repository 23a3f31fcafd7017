#!/usr/bin/env bash
# The end of sessions on a hot method (tgt.Hot.run called back to back on 8
# threads), on every test JDK:
# - CYCLES sessions, mixing -t 1, SIGINT and kill -9 of the client: -t 1
#   and SIGINT end with the agent's `end` (-v: "session ended (stop)") and
#   exit status 0, and every next client gets its session, never "busy"
#   (a killed client's session ends at once); afterwards --info shows no
#   session and no class instrumented;
# - a client stopped by SIGSTOP while trees stream to it: the agent ends
#   its session once the client has read nothing for 3 s (PROTOCOL.md), the
#   classes are restored; continued, the client exits 5 saying why.
# The time each end took is printed; the bounds are generous.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
CYCLES=12

# ended_cleanly WHAT: the background client exited 0 after the agent's `end`.
ended_cleanly() {
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "$1: exit status $WAIT_RC, want 0"
    }
    expect_grep 'session ended \(stop\)' "$BG_ERR" "$1: the agent's end"
}

# no_session PID: --info answers with no session and no class instrumented.
no_session() {
    run_mct "$MCT_TMP/poll.out" "$MCT_TMP/poll.err" --info "$1" &&
        [ "$(json_get "$MCT_TMP/poll.out" session)" = null ] &&
        [ "$(json_get "$MCT_TMP/poll.out" instrumented_classes)" = 0 ]
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" hot 8 20
    j=$MAJOR
    ends=
    for i in $(seq 1 "$CYCLES"); do
        case $((i % 3)) in
        1)
            t0=$(now_ms)
            background "$j-t-$i" -v -t 1 "$PID" tgt.Hot run 3 "$RX"
            wait_exit "$BG_PID" 30 || fail "cycle $i, -t 1: the client did not exit within 30 s"
            ended_cleanly "cycle $i, -t 1"
            ends="$ends t:$(($(now_ms) - t0))"
            ;;
        2)
            background "$j-int-$i" -v "$PID" tgt.Hot run 3 "$RX"
            wait_lines "$BG_OUT" 3 20 || {
                cat "$BG_ERR" >&2
                fail "cycle $i, SIGINT: no call printed within 20 s"
            }
            t0=$(now_ms)
            kill -INT "$BG_PID"
            wait_exit "$BG_PID" 20 || fail "cycle $i, SIGINT: the client did not exit within 20 s"
            ended_cleanly "cycle $i, SIGINT"
            ends="$ends int:$(($(now_ms) - t0))"
            ;;
        0)
            background "$j-kill-$i" "$PID" tgt.Hot run 3 "$RX"
            wait_lines "$BG_OUT" 3 20 || {
                cat "$BG_ERR" >&2
                fail "cycle $i, kill -9: no call printed within 20 s"
            }
            kill -9 "$BG_PID"
            wait "$BG_PID" 2>/dev/null
            # its last line may be cut by the kill
            sed -i '$d' "$BG_OUT"
            ;;
        esac
        # A call that starts while its thread's ring is nearly full may be
        # truncated: the 8 threads outrun the agent.
        check_calls "$BG_OUT" +1 "cycle $i" -t -D 3
        expect_no_grep 'reports busy' "$BG_ERR" "cycle $i"
    done
    note "JDK $j: ms from the start of -t 1 (t) or from SIGINT (int) to the client's exit:$ends"
    wait_until 10 no_session "$PID" || fail "a session or instrumented classes left after the cycles"
    expect_restored "$PID" "after the cycles"

    note "JDK $j: a client stopped by SIGSTOP"
    background "$j-sigstop" "$PID" tgt.Hot run 3 "$RX"
    wait_lines "$BG_OUT" 3 20 || fail "SIGSTOP: no call printed within 20 s"
    kill -STOP "$BG_PID"
    t0=$(now_ms)
    wait_until 30 no_session "$PID" || {
        kill -CONT "$BG_PID"
        fail "SIGSTOP: the session of a stopped client still runs 30 s later"
    }
    note "JDK $j: the session of a stopped client ended $(($(now_ms) - t0)) ms after SIGSTOP"
    expect_restored "$PID" "after a stopped client"
    kill -CONT "$BG_PID"
    wait_exit "$BG_PID" 20 || fail "SIGSTOP: the client did not exit within 20 s of SIGCONT"
    [ "$WAIT_RC" = 5 ] || {
        cat "$BG_ERR" >&2
        fail "SIGSTOP: exit status $WAIT_RC, want 5"
    }
    expect_grep 'reads nothing for 3 s' "$BG_ERR" "SIGSTOP: the client's message"
    trace "$j-after" -n 2 "$PID" tgt.Hot run 3 "$RX"
    expect_rc 0 "a session after the stopped client's"
    check_calls "$OUT" 2 "a session after the stopped client's" -t -D 3
    expect_restored "$PID" "at the end"
    stop_jvm "$PID"
done
trace_done
