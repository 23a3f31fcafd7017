#!/usr/bin/env bash
# Every attach failure has its own message and exit status 2: no such
# process, not a JVM, a -Xrs JVM whose attach socket was deleted (it ignores
# SIGQUIT, which must then not be sent), -XX:+DisableAttachMechanism
# (on the command line, and hidden in JAVA_TOOL_OPTIONS: the socket never
# appears; Ctrl-C while the client waits for it, a clean stop with status
# 0, as is Ctrl-C while it waits for the plan), -XX:-EnableDynamicAgentLoading,
# an agent library that cannot be loaded or does not exist; an agent that
# sends a frame holding no message during a session (a protocol error, exit
# 5) or closes within a frame (the agent ending the connection), or stalls
# within a frame after the stop (waited for 10 s, or until a second Ctrl-C).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err

# expect_attach_error WHAT PATTERN ARGS...: runs the client, wants status 2,
# PATTERN on stderr, nothing on stdout.
expect_attach_error() {
    local what=$1 pattern=$2
    shift 2
    run_mct "$out" "$err" "$@"
    expect_rc 2 "$what"
    expect_grep "$pattern" "$err" "$what"
    [ -s "$out" ] && fail "$what: something on stdout"
    return 0
}

note "no such process"
nopid=$(($(cat /proc/sys/kernel/pid_max) + 1))
expect_attach_error "no such process" "no such process: $nopid" --info "$nopid"

note "not a JVM"
sleep 600 &
sleeper=$!
MCT_PIDS="$MCT_PIDS $sleeper"
# Until the forked shell has exec'ed sleep, it is still called bash.
wait_until 5 grep -qsx sleep "/proc/$sleeper/comm"
expect_attach_error "sleep" "process $sleeper \(sleep\) is not a Java VM" --info "$sleeper"
alive "$sleeper" || fail "the sleep process was harmed"

