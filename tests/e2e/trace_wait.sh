#!/usr/bin/env bash
# --wait, on every test JDK, against tgt.Start whose entry class
# tgt.StartEntry loads only when its first call comes, seconds after READY:
# without --wait the trace is refused (exit 3) with a message that mentions
# --wait; with --wait -v the client says what it waits for, and Ctrl-C then
# ends it with status 0 leaving nothing instrumented; a --wait started
# before the class loads traces its calls (entry and callee); an entry class
# loaded but not linked yet (Class.forName without initializing) is refused
# without --wait and waited for with it.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# wait_traced NAME WHAT: --wait -n 3 on $PID's tgt.StartEntry.run, which must
# end with status 0 and three calls of depth 2; OUT is its output.
wait_traced() {
    background "$1" --wait -n 3 "$PID" tgt.StartEntry run 2 "$RX"
    wait_exit "$BG_PID" 60 || fail "--wait -n 3 ($2) did not end within 60 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "--wait ($2): exit status $WAIT_RC, want 0"
    }
    check_calls "$BG_OUT" 3 "--wait ($2)" -D 2
    OUT=$BG_OUT
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    LOG=$MCT_TMP/jvm-$j-start.log
    # The class loads 8 s after READY: time for the three clients below
    # on a loaded machine.
    start_target "$jdk" "$LOG" tgt.Start later 8000
    PID=$TARGET_PID

    note "JDK $j: a class not loaded yet, without --wait"
    trace "$j-nowait" "$PID" tgt.StartEntry run 2 "$RX"
    expect_rc 3 "without --wait"
    expect_grep 'tgt\.StartEntry.*not loaded.*--wait' "$ERR" "without --wait"

    note "JDK $j: Ctrl-C while waiting"
    background "$j-intr" --wait -v "$PID" tgt.StartEntry run 2 "$RX"
    wait_until 20 grep -q 'waiting for class tgt\.StartEntry to load' "$BG_ERR" || {
        cat "$BG_ERR" >&2
        fail "-v did not say what --wait waits for within 20 s"
    }
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 15 || fail "the client did not exit within 15 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "Ctrl-C while waiting: exit status $WAIT_RC, want 0"
    }
    [ -s "$BG_OUT" ] && fail "Ctrl-C while waiting: something on stdout"
    grep -q '^FIRST' "$LOG" && note "JDK $j: (the class loaded before the last client; slow machine)"
    expect_restored "$PID" "after Ctrl-C while waiting"

    note "JDK $j: --wait, then the class loads"
    wait_traced "$j-wait" "the class loads later"
    expect_outline "$OUT" "--wait" <<'OUTLINE'
tgt.StartEntry.run calls=1 throws=0
  tgt.StartEntry.twice calls=1 throws=0
OUTLINE
    grep -q '^FIRST' "$LOG" || fail "the target did not go on after its class loaded"
    expect_restored "$PID" "after --wait"
    stop_target "$PID"

    note "JDK $j: an entry class loaded but not linked yet is waited for too"
    LOG=$MCT_TMP/jvm-$j-unlinked.log
    start_target "$jdk" "$LOG" tgt.Start unlinked 6000
    PID=$TARGET_PID
    trace "$j-unlinked-nowait" "$PID" tgt.StartEntry run 2 "$RX"
    expect_rc 3 "an unlinked class without --wait"
    expect_grep 'tgt\.StartEntry is loaded but not linked yet.*--wait' "$ERR" "an unlinked class without --wait"
    wait_traced "$j-unlinked" "an unlinked class"
    expect_restored "$PID" "after --wait on an unlinked class"
    stop_target "$PID"
done
trace_done
