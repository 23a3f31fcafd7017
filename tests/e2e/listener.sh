#!/usr/bin/env bash
# The agent's front door under slow peers and /tmp cleaners, on every test
# JDK (tgt.Main shape):
# - connections that send nothing, or half a header, do not delay anyone
#   else: --info answers at once while they are open, and each of them gets
#   its own "timed out" error after the agent's 5 s;
# - a crowd of them (200, more than the agent serves at once) neither: each
#   new peer pushes out the oldest unfinished request, which gets its
#   "closed unfinished" error at once, so --info is answered in its turn
#   (before, the crowd kept it waiting for rounds of 5 s);
# - a /tmp cleaner removes /tmp/.mcalltree-<pid>/: the next --info and a
#   trace work (the client loads the agent again, loads 2, unless the
#   listener's tick put the socket back first, loads 1); removed again,
#   with no client about, the listener puts the socket back by itself,
#   without a load.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
HELD=4

# has_line FILE TEXT: FILE has a line that is exactly TEXT.
has_line() {
    grep -qxF -- "$2" "$1" 2>/dev/null
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    j=$MAJOR
    dir=/tmp/.mcalltree-$PID
    trace "$j-info" --info "$PID"
    expect_rc 0 "--info"
    expect_field "$OUT" loads 1

    note "JDK $j: $HELD silent or slow connections while --info asks"
    held=$MCT_TMP/$j-held.out
    "$PEER" hold "$(agent_sock "$PID")" "$HELD" >"$held" 2>"$held.err" &
    hold_pid=$!
    MCT_PIDS="$MCT_PIDS $hold_pid"
    wait_until 10 has_line "$held" HELD || fail "mct-peer hold did not connect"
    trace "$j-info-held" --info "$PID"
    expect_rc 0 "--info while $HELD connections are silent"
    expect_field "$OUT" session null
    # hello and a session while they still wait
    trace "$j-trace-held" -n 2 "$PID" tgt.Shape run 2 "$RX"
    expect_rc 0 "a session while $HELD connections are silent"
    check_calls "$OUT" 2 "a session while $HELD connections are silent" -D 2
    wait_exit "$hold_pid" 30 || fail "the silent connections got no answer within 30 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$held" "$held.err" >&2
        fail "a silent connection got no answer"
    }
    [ "$(grep -c '"code":"protocol".*timed out' "$held")" = "$HELD" ] || {
        cat "$held" >&2
        fail "want $HELD \"timed out\" errors"
    }

    note "JDK $j: 200 silent or slow connections, then --info"
    crowd=$MCT_TMP/$j-crowd.out
    "$PEER" hold "$(agent_sock "$PID")" 200 >"$crowd" 2>"$crowd.err" &
    hold_pid=$!
    MCT_PIDS="$MCT_PIDS $hold_pid"
    wait_until 30 has_line "$crowd" HELD || fail "mct-peer hold did not get 200 connections in"
    trace "$j-info-crowd" --info "$PID"
    expect_rc 0 "--info after 200 silent connections"
    expect_field "$OUT" session null
    wait_exit "$hold_pid" 30 || fail "the crowd got no answer within 30 s"
    # 64 are served at once: at least 200 - 64 were pushed out, the rest
    # timed out (or were pushed out by --info)
    pushed=$(grep -c '"code":"protocol".*closed unfinished' "$crowd")
    timed=$(grep -c '"code":"protocol".*timed out' "$crowd")
    [ "$pushed" -ge 136 ] && [ $((pushed + timed)) = 200 ] || {
        cat "$crowd" "$crowd.err" >&2
        fail "the crowd: $pushed pushed out, $timed timed out; want at least 136 pushed out, 200 answers"
    }

    note "JDK $j: a /tmp cleaner removes $dir, then an attach"
    rm -rf "$dir"
    trace "$j-info-removed" --info "$PID"
    expect_rc 0 "--info once $dir was removed"
    # The listener looks every second: it may have put the socket back
    # before the client looked for it.
    loads=$(json_get "$OUT" loads) || fail "--info once $dir was removed: no loads"
    case $loads in
    1) note "JDK $j: the listener put the socket back before the client looked" ;;
    2) note "JDK $j: the client loaded the agent again" ;;
    *) fail "--info once $dir was removed: loads $loads, want 1 (put back) or 2 (loaded again)" ;;
    esac
    [ -S "$dir/agent.sock" ] || fail "no socket in $dir after the load"
    [ "$(stat -c %a "$dir")" = 700 ] || fail "$dir has mode $(stat -c %a "$dir"), want 700"
    trace "$j-trace-removed" -n 2 "$PID" tgt.Shape run 2 "$RX"
    expect_rc 0 "a session once $dir was removed"
    check_calls "$OUT" 2 "a session once $dir was removed" -D 2
    [ "$(listener_threads "$PID")" = 1 ] || fail "more than one listener thread"

    note "JDK $j: removed again, the listener puts it back by itself"
    rm -rf "$dir"
    wait_until 20 test -S "$dir/agent.sock" || fail "the socket was not put back within 20 s"
    "$PEER" hello "$(agent_sock "$PID")" >"$MCT_TMP/$j-hello.out" || fail "no hello on the socket put back"
    expect_field "$MCT_TMP/$j-hello.out" loads "$loads"
    expect_restored "$PID" "after the socket was put back"
    stop_jvm "$PID"
done
trace_done