# stalled_more LOG N: LOG holds more than N "stalled" lines.
stalled_more() {
    [ "$(grep -ac '^stalled' "$1" || true)" -gt "$2" ]
}

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")

    note "JDK $major: -Xrs opens the attach socket at startup"
    MCT_JVM_OPTS=(-Xrs)
    start_target "$jdk" "$MCT_TMP/xrs-ok-$major.log" mcttest.Idle
    run_mct "$out" "$err" -v --info "$TARGET_PID"
    expect_rc 0 "-Xrs"
    expect_grep "attach listener of JVM $TARGET_PID is up" "$err" "-Xrs"
    stop_jvm "$TARGET_PID"

    note "JDK $major: -Xrs without its attach socket (SIGQUIT is not handled)"
    MCT_JVM_OPTS=(-Xrs)
    start_target "$jdk" "$MCT_TMP/xrs-$major.log" mcttest.Idle
    MCT_JVM_OPTS=()
    wait_until 5 test -S "/tmp/.java_pid$TARGET_PID"
    rm -f "/tmp/.java_pid$TARGET_PID"
    expect_attach_error "-Xrs" "has no attach socket .* and does not handle SIGQUIT.*-Xrs" \
        --info "$TARGET_PID"
    alive "$TARGET_PID" || fail "the -Xrs JVM died"
    stop_jvm "$TARGET_PID"

    note "JDK $major: -XX:+DisableAttachMechanism"
    MCT_JVM_OPTS=(-XX:+DisableAttachMechanism)
    start_target "$jdk" "$MCT_TMP/noattach-$major.log" mcttest.Idle
    expect_attach_error "DisableAttachMechanism" \
        "was started with -XX:\+DisableAttachMechanism.*restart it without that flag" \
        --info "$TARGET_PID"
    stop_jvm "$TARGET_PID"

    note "JDK $major: -XX:+DisableAttachMechanism in JAVA_TOOL_OPTIONS (waits 10 s)"
    MCT_JVM_OPTS=()
    export JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism
    start_target "$jdk" "$MCT_TMP/noattach2-$major.log" mcttest.Idle
    unset JAVA_TOOL_OPTIONS
    expect_attach_error "hidden DisableAttachMechanism" \
        "did not open its attach socket .* within 10 s.*DisableAttachMechanism" \
        --info "$TARGET_PID"
    [ -e "/proc/$TARGET_PID/cwd/.attach_pid$TARGET_PID" ] && fail "trigger file left behind"
    alive "$TARGET_PID" || fail "the JVM died of SIGQUIT"

    note "JDK $major: Ctrl-C while waiting for that attach socket"
    "$MCT" --info "$TARGET_PID" >"$out" 2>"$err" &
    client=$!
    MCT_PIDS="$MCT_PIDS $client"
    wait_until 5 test -e "/proc/$TARGET_PID/cwd/.attach_pid$TARGET_PID"
    kill -INT "$client"
    wait_exit "$client" 5 || fail "SIGINT while attaching: the client goes on"
    RC=$WAIT_RC
    expect_rc 0 "SIGINT while attaching"
    expect_grep "^mcalltree: waiting for the attach socket of JVM $TARGET_PID: interrupted$" "$err" "SIGINT"
    [ -e "/proc/$TARGET_PID/cwd/.attach_pid$TARGET_PID" ] && fail "SIGINT: trigger file left behind"
    alive "$TARGET_PID" || fail "the JVM died of SIGQUIT"
    stop_jvm "$TARGET_PID"

    note "JDK $major: -XX:-EnableDynamicAgentLoading"
    MCT_JVM_OPTS=(-XX:-EnableDynamicAgentLoading)
    start_target "$jdk" "$MCT_TMP/nodyn-$major.log" mcttest.Idle
    expect_attach_error "EnableDynamicAgentLoading" \
        "does not allow loading agents.*restart it with -XX:\+EnableDynamicAgentLoading" \
        --info "$TARGET_PID"
    stop_jvm "$TARGET_PID"

    note "JDK $major: an agent library the JVM cannot load"
    MCT_JVM_OPTS=()
    start_target "$jdk" "$MCT_TMP/badlib-$major.log" mcttest.Idle
    bogus=$MCT_TMP/bogus-$major.so
    echo "not an ELF file" >"$bogus"
    expect_attach_error "bad library" \
        "JVM $TARGET_PID could not load the agent library $bogus: .*(too short|invalid ELF)" \
        --agent "$bogus" --info "$TARGET_PID"
    expect_attach_error "missing library" \
        "agent library $MCT_TMP/none.so \(from --agent\): No such file" \
        --agent "$MCT_TMP/none.so" --info "$TARGET_PID"
    MCALLTREE_AGENT=$MCT_TMP/none2.so
    expect_attach_error "missing library (environment)" \
        'none2.so \(from \$MCALLTREE_AGENT\)' --info "$TARGET_PID"
    MCALLTREE_AGENT=$MCT_AGENT
    # The JVM is still fine and takes the real agent.
    run_mct "$out" "$err" --info "$TARGET_PID"
    expect_rc 0 "--info after the failures"
    stop_jvm "$TARGET_PID"

    # The client believes only a socket the JVM serves itself: the JVM
    # plays the foreign agent (mcttest.FakeAgent).
    while read -r frame_version hello_protocol pattern; do
        note "JDK $major: an agent of frame version $frame_version, protocol $hello_protocol in the JVM"
        start_target "$jdk" "$MCT_TMP/otherproto-$major.log" mcttest.FakeAgent \
            "$frame_version" "$hello_protocol" </dev/null
        expect_attach_error "agent of frame version $frame_version, protocol $hello_protocol" \
            "$pattern" --info "$TARGET_PID"
        stop_jvm "$TARGET_PID"
    done <<'VERSIONS'
