#!/usr/bin/env bash
# Instrumented classes unloaded during a session (after a
# web application's reload, a session that still says "2 methods
# instrumented" but traces nothing says why), on every test JDK, with
# scenario unload (a worker calls plug.Impl.applyAsLong, entry method, of a
# copy its own class loader defines; the test makes the target drop that
# loader, then load a new copy):
# - once the loader is collected, the client says at once, without -v,
#   that the instrumented class was unloaded;
# - the new copy's calls are traced (the class is instrumented as it
#   loads), the unloading is said once, and the session ends normally, the
#   JVM restored.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='plug\..*'
UNLOADED='^mcalltree: 1 instrumented class was unloaded: its class loader was collected \(an application undeployed or redeployed, a plugin dropped\); a copy that loads again is instrumented as it loads$'

# flag NAME: makes the target act on DIR/NAME; for drop, waits until the
# loader was collected.
flag() {
    touch "$DIR/$1"
    wait_until 30 test ! -e "$DIR/$1" || fail "the target did not take $1 within 30 s"
    if [ "$1" = drop ]; then
        wait_until 30 test -e "$DIR/dropped" -o -e "$DIR/stuck" || fail "the target did not drop its loader"
        [ -e "$DIR/dropped" ] || fail "the target's loader was not collected (DIR/stuck)"
        rm -f "$DIR/dropped"
    fi
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    DIR=$MCT_TMP/unload-$j
    mkdir -p "$DIR"
    scenario "$jdk" unload "$DIR"

    note "JDK $j: the entry method's class is unloaded, then loaded again"
    background "$j-unload" "$PID" plug.Impl applyAsLong 2 "$RX"
    MCT_LAST_ERR=$BG_ERR
    wait_lines "$BG_OUT" 5 60 || {
        cat "$BG_ERR" >&2
        fail "no call traced within 60 s"
    }
    expect_no_grep 'unloaded' "$BG_ERR" "before the loader was dropped"
    flag drop
    wait_until 30 grep -Eq "$UNLOADED" "$BG_ERR" || {
        cat "$BG_ERR" >&2
        fail "the client did not say within 30 s that the instrumented class was unloaded"
    }
    before=$(wc -l <"$BG_OUT")
    flag load
    wait_lines "$BG_OUT" $((before + 5)) 30 || {
        cat "$BG_ERR" >&2
        fail "the new copy's calls were not traced within 30 s"
    }
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 30 || fail "the client did not stop within 30 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "exit status $WAIT_RC"
    }
    check_calls "$BG_OUT" "+$((before + 5))" "the calls of both copies"
    [ "$(grep -c 'unloaded' "$BG_ERR")" = 1 ] || {
        cat "$BG_ERR" >&2
        fail "the unloaded class is not said exactly once"
    }
    expect_restored "$PID" "after the session"
    stop_jvm "$PID"
done
trace_done
