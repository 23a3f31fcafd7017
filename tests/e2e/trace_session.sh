#!/usr/bin/env bash
# The life of a session, on every test JDK:
# - while a session runs, --info names it (its client's pid) with classes
#   instrumented, and a second client gets exit 3 and a message naming the
#   running session;
# - kill -9 of the client: the agent restores the classes by itself, --info
#   shows "session": null and "instrumented_classes": 0 within a bound
#   (the time it took is printed), and the next session works — also while
#   the killed session's instrumented frames are still running (a 50 ms
#   sleep in tgt.Sleepy.nap);
# - SIGINT and SIGTERM stop a session cleanly: exit 0, whole call lines
#   (a whole Chrome trace document with -f chrome -o FILE), nothing left
#   instrumented;
# - the target exits during a session (scenario exit FLAG): the client
#   exits 5 saying the target JVM exited, the JVM exits normally;
# - a class of the plan loaded later (scenario late FLAG): --plan and -v list
#   tgt.LateHelper.help as pending; once the flag makes the JVM load it, the
#   trees contain help, and soon its callee inner (the plan is extended below
#   methods that were pending); the late-instrumented class is restored; a new
#   session plans it all.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
RESTORE_BOUND_MS=3000

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    j=$MAJOR

    note "JDK $j: a running session, seen by --info and by a second client"
    background "$j-first" "$PID" tgt.Shape run 4 "$RX"
    wait_lines "$BG_OUT" 2 20 || {
        cat "$BG_ERR" >&2
        fail "the session printed no call within 20 s"
    }
    trace "$j-info-busy" --info "$PID"
    expect_rc 0 "--info during a session"
    expect_field "$OUT" session.client_pid "$BG_PID"
    expect_field "$OUT" session.class tgt.Shape
    expect_field "$OUT" session.method run
    [ "$(json_get "$OUT" instrumented_classes)" -ge 1 ] || fail "--info during a session: no class instrumented"
    trace "$j-busy" -n 1 "$PID" tgt.Shape run 2 "$RX"
    expect_rc 3 "a second session"
    [ -s "$OUT" ] && fail "a second session: something on stdout"
    expect_grep 'busy' "$ERR" "a second session"
    expect_grep 'tgt\.Shape\.run' "$ERR" "a second session: the running session's method"
    expect_grep "pid $BG_PID" "$ERR" "a second session: the running session's client"
    alive "$BG_PID" || fail "the first session ended when the second was refused"

    note "JDK $j: kill -9 of the client"
    kill -9 "$BG_PID"
    wait "$BG_PID" 2>/dev/null
    t0=$(now_ms)
    restored=
    while [ $(($(now_ms) - t0)) -le "$RESTORE_BOUND_MS" ]; do
        run_mct "$MCT_TMP/$j-poll.out" "$MCT_TMP/$j-poll.err" --info "$PID"
        if [ "$RC" = 0 ] && [ "$(json_get "$MCT_TMP/$j-poll.out" session)" = null ] &&
            [ "$(json_get "$MCT_TMP/$j-poll.out" instrumented_classes)" = 0 ]; then
            restored=$(($(now_ms) - t0))
            break
        fi
        sleep 0.02
    done
    [ -n "$restored" ] || {
        cat "$MCT_TMP/$j-poll.out" "$MCT_TMP/$j-poll.err" >&2
        fail "kill -9: not restored within $RESTORE_BOUND_MS ms"
    }
    note "JDK $j: restored $restored ms after kill -9 of the client"
    # what was printed before the kill (its last line may be cut by it)
    sed '$d' "$BG_OUT" >"$MCT_TMP/$j-killed.whole"
    check_calls "$MCT_TMP/$j-killed.whole" +1 "the calls printed before kill -9" -D 4
    trace "$j-after-kill" -n 2 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "a session after kill -9"
    check_calls "$OUT" 2 "a session after kill -9" -D 4
    expect_restored "$PID" "after kill -9"

    note "JDK $j: SIGINT stops a session cleanly"
    background "$j-sigint" "$PID" tgt.Shape run 4 "$RX"
    wait_lines "$BG_OUT" 2 20 || fail "SIGINT: the session printed no call within 20 s"
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 15 || fail "SIGINT: the client did not exit within 15 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "SIGINT: exit status $WAIT_RC, want 0"
    }
    check_calls "$BG_OUT" +2 "SIGINT" -D 4
    expect_restored "$PID" "after SIGINT"

    note "JDK $j: SIGTERM stops a session cleanly, its -f chrome -o FILE a whole document"
    chrome=$MCT_TMP/$j-sigterm.json
    background "$j-sigterm" -f chrome -o "$chrome" "$PID" tgt.Shape run 4 "$RX"
    wait_lines "$chrome" 20 20 || fail "SIGTERM: the session wrote no call within 20 s"
    kill -TERM "$BG_PID"
    wait_exit "$BG_PID" 15 || fail "SIGTERM: the client did not exit within 15 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "SIGTERM: exit status $WAIT_RC, want 0"
    }
    n=$("$TREE" chrome "$chrome") || fail "SIGTERM: $chrome is not a valid, nested trace"
    [ "$n" -ge 2 ] || fail "SIGTERM: $n calls in $chrome"
    expect_restored "$PID" "after SIGTERM"
    stop_jvm "$PID"

    note "JDK $j: sessions right after a killed one whose frames still run its code"
    scenario "$jdk" sleepy
    for k in 1 2 3; do
        background "$j-sleepy-killed-$k" "$PID" tgt.Sleepy run 3 "$RX"
        wait_lines "$BG_OUT" 1 20 || fail "sleepy: the session printed no call within 20 s"
        sleep 0.02 # inside the next nap (50 ms of every 55)
        kill -9 "$BG_PID"
        wait "$BG_PID" 2>/dev/null
        trace "$j-sleepy-next-$k" -n 2 "$PID" tgt.Sleepy run 3 "$RX"
        expect_rc 0 "sleepy: the session after a killed one ($k)"
        check_calls "$OUT" 2 "sleepy: the session after a killed one ($k)" -D 3
        expect_outline "$OUT" "sleepy: the session after a killed one ($k)" <<'EOF'
