#!/usr/bin/env bash
# Stopping while the output blocks, on every test JDK: the client's stdout is
# a FIFO that the test holds open and never reads, so that its writes block
# once the pipe is full (the kernel's wchan of the client says it is in a
# pipe write before the stop):
# - one SIGINT ends the session with exit 0 (not "Interrupted system call"),
#   and nothing stays instrumented;
# - -t 2 ends the session with exit 0 (the time-out is not held up by the
#   output until the agent gives the stalled client up).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# blocked_in_write PID: the process sleeps in a pipe write.
blocked_in_write() {
    grep -q 'pipe_write' "/proc/$1/wchan" 2>/dev/null
}

fifo=$MCT_TMP/unread.fifo
mkfifo "$fifo" || fail "mkfifo"
# Read and write end held, never read: the client's open does not wait.
exec 7<>"$fifo"

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    j=$MAJOR

    note "JDK $j: SIGINT with a blocked stdout"
    err=$MCT_TMP/$j-sigint.err
    "$MCT" "$PID" tgt.Shape run 4 "$RX" >"$fifo" 2>"$err" &
    pid=$!
    MCT_PIDS="$MCT_PIDS $pid"
    wait_until 20 blocked_in_write "$pid" || {
        cat "$err" >&2
        fail "SIGINT: the client's output did not block within 20 s (wchan: $(cat "/proc/$pid/wchan" 2>&1))"
    }
    kill -INT "$pid"
    wait_exit "$pid" 15 || fail "SIGINT: the client did not exit within 15 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$err" >&2
        fail "SIGINT with a blocked stdout: exit status $WAIT_RC, want 0"
    }
    expect_no_grep 'Interrupted system call' "$err" "SIGINT with a blocked stdout"
    expect_restored "$PID" "after SIGINT with a blocked stdout"

    note "JDK $j: -t 2 with a blocked stdout"
    err=$MCT_TMP/$j-timeout.err
    "$MCT" -t 2 "$PID" tgt.Shape run 4 "$RX" >"$fifo" 2>"$err" &
    pid=$!
    MCT_PIDS="$MCT_PIDS $pid"
    wait_exit "$pid" 20 || fail "-t 2 with a blocked stdout: the client did not exit within 20 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$err" >&2
        fail "-t 2 with a blocked stdout: exit status $WAIT_RC, want 0"
    }
    expect_restored "$PID" "after -t 2 with a blocked stdout"
    stop_target "$PID"
done
exec 7>&-
trace_done
