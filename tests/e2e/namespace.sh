#!/usr/bin/env bash
# A JVM in its own pid and mount namespaces, as in a container: its /tmp is a
# private tmpfs, the build directory is hidden and so is the system's
# libjansson (which the agent may link), so the client must find the JVM's
# pid inside its namespace (NStgid), reach its /tmp through /proc/PID/root,
# and hand it a copy of the agent library with the libraries it needs.
# Attached to, and traced, from the host by its host pid.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
need_root
command -v unshare >/dev/null || skip "no unshare"
unshare --pid --fork --mount-proc true 2>/dev/null || skip "cannot create namespaces here"

out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err

# The container's init: hides /tmp, the build tree and the system's jansson
# (when the agent links it), copies the classes (from its working directory,
# still reachable) into its own /tmp, runs java.
container_init='
    set -e
    mount -t tmpfs mct-tmp /tmp
    if [ -d "$BUILD" ]; then mount -t tmpfs mct-hidden "$BUILD"; fi
    if [ -n "$JANSSON" ]; then mount --bind /dev/null "$JANSSON"; fi
    mkdir /tmp/classes
    cp -r . /tmp/classes
    cd /tmp/classes
    "$JDK/bin/java" -cp /tmp/classes tgt.Main shape
'
jansson=$(ldd "$MCT_AGENT" | awk '/libjansson/ { print $3 }')
[ -n "$jansson" ] && jansson=$(readlink -f "$jansson")

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    note "JDK $major"
    log=$MCT_TMP/ns-$major.log
    : >"$log"
    (cd "$MCT_CLASSES" && BUILD=$MCT_BUILDDIR JDK=$jdk JANSSON=$jansson exec unshare --pid --fork --mount-proc \
        --propagation private sh -c "$container_init") >"$log" 2>&1 &
    outer=$!
    MCT_PIDS="$MCT_PIDS $outer"
    for i in $(seq 1 300); do
        grep -q '^READY' "$log" && break
        alive "$outer" || { cat "$log" >&2; fail "the container exited"; }
        sleep 0.1
    done
    grep -q '^READY' "$log" || { cat "$log" >&2; fail "the container JVM never got READY"; }
    init=$(pgrep -P "$outer")
    pid=$(pgrep -P "$init" || echo "$init")
    MCT_PIDS="$MCT_PIDS $init $pid"
    nspid=$(awk '/^NStgid:/ { print $NF }' "/proc/$pid/status")
    [ "$nspid" != "$pid" ] || fail "the JVM is not in its own pid namespace"
    [ -e "/proc/$pid/root$MCT_AGENT" ] && fail "the container sees the build tree"

    run_mct "$out" "$err" -v --info "$pid"
    expect_rc 0 "--info of a JVM in other namespaces"
    expect_field "$out" pid "$nspid"
    expect_grep "pid $nspid in its namespace, another mount namespace" "$err" "namespaces"
    expect_grep "copied the agent library to /proc/$pid/root/tmp/\.mcalltree-agent-$nspid-" \
        "$err" "copy"
    ls -A "/proc/$pid/root/tmp" | grep -q '^\.mcalltree-agent-' &&
        fail "the copy of the agent was left in the container's /tmp"
    [ -S "/proc/$pid/root/tmp/.mcalltree-$nspid/agent.sock" ] || fail "no agent socket inside"
    [ -e "/tmp/.mcalltree-$nspid" ] && fail "the agent socket is in the host's /tmp"

    if [ -n "$jansson" ]; then
        [ -s "/proc/$pid/root$jansson" ] && fail "the container still sees $jansson"
    fi

    # Once loaded, the agent is reused.
    run_mct "$out" "$err" -v --info "$pid"
    expect_rc 0 "second --info"
    expect_field "$out" loads 1
    expect_no_grep 'copied' "$err" "second --info"

    # And it traces.
    run_mct "$out" "$err" -n 2 "$pid" tgt.Shape run 2 'tgt\..*'
    expect_rc 0 "a trace in the container"
    [ "$(grep -c '"method":"run"' "$out")" = 2 ] || fail "a trace in the container: not two calls"
    run_mct "$out" "$err" --info "$pid"
    expect_field "$out" instrumented_classes 0

    kill -9 "$init" 2>/dev/null
    wait "$outer" 2>/dev/null
done
exit 0
