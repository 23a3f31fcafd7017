#!/usr/bin/env bash
# mcalltree --info against a live JVM of each test JDK: the hello's fields,
# stdout holding exactly one JSON object, the agent loaded once and reused,
# its socket private, one listener thread, no TCP listener, the trigger file removed,
# the socket removed at JVM exit; and a session that ends at its timeout
# leaves no instrumented class.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    note "JDK $major"
    log=$MCT_TMP/target-$major.log
    start_target "$jdk" "$log" mcttest.Idle
    pid=$TARGET_PID

    out=$MCT_TMP/info-$major.out
    err=$MCT_TMP/info-$major.err
    MCT_LAST_ERR=$err
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "first --info"
    [ "$(wc -l <"$out")" = 1 ] || fail "stdout holds more than one line"
    [ -s "$err" ] && { cat "$err" >&2; fail "stderr is not empty without -v"; }
    "$PEER" check-hello "$out" || fail "stdout is not a valid hello"
    expect_field "$out" type hello
    expect_field "$out" protocol 1
    expect_field "$out" agent_version 0.1.0
    expect_field "$out" pid "$pid"
    expect_field "$out" session null
    expect_field "$out" instrumented_classes 0
    expect_field "$out" loads 1
    expect_field "$out" missing_capabilities '[]'
    version=$(json_get "$out" jvm.version)
    case $version in
    "$major" | "$major".*) ;;
    *) fail "jvm.version is '$version', want $major.x" ;;
    esac
    json_get "$out" jvm.name | grep -q 'VM' || fail "jvm.name lacks VM"
    [ -n "$(json_get "$out" jvm.vendor)" ] || fail "jvm.vendor is empty"

    note "JDK $major: the agent's socket and threads"
    dir=/tmp/.mcalltree-$pid
    [ "$(stat -c %a "$dir")" = 700 ] || fail "$dir is not mode 700"
    [ "$(stat -c %a "$dir/agent.sock")" = 600 ] || fail "agent.sock is not mode 600"
    [ -S "$dir/agent.sock" ] || fail "agent.sock is not a socket"
    [ -e "/proc/$pid/cwd/.attach_pid$pid" ] && fail "the attach trigger file was left behind"
    [ "$(listener_threads "$pid")" = 1 ] || fail "not exactly one listener thread"
    [ "$(tcp_listeners "$pid")" = 0 ] || fail "the JVM listens on TCP"

    note "JDK $major: a second --info reuses the agent"
    run_mct "$out" "$err" -v --info "$pid"
    expect_rc 0 "second --info"
    expect_field "$out" loads 1
    expect_grep 'connected to the agent' "$err" "second --info"
    expect_no_grep 'loading it|SIGQUIT' "$err" "second --info"
    [ "$(listener_threads "$pid")" = 1 ] || fail "a second listener thread"
    if [ "$major" -ge 21 ]; then
        [ "$(grep -c 'has been loaded dynamically' "$log")" = 1 ] ||
            fail "the JVM warned about more than one dynamic load"
    fi

    note "JDK $major: a session on a method that never completes ends at its timeout, restored"
    run_mct "$out" "$err" --timeout 1 "$pid" mcttest.Idle main 2 'mcttest\..*'
    expect_rc 0 "trace"
    expect_grep 'tracing mcttest\.Idle\.main' "$err" "trace"
    [ -s "$out" ] && fail "trace printed on stdout"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info after the session"
    expect_field "$out" instrumented_classes 0
    expect_field "$out" session null

    note "JDK $major: the socket goes away with the JVM"
    term_jvm "$pid" || fail "the JVM did not exit on SIGTERM"
    [ -e "$dir" ] && fail "$dir is left after the JVM exited"
    stop_jvm "$pid"
done
exit 0