2 2 the agent in JVM [0-9]+ speaks another protocol
1 2 answered hello with a "hello" of protocol 2; it was loaded by another version of mcalltree
VERSIONS

    # Ctrl-C while the agent plans (the JVM plays an agent that never
    # answers a trace) stops the client cleanly: status 0, nothing traced.
    note "JDK $major: Ctrl-C while waiting for the plan"
    start_target "$jdk" "$MCT_TMP/silent-$major.log" mcttest.FakeAgent 1 1 silent </dev/null
    "$MCT" "$TARGET_PID" mcttest.FakeAgent main 1 'mcttest\..*' >"$out" 2>"$err" &
    client=$!
    MCT_PIDS="$MCT_PIDS $client"
    wait_until 30 grep -q '^trace request' "$MCT_TMP/silent-$major.log" || fail "no trace request"
    kill -INT "$client"
    wait_exit "$client" 10 || fail "SIGINT while waiting for the plan: the client goes on"
    RC=$WAIT_RC
    expect_rc 0 "SIGINT while waiting for the plan"
    expect_grep "^mcalltree: waiting for the agent's plan: interrupted; nothing was traced$" "$err" \
        "SIGINT while waiting for the plan"
    [ -s "$out" ] && fail "SIGINT while waiting for the plan: something on stdout"
    stop_jvm "$TARGET_PID"

    # After Ctrl-C, an agent that sends half a frame and no more (the JVM
    # plays it) is waited for 10 s, the time the agent has to end the
    # session, not longer; a second Ctrl-C ends the wait at once.
    note "JDK $major: an agent that stalls within a frame after the stop"
    start_target "$jdk" "$MCT_TMP/stall-$major.log" mcttest.FakeAgent 1 1 stall </dev/null
    for signals in 1 2; do
        # The JVM's stdout is not opened to append: emptying the log under it
        # would put NUL bytes before its next line. Count the lines instead.
        stalls=$(grep -ac '^stalled' "$MCT_TMP/stall-$major.log" || true)
        "$MCT" "$TARGET_PID" mcttest.FakeAgent main 1 'mcttest\..*' >"$out" 2>"$err" &
        client=$!
        MCT_PIDS="$MCT_PIDS $client"
        wait_until 30 grep -q '^mcalltree: tracing' "$err" || fail "the fake session did not start"
        kill -INT "$client"
        wait_until 30 stalled_more "$MCT_TMP/stall-$major.log" "$stalls" || {
            cat "$err" >&2
            cat -A "$MCT_TMP/stall-$major.log" >&2
            fail "the fake agent did not stall ($signals SIGINT)"
        }
        if [ "$signals" = 2 ]; then
            # the client is reading the frame by now
            sleep 1
            kill -INT "$client"
            pattern='^mcalltree: interrupted again: not waiting for the agent'
        else
            pattern='^mcalltree: the agent did not confirm the end of the session within 10 s$'
        fi
        wait_exit "$client" 60 || fail "$signals SIGINT, a stalled agent: the client goes on"
        RC=$WAIT_RC
        expect_rc 5 "$signals SIGINT, a stalled agent"
        expect_grep "$pattern" "$err" "$signals SIGINT, a stalled agent"
    done
    stop_jvm "$TARGET_PID"

    # A broken agent during a session (the JVM plays it, with a plan and
    # then a bad frame): a frame that holds no message is a protocol error,
    # named; a frame cut short is the agent ending the connection.
    note "JDK $major: an agent that sends a frame holding no JSON during a session"
    start_target "$jdk" "$MCT_TMP/badjson-$major.log" mcttest.FakeAgent 1 1 badjson </dev/null
    run_mct "$out" "$err" -t 30 "$TARGET_PID" mcttest.FakeAgent main 1 'mcttest\..*'
    expect_rc 5 "a frame holding no JSON"
    expect_grep '^mcalltree: reading from the agent: invalid JSON' "$err" "a frame holding no JSON"
    expect_no_grep 'without ending the session' "$err" "a frame holding no JSON"
    stop_jvm "$TARGET_PID"

    note "JDK $major: an agent that closes the connection within a frame during a session"
    start_target "$jdk" "$MCT_TMP/cut-$major.log" mcttest.FakeAgent 1 1 cut </dev/null
    run_mct "$out" "$err" -t 30 "$TARGET_PID" mcttest.FakeAgent main 1 'mcttest\..*'
    expect_rc 5 "a frame cut short"
    expect_grep '^mcalltree: the agent closed the connection without ending the session' "$err" \
        "a frame cut short"
    expect_no_grep 'reading from the agent' "$err" "a frame cut short"
    stop_jvm "$TARGET_PID"
done
exit 0
