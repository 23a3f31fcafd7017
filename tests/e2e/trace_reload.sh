#!/usr/bin/env bash
# Classes loaded as a session ends are restored, on every test JDK, with
# scenario reload: two threads load a new class loader's copy of plug.Impl
# for every call of tgt.Reload.run, one after the other. A copy whose loader
# has the hook rewrite it but is still defining it when the session restores
# is not among the loaded classes yet; before, the agent then forgot it and
# the copy ran with probes for good (and --info said 0). Over several
# sessions ended with SIGINT while the threads load:
# - the client exits 0; --info reports no session and 0 instrumented
#   classes within 15 s (the agent waits for such a class and restores it;
#   meanwhile it counts it);
# - no copy still calls the probes: the threads keep (and call again) every
#   copy they load from just before the end on, and a next session whose
#   regex leaves plug.Impl out must show no plug.Impl node (a copy still
#   rewritten would record its calls in that session's trees).
# It is a race: a passing run says that no copy was left behind in these
# cycles; the window is a class's definition after its hook, microseconds.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

CYCLES=6

# restored_now PID: --info says no session and no instrumented class.
restored_now() {
    run_mct "$MCT_TMP/info" "$MCT_TMP/info.err" --info "$1" &&
        [ "$(json_get "$MCT_TMP/info" instrumented_classes)" = 0 ] &&
        [ "$(json_get "$MCT_TMP/info" session)" = null ]
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    DIR=$MCT_TMP/reload-$j
    mkdir -p "$DIR"
    scenario "$jdk" reload "$DIR" 2

    for c in $(seq 1 $CYCLES); do
        note "JDK $j: cycle $c: a session ended with SIGINT while copies load"
        background "$j-$c" "$PID" tgt.Reload run 2 'tgt\..*|plug\..*'
        MCT_LAST_ERR=$BG_ERR
        wait_lines "$BG_OUT" 3 60 || {
            cat "$BG_ERR" >&2
            fail "cycle $c: no 3 trees within 60 s"
        }
        : >"$DIR/keep"
        sleep 0.2
        kill -INT "$BG_PID"
        wait_exit "$BG_PID" 30 || fail "cycle $c: the client did not stop within 30 s of SIGINT"
        [ "$WAIT_RC" = 0 ] || {
            cat "$BG_ERR" >&2
            fail "cycle $c: exit status $WAIT_RC"
        }
        wait_until 15 restored_now "$PID" || {
            cat "$MCT_TMP/info" >&2
            fail "cycle $c: classes still instrumented 15 s after the session ended"
        }
        trace "$j-$c-check" -n 5 "$PID" tgt.Reload run 2 'tgt\..*'
        expect_rc 0 "cycle $c: the next session"
        check_calls "$OUT" 5 "cycle $c: the next session"
        if grep -q 'plug\.Impl' "$OUT"; then
            fail "cycle $c: a copy of plug.Impl loaded as the session ended still calls the probes"
        fi
        rm -f "$DIR/keep"
    done
    expect_restored "$PID" "after $CYCLES cycles"
    stop_jvm "$PID"
done
trace_done