tgt.Sleepy.run calls=1 throws=0
  tgt.Sleepy.nap calls=1 throws=0
  tgt.Sleepy.quick calls=1 throws=0
EOF
    done
    expect_restored "$PID" "after the sessions after killed ones"
    stop_jvm "$PID"

    note "JDK $j: the target exits during a session"
    flag=$MCT_TMP/$j-exit.flag
    scenario "$jdk" exit "$flag"
    background "$j-exit" "$PID" tgt.Shape run 4 "$RX"
    wait_lines "$BG_OUT" 2 20 || fail "exit: the session printed no call within 20 s"
    touch "$flag"
    wait_exit "$BG_PID" 20 || fail "exit: the client did not exit within 20 s of the JVM's exit"
    [ "$WAIT_RC" = 5 ] || {
        cat "$BG_ERR" >&2
        fail "exit: the client's exit status is $WAIT_RC, want 5"
    }
    expect_grep 'target JVM.*(exit|exited|exiting)' "$BG_ERR" "exit: the message"
    check_calls "$BG_OUT" +2 "exit: the calls printed" -D 4
    wait_exit "$PID" 20 || fail "exit: the JVM did not exit"
    [ "$WAIT_RC" = 0 ] || {
        tail -20 "$LOG" >&2
        fail "exit: the JVM's exit status is $WAIT_RC, want 0"
    }

    note "JDK $j: a class of the plan that loads later"
    flag=$MCT_TMP/$j-late.flag
    scenario "$jdk" late "$flag"
    trace "$j-late-plan" --plan "$PID" tgt.Late run 4 "$RX"
    expect_rc 0 "late: --plan"
    expect_grep '^ +pending +tgt\.LateHelper\.help\(\)J' "$OUT" "late: --plan"
    trace "$j-late-plan-json" -f json --plan "$PID" tgt.Late run 4 "$RX"
    expect_rc 0 "late: -f json --plan"
    "$TREE" plan "$OUT" >"$MCT_TMP/$j-late.plan" || fail "late: not a plan"
    expect_grep '^2 pending tgt\.LateHelper\.help \(\)J$' "$MCT_TMP/$j-late.plan" "late: -f json --plan"
    background "$j-late" -v "$PID" tgt.Late run 4 "$RX"
    wait_lines "$BG_OUT" 3 20 || fail "late: the session printed no call within 20 s"
    expect_grep '^ +pending +tgt\.LateHelper\.help\(\)J' "$BG_ERR" "late: -v"
    touch "$flag"
    wait_until 15 grep -q '"method":"help"' "$BG_OUT" || soft_fail "late: no call of help traced within 15 s of its class loading"
    # The plan is extended below help on the agent's next pass (every 50 ms,
    # slower on a loaded machine): wait for inner, then for a few more calls.
    wait_until 15 grep -q '"method":"inner"' "$BG_OUT" || soft_fail "late: no call of inner traced within 15 s of help's"
    wait_lines "$BG_OUT" "$(($(wc -l <"$BG_OUT") + 3))" 10 || fail "late: the session stopped printing"
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 15 || fail "late: the client did not exit within 15 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "late: exit status $WAIT_RC, want 0"
    }
    check_calls "$BG_OUT" +4 "late" -D 4
    # run alone until the flag, then run -> help; within the next extension
    # of the plan (tens of ms) run -> help -> inner, which the last calls show.
    got=$("$TREE" outline "$BG_OUT")
    case $got in
    'tgt.Late.run calls=1 throws=0
--
tgt.Late.run calls=1 throws=0
  tgt.LateHelper.help calls=1 throws=0'*) ;;
    *)
        echo "--- got:" >&2
        echo "$got" >&2
        fail "late: want trees of run alone, then of run -> help"
        ;;
    esac
    tail -n 2 "$BG_OUT" >"$MCT_TMP/$j-late.last"
    expect_outline "$MCT_TMP/$j-late.last" "late: the plan extended below help once LateHelper loaded" <<'EOF'
tgt.Late.run calls=1 throws=0
  tgt.LateHelper.help calls=1 throws=0
    tgt.LateHelper.inner calls=1 throws=0
EOF
    expect_restored "$PID" "after late"
    trace "$j-late-loaded" -n 2 "$PID" tgt.Late run 4 "$RX"
    expect_rc 0 "late: a session once LateHelper is loaded"
    check_calls "$OUT" 2 "late: a session once LateHelper is loaded" -D 4
    expect_outline "$OUT" "late: a session once LateHelper is loaded" <<'EOF'
tgt.Late.run calls=1 throws=0
  tgt.LateHelper.help calls=1 throws=0
    tgt.LateHelper.inner calls=1 throws=0
EOF
    expect_restored "$PID" "after a session once LateHelper is loaded"
    stop_jvm "$PID"
done
trace_done
