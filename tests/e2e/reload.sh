#!/usr/bin/env bash
# The agent's front door under repeated and unusual loads: the same library
# loaded again (jcmd JVMTI.agent_load) serves on with one listener; another
# copy of it steps aside (return code 105); an unsafe socket directory is
# refused until it is fixed, after which a new load works; a stale socket
# is replaced; -agentpath at startup serves from VMInit, or, when the
# directory was unsafe then, from the first attach after it is fixed; a bad
# option stops the JVM with a message.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    [ -x "$jdk/bin/jcmd" ] || skip "no jcmd in $jdk"

    note "JDK $major: the same library loaded twice, then another copy"
    log=$MCT_TMP/twice-$major.log
    start_target "$jdk" "$log" mcttest.Idle
    pid=$TARGET_PID
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info"
    "$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$MCT_AGENT" >"$out" 2>&1
    expect_grep 'return code: 0' "$out" "second load of the same library"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info after the second load"
    expect_field "$out" loads 2
    [ "$(listener_threads "$pid")" = 1 ] || fail "a second listener thread"
    cp "$MCT_AGENT" "$MCT_TMP/copy-$major.so"
    "$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$MCT_TMP/copy-$major.so" >"$out" 2>&1
    expect_grep 'return code: 105' "$out" "load of another copy"
    expect_grep 'another copy of the mcalltree agent already serves this JVM' "$log" "copy"
    "$PEER" hello "$(agent_sock "$pid")" >"$out" || fail "no hello after the copy stepped aside"
    expect_field "$out" type hello
    [ "$(listener_threads "$pid")" = 1 ] || fail "the copy started a listener"
    stop_jvm "$pid"

    # The client refuses such a directory before it loads the agent
    # (trust.sh); the agent refuses it too when loaded by other means.
    note "JDK $major: an unsafe socket directory"
    log=$MCT_TMP/unsafe-$major.log
    start_target "$jdk" "$log" mcttest.Idle
    pid=$TARGET_PID
    dir=/tmp/.mcalltree-$pid
    ln -s "$MCT_TMP" "$dir"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 2 "symlink"
    expect_grep "remove $dir: it is a symbolic link, not a directory" "$err" "symlink"
    "$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$MCT_AGENT" >"$out" 2>&1
    expect_grep 'return code: 103' "$out" "symlink, loaded by jcmd"
    expect_grep "refusing to serve: $dir exists and is not a directory" "$log" "symlink"
    rm "$dir"
    mkdir -m 755 "$dir"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 2 "mode 755"
    expect_grep "remove $dir: it has mode 0755" "$err" "mode"
    "$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$MCT_AGENT" >"$out" 2>&1
    expect_grep 'return code: 103' "$out" "mode 755, loaded by jcmd"
    expect_grep "refusing to serve: $dir has mode 0755" "$log" "mode"
    if [ "$(id -u)" = 0 ]; then
        chmod 700 "$dir"
        chown 65534 "$dir"
        run_mct "$out" "$err" --info "$pid"
        expect_rc 2 "owned by nobody"
        expect_grep "remove $dir: it belongs to uid 65534, not to the JVM's user \(uid 0\)" "$err" "owner"
        "$jdk/bin/jcmd" "$pid" JVMTI.agent_load "$MCT_AGENT" >"$out" 2>&1
        expect_grep 'return code: 103' "$out" "owned by nobody, loaded by jcmd"
        expect_grep "refusing to serve: $dir belongs to uid 65534" "$log" "owner"
        chown 0 "$dir"
    else
        chmod 700 "$dir"
    fi

    note "JDK $major: a stale socket is replaced"
    "$PEER" stale-socket "$dir/agent.sock" || fail "cannot make a stale socket"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info once the directory is fixed"
    "$PEER" hello "$dir/agent.sock" >"$out" || fail "no hello on the replaced socket"
    expect_field "$out" type hello
    stop_jvm "$pid"

    note "JDK $major: -agentpath at startup"
    log=$MCT_TMP/onload-$major.log
    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=verbose")
    start_target "$jdk" "$log" mcttest.Idle
    MCT_JVM_OPTS=()
    pid=$TARGET_PID
    expect_grep "mcalltree agent: listening on /tmp/.mcalltree-$pid/agent.sock" "$log" "OnLoad"
    run_mct "$out" "$err" -v --info "$pid"
    expect_rc 0 "--info of a JVM started with the agent"
    expect_field "$out" loads 1
    expect_no_grep 'loading it' "$err" "OnLoad"
    stop_jvm "$pid"

    note "JDK $major: -agentpath with an unsafe socket directory, then an attach once it is fixed"
    log=$MCT_TMP/onload-unsafe-$major.log
    # The shell's pid is the JVM's after exec: the directory is in its way
    # from the start.
    MCT_JVM_PREFIX=(bash -c 'mkdir -m 755 "/tmp/.mcalltree-$$" && exec "$@"' sh)
    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT")
    start_target "$jdk" "$log" mcttest.Idle
    unset MCT_JVM_PREFIX
    MCT_JVM_OPTS=()
    pid=$TARGET_PID
    expect_grep "refusing to serve: /tmp/.mcalltree-$pid has mode 0755" "$log" "OnLoad, unsafe"
    rmdir "/tmp/.mcalltree-$pid"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info once the directory is gone"
    expect_field "$out" loads 2
    stop_jvm "$pid"

    note "JDK $major: a bad option stops the JVM at startup"
    rc=0
    timeout 60 "$jdk/bin/java" "-agentpath:$MCT_AGENT=bogus" -cp "$MCT_CLASSES" mcttest.Idle \
        >"$out" 2>&1 || rc=$?
    [ "$rc" != 124 ] || fail "the JVM ran on with a bad agent option"
    [ "$rc" != 0 ] || fail "the JVM started with a bad agent option"
    expect_grep "mcalltree agent: unknown option 'bogus' \(known: verbose, rewrite-all, clock, probes, trace, depth, regex, out, include-jdk, min-ms, count, aggregate, interval, slowest, sample, max-calls, percentile, fail-over-ms, budget, include-warmup, min-calls, cpu, alloc, follow-async, async-wait, max-alloc, args, args-len, trace-context, skip-trivial\)" "$out" "bad option"
done
exit 0
