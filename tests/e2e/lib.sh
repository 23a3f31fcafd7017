# tests/e2e/lib.sh — helpers of the attach tests, sourced after tests/setup.
# shellcheck shell=bash

PEER=$MCT_BUILDDIR/tests/e2e/mct-peer

# At exit, after tests/setup's cleanup killed the targets: what a killed JVM
# leaves in /tmp (its attach socket, the agent's socket directory), unless
# its pid already belongs to another process.
mct_attach_cleanup() {
    local p
    mct_cleanup
    for p in $MCT_PIDS; do
        [ -d "/proc/$p" ] || rm -rf "/tmp/.mcalltree-$p" "/tmp/.java_pid$p"
    done
}
trap mct_attach_cleanup EXIT

# agent_sock PID: the agent's socket of a JVM in our namespaces.
agent_sock() {
    echo "/tmp/.mcalltree-$1/agent.sock"
}

# json_get FILE KEY[.KEY...]: prints a field of the JSON object in FILE.
json_get() {
    "$PEER" get "$1" "$2"
}

# expect_field FILE KEY WANT: fails unless the field KEY of FILE is WANT.
expect_field() {
    local got
    got=$(json_get "$1" "$2") || fail "$1 has no field $2"
    [ "$got" = "$3" ] || fail "$1: $2 is '$got', want '$3'"
}

# expect_no_grep PATTERN FILE WHAT: fails if FILE has a line matching PATTERN.
expect_no_grep() {
    if grep -Eq -- "$1" "$2"; then
        echo "--- $2:" >&2
        cat "$2" >&2
        fail "$3: a line matches /$1/"
    fi
}

# wait_exit PID SEC: waits until our child PID has exited, at most SEC
# seconds; sets WAIT_RC to its exit status. Returns 1 on time-out.
wait_exit() {
    local i
    for i in $(seq 1 $(($2 * 20))); do
        if ! alive "$1"; then
            WAIT_RC=0
            wait "$1" || WAIT_RC=$?
            return 0
        fi
        sleep 0.05
    done
    return 1
}

# term_jvm PID: stops a JVM as an operator would (SIGTERM: the agent removes
# its socket at VMDeath) and waits up to 10 s; fails if it is still there.
term_jvm() {
    local pid=$1 i
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 1 100); do
        alive "$pid" || return 0
        sleep 0.1
    done
    return 1
}

# stop_jvm PID: term_jvm, then kill -9 if it lingers, and removes what a
# killed JVM leaves in /tmp.
stop_jvm() {
    local pid=$1
    term_jvm "$pid"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    rm -rf "/tmp/.mcalltree-$pid" "/tmp/.java_pid$pid"
    return 0
}

# listener_threads PID: how many threads of the JVM are the agent's listener.
listener_threads() {
    cat "/proc/$1"/task/*/comm 2>/dev/null | grep -c '^mcalltree liste'
}

# tcp_listeners PID: how many TCP sockets of the process are listening.
tcp_listeners() {
    local pid=$1 ino n=0
    for ino in $(ls -l "/proc/$pid/fd" 2>/dev/null | sed -n 's/.*socket:\[\([0-9]*\)\].*/\1/p'); do
        if awk -v ino="$ino" '$4 == "0A" && $10 == ino { found = 1 } END { exit !found }' \
            "/proc/$pid/net/tcp" "/proc/$pid/net/tcp6" 2>/dev/null; then
            n=$((n + 1))
        fi
    done
    echo "$n"
}

# make_kit: copies into $MCT_TMP/kit (mode 0755) what another user needs:
# the Java classes, the client, the agent and mct-peer; sets KIT.
make_kit() {
    KIT=$MCT_TMP/kit
    mkdir -p "$KIT"
    cp -r "$MCT_CLASSES" "$KIT/classes"
    cp "$MCT" "$MCT_AGENT" "$PEER" "$KIT/"
    chmod -R a+rX "$KIT"
    chmod 755 "$KIT"
}
