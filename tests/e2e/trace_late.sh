#!/usr/bin/env bash
# Classes that load during a session (SPEC §4.2), on every test JDK: an
# implementation of a planned interface call that loads only after the plan
# was made (scenario plugins FLAG) is instrumented when it loads, at the
# level of the call site, and the plan is extended below it; a later session
# plans it from the start; nothing stays instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    flag=$MCT_TMP/plugins.flag
    rm -f "$flag"
    scenario "$jdk" plugins "$flag"
    j=$MAJOR

    note "JDK $j: an implementation that loads during the session"
    trace "$j-plan" --plan "$PID" tgt.Plugins run 3 "$RX"
    expect_rc 0 "--plan before the class loads"
    expect_grep 'tgt\.Plugins\$Basic\.apply' "$OUT" "--plan: the loaded implementation"
    grep -q 'LatePlugin' "$OUT" && fail "--plan: LatePlugin is planned before it loads"
    background "$j-plugins" -v "$PID" tgt.Plugins run 3 "$RX"
    wait_lines "$BG_OUT" 3 20 || {
        cat "$BG_ERR" >&2
        fail "the session printed no call within 20 s"
    }
    touch "$flag"
    # The new class is rewritten as it loads; the plan below it is extended
    # within tens of milliseconds. Wait for calls that show both.
    wait_until 10 grep -q '"method":"twice"' "$BG_OUT"
    n=$(wc -l <"$BG_OUT")
    wait_lines "$BG_OUT" $((n + 3)) 10 || fail "the session stopped printing"
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 15 || fail "the client did not exit within 15 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "exit status $WAIT_RC, want 0"
    }
    check_calls "$BG_OUT" +4 "plugins" -D 3
    tail -n 2 "$BG_OUT" >"$MCT_TMP/$j-last"
    expect_outline "$MCT_TMP/$j-last" "the calls after LatePlugin loaded" <<'OUTLINE'
tgt.Plugins.run calls=1 throws=0
  tgt.Plugins$Basic.apply calls=1 throws=0
  tgt.LatePlugin.apply calls=1 throws=0
    tgt.LatePlugin.twice calls=1 throws=0
OUTLINE
    head -n 1 "$BG_OUT" >"$MCT_TMP/$j-first"
    expect_outline "$MCT_TMP/$j-first" "the calls before LatePlugin loaded" <<'OUTLINE'
tgt.Plugins.run calls=1 throws=0
  tgt.Plugins$Basic.apply calls=1 throws=0
OUTLINE
    expect_restored "$PID" "after the session"

    note "JDK $j: a new session plans the implementation from the start"
    trace "$j-again" -n 2 "$PID" tgt.Plugins run 3 "$RX"
    expect_rc 0 "a session once LatePlugin is loaded"
    expect_outline "$OUT" "a session once LatePlugin is loaded" <<'OUTLINE'
tgt.Plugins.run calls=1 throws=0
  tgt.Plugins$Basic.apply calls=1 throws=0
  tgt.LatePlugin.apply calls=1 throws=0
    tgt.LatePlugin.twice calls=1 throws=0
OUTLINE
    expect_restored "$PID" "after the second session"
    stop_jvm "$PID"
done
trace_done
