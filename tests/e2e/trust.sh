#!/usr/bin/env bash
# A root client believes no socket it did not check: a forger
# (nobody, or root playing an attacker's part) serves a fake agent or a fake
# attach listener where the client looks, and the client must refuse with
# exit status 2 and a message naming the owner, having sent the forger
# nothing (mct-peer forge records every byte it receives):
#   - an agent directory of nobody's for a JVM of root with no agent yet;
#   - an agent directory of the JVM's user (nobody), served by another of
#     nobody's processes, not the JVM;
#   - an attach socket of nobody's for a JVM of root;
#   - a FIFO, or a file of nobody's, where the client puts the attach trigger
#     of a JVM of root (the client must neither block nor use it);
#   - the agent's socket, or its directory, swapped for a symbolic link to a
#     socket only root may reach;
#   - a container whose /tmp is an absolute symbolic link, which must be
#     resolved inside the container, not on the host (where the forger waits);
# and root's supplementary groups are not kept while it acts as the JVM's
# user (the attach trigger goes to the JVM's /tmp, not to a directory only
# root's group may write).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
need_root
command -v setpriv >/dev/null || skip "no setpriv"

make_kit
MCT_CLASSES=$KIT/classes
nobody=65534
as_nobody=(setpriv --reuid=$nobody --regid=$nobody --clear-groups)
out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err
chmod 777 "$MCT_TMP"
FORGED=$MCT_TMP/forged.log
trust_cleanup() {
    stop_container
    mct_attach_cleanup
    [ -z "${decoy:-}" ] || rm -rf "$decoy"
}
trap trust_cleanup EXIT

# forge WHO PATH KIND: serves a forged KIND (agent, attach) at PATH as WHO
# (root or nobody), recording what it receives in $FORGED; sets FORGER.
forge() {
    local -a prefix=()
    [ "$1" = nobody ] && prefix=("${as_nobody[@]}")
    : >"$FORGED"
    chmod 666 "$FORGED"
    rm -f "$2"
    "${prefix[@]}" "$KIT/mct-peer" forge "$2" "$FORGED" "$3" &
    FORGER=$!
    MCT_PIDS="$MCT_PIDS $FORGER"
    wait_until 10 test -S "$2" || fail "the forged $3 at $2 did not start"
}

# unforge WHAT: stops the forger; fails with WHAT unless it received nothing.
unforge() {
    kill "$FORGER" 2>/dev/null
    wait "$FORGER" 2>/dev/null
    if [ -s "$FORGED" ]; then
        od -c "$FORGED" | head >&2
        fail "$1: the forger received the bytes above"
    fi
    return 0
}

# expect_refused WHAT PATTERN ARGS...: runs the client as root, wants status
# 2, PATTERN on stderr and nothing on stdout.
expect_refused() {
    local what=$1 pattern=$2
    shift 2
    run_mct "$out" "$err" "$@"
    expect_rc 2 "$what"
    expect_grep "$pattern" "$err" "$what"
    if [ -s "$out" ]; then
        cat "$out" >&2
        fail "$what: the client printed what the forger said"
    fi
    return 0
}

# expect_refused_bounded WHAT PATTERN ARGS...: expect_refused, with the
# client in the background and given 30 s (a client that blocks is a failure,
# not a hung test).
expect_refused_bounded() {
    local what=$1 pattern=$2 client
    shift 2
    "$MCT" "$@" >"$out" 2>"$err" &
    client=$!
    MCT_PIDS="$MCT_PIDS $client"
    wait_exit "$client" 30 || fail "$what: the client still runs after 30 s"
    RC=$WAIT_RC
    expect_rc 2 "$what"
    expect_grep "$pattern" "$err" "$what"
    [ -s "$out" ] && fail "$what: something on stdout"
    return 0
}

# A container with its own root (a tmpfs of its own, the system's /usr, /etc
# and /dev bound in) whose /tmp is an absolute symbolic link to $TMPLINK;
# $DECOY, when set, also exists inside. It runs mcttest.Idle, marked with
# -Dmct.trust=$MARK so that the test finds its pid on the host.
container_init='
    set -e
    mount -t tmpfs mct-root "$ROOT"
    mkdir -p "$ROOT/usr" "$ROOT/etc" "$ROOT/dev" "$ROOT/proc" "$ROOT/classes" "$ROOT$TMPLINK"
    if [ -n "$DECOY" ]; then mkdir -p "$ROOT$DECOY"; fi
    mount --rbind /usr "$ROOT/usr"
    mount --rbind /etc "$ROOT/etc"
    mount --rbind /dev "$ROOT/dev"
    mount --rbind /proc "$ROOT/proc"
    for d in bin sbin lib lib64; do
        if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$ROOT/$d"; fi
    done
    ln -s "$TMPLINK" "$ROOT/tmp"
    cp -r . "$ROOT/classes"
    chroot "$ROOT" /bin/sh -c "cd /classes && $JDK/bin/java -Dmct.trust=$MARK -cp /classes mcttest.Idle"
'

# start_container JDK LOG TMPLINK [DECOY]: starts that container; sets
# CPID (the JVM's pid on the host), CNSPID (in its namespace), CROOT (its
# root as the host reaches it) and COUTER (the process to kill: unshare,
# whose death kills the namespace's first process, and so all of it).
start_container() {
    local jdk=$1 log=$2 i
    MARK=$$-$RANDOM
    mkdir -p "$MCT_TMP/root"
    : >"$log"
    (cd "$MCT_CLASSES" && ROOT=$MCT_TMP/root JDK=$jdk TMPLINK=$3 DECOY=${4:-} MARK=$MARK \
        exec unshare --pid --fork --kill-child --mount-proc --mount --propagation private \
        sh -c "$container_init") >"$log" 2>&1 &
    COUTER=$!
    MCT_PIDS="$MCT_PIDS $COUTER"
    wait_until 30 grep -q '^READY' "$log" || { cat "$log" >&2; fail "the container JVM never got READY"; }
    CPID=$(pgrep -f "mct.trust=$MARK" | while read -r p; do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = java ] && echo "$p"; done | head -1)
    [ -n "$CPID" ] || fail "cannot find the container's JVM"
    CNSPID=$(awk '/^NStgid:/ { print $NF }' "/proc/$CPID/status")
    CROOT=/proc/$CPID/root
    [ "$(readlink "$CROOT/tmp")" = "$3" ] ||
        { ls -l "$CROOT/" >&2; fail "the container's /tmp is not a link to $3"; }
}

# stop_container: kills the container (also at exit, should a check fail
# while it runs), and waits for it.
stop_container() {
    [ -n "${COUTER:-}" ] || return 0
    kill -9 "$COUTER" 2>/dev/null
    wait "$COUTER" 2>/dev/null
    # --kill-child took the namespace down; the JVM, should it linger, by its mark
    if [ -n "${CPID:-}" ] && grep -qs "mct.trust=$MARK" "/proc/$CPID/cmdline"; then
        kill -9 "$CPID" 2>/dev/null
    fi
    COUTER=
    CPID=
    return 0
}

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")

    note "JDK $major: nobody forges the agent of a JVM of root"
    start_target "$jdk" "$MCT_TMP/root-$major.log" mcttest.Idle
    pid=$TARGET_PID
    dir=/tmp/.mcalltree-$pid
    "${as_nobody[@]}" mkdir -m 700 "$dir"
    forge nobody "$dir/agent.sock" agent
    owner="remove $dir: it belongs to uid $nobody, not to the JVM's user \(uid 0\); someone may be impersonating the agent"
    expect_refused "--info, forged agent" "$owner" --info "$pid"
    expect_refused "a trace, forged agent" "$owner" -n 1 "$pid" mcttest.Idle main 2 'mcttest\..*'
    unforge "a forged agent of nobody's"
    # Once the forgery is gone, the real agent loads.
    rm -rf "$dir"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info once the forged directory is removed"
    expect_field "$out" pid "$pid"
    stop_jvm "$pid"

    note "JDK $major: a dead agent of nobody's left its directory (the pid reused)"
    start_target "$jdk" "$MCT_TMP/dead-$major.log" mcttest.Idle
    pid=$TARGET_PID
    dir=/tmp/.mcalltree-$pid
    "${as_nobody[@]}" mkdir -m 700 "$dir"
    "${as_nobody[@]}" touch "$dir/left"
    "${as_nobody[@]}" "$KIT/mct-peer" stale-socket "$dir/agent.sock" || fail "no stale socket"
    # more than a socket in it: not an agent's, left alone
    expect_refused "--info, a directory of nobody's with a file" \
        "remove $dir: it belongs to uid $nobody" --info "$pid"
    [ -e "$dir/left" ] || fail "a directory holding a file was removed"
    rm -f "$dir/left"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info over a dead agent's directory of nobody's"
    expect_grep "removed $dir, left by a dead agent of another user" "$err" \
        "the client says it removed the dead agent's directory"
    expect_field "$out" pid "$pid"
    [ "$(stat -c %u "$dir")" = 0 ] || fail "$dir is not the JVM's (root's) after the load"
    stop_jvm "$pid"

    note "JDK $major: nobody forges the attach listener of a JVM of root"
    start_target "$jdk" "$MCT_TMP/root2-$major.log" mcttest.Idle
    pid=$TARGET_PID
    [ -e "/tmp/.java_pid$pid" ] && fail "the JVM's attach listener runs already"
    forge nobody "/tmp/.java_pid$pid" attach
    expect_refused "--info, forged attach listener" \
        "remove /tmp/.java_pid$pid: it belongs to uid $nobody, not to the JVM's user \(uid 0\); someone may be impersonating the JVM's attach listener" \
        --info "$pid"
    unforge "a forged attach listener"
    rm -f "/tmp/.java_pid$pid"
    stop_jvm "$pid"

    note "JDK $major: nobody plants the attach trigger of a JVM of root"
    # The JVM works in a directory anyone may write to (as /tmp): nobody
    # puts a FIFO there, then a file of its own, where the client creates
    # the trigger. Opening the FIFO would block for ever, and the JVM ignores
    # nobody's file: the client must refuse at once, and leave both alone.
    mkdir -p "$MCT_TMP/plant"
    chmod 1777 "$MCT_TMP/plant"
    MCT_JVM_PREFIX=(sh -c 'cd "$0" && exec "$@"' "$MCT_TMP/plant")
    start_target "$jdk" "$MCT_TMP/plant-$major.log" mcttest.Idle
    unset MCT_JVM_PREFIX
    pid=$TARGET_PID
    planted=$MCT_TMP/plant/.attach_pid$pid
    shown="/proc/$pid/cwd/.attach_pid$pid"
    "${as_nobody[@]}" mkfifo "$planted"
    expect_refused_bounded "a FIFO as the trigger" \
        "remove $shown: it is not a regular file" --info "$pid"
    [ -p "$planted" ] || fail "the client removed nobody's FIFO"
    rm -f "$planted"
    "${as_nobody[@]}" touch "$planted"
    expect_refused_bounded "nobody's file as the trigger" \
        "remove $shown: it belongs to uid $nobody, not to the JVM's user \(uid 0\) or root" --info "$pid"
    [ -f "$planted" ] || fail "the client removed nobody's file"
    rm -f "$planted"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info once the planted trigger is removed"
    [ -e "$planted" ] && fail "the client left its trigger behind"
    stop_jvm "$pid"

    note "JDK $major: another process of the JVM's user serves the agent's socket"
    MCT_RUN_AS=$nobody
    start_target "$jdk" "$MCT_TMP/nobody-$major.log" mcttest.Idle
    unset MCT_RUN_AS
    pid=$TARGET_PID
    dir=/tmp/.mcalltree-$pid
    "${as_nobody[@]}" mkdir -m 700 "$dir"
    forge nobody "$dir/agent.sock" agent
    expect_refused "--info, agent served by another process" \
        "remove $dir/agent.sock: it is served by process $FORGER \(uid $nobody\), not by JVM $pid \(uid $nobody\) itself" \
        --info "$pid"
    unforge "an agent served by another process of nobody's"
    rm -rf "$dir"

    note "JDK $major: the agent's socket swapped for a link to a socket only root reaches"
    mkdir -m 700 "$MCT_TMP/rootonly"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info of a JVM of nobody"
    forge root "$MCT_TMP/rootonly/agent.sock" agent
    "${as_nobody[@]}" rm "$dir/agent.sock"
    "${as_nobody[@]}" ln -s "$MCT_TMP/rootonly/agent.sock" "$dir/agent.sock"
    expect_refused "--info, agent.sock a symbolic link" \
        "remove $dir/agent.sock: it is a symbolic link, not a socket" --info "$pid"
    unforge "a link to root's socket"
    stop_jvm "$pid"

    note "JDK $major: the agent's directory a link to a directory only root reaches"
    MCT_RUN_AS=$nobody
    start_target "$jdk" "$MCT_TMP/nobody2-$major.log" mcttest.Idle
    unset MCT_RUN_AS
    pid=$TARGET_PID
    dir=/tmp/.mcalltree-$pid
    forge root "$MCT_TMP/rootonly/agent.sock" agent
    "${as_nobody[@]}" ln -s "$MCT_TMP/rootonly" "$dir"
    expect_refused "--info, socket directory a symbolic link" \
        "remove $dir: it is a symbolic link, not a directory" --info "$pid"
    unforge "a link to root's directory"
    rm -f "$dir"
    rm -rf "$MCT_TMP/rootonly"

    note "JDK $major: root's supplementary groups are dropped"
    # The JVM of nobody works in a directory that only root's group may
    # write: the trigger must go to the JVM's /tmp, never there.
    mkdir -p "$MCT_TMP/rootgroup"
    chmod 775 "$MCT_TMP/rootgroup"
    chgrp 0 "$MCT_TMP/rootgroup"
    MCT_RUN_AS=$nobody
    MCT_JVM_PREFIX=(sh -c 'cd "$0" && exec "$@"' "$MCT_TMP/rootgroup")
    start_target "$jdk" "$MCT_TMP/nobody3-$major.log" mcttest.Idle
    unset MCT_RUN_AS MCT_JVM_PREFIX
    pid=$TARGET_PID
    [ "$(readlink "/proc/$pid/cwd")" = "$MCT_TMP/rootgroup" ] || fail "the JVM runs elsewhere"
    RC=0
    setpriv --groups=0 "$MCT" -v --info "$pid" >"$out" 2>"$err" || RC=$?
    expect_rc 0 "--info with root's group 0"
    expect_grep "created /tmp/\.attach_pid$pid; sending SIGQUIT" "$err" "trigger"
    expect_no_grep "created /proc/$pid/cwd" "$err" "trigger"
    [ -z "$(ls -A "$MCT_TMP/rootgroup")" ] || fail "something was created in root's group's directory"
    stop_jvm "$pid"

    note "JDK $major: a container whose /tmp is an absolute link to a host directory"
    # Outside the host's /tmp, which holds $MCT_TMP (and may hold the build
    # tree): the container's /tmp cannot be a link into itself.
    decoy=$(mktemp -d /var/tmp/mct-trust-decoy.XXXXXX)
    start_container "$jdk" "$MCT_TMP/container-$major.log" "$decoy" "$decoy"
    # On the host, the link leads to the decoy, where a forger listens.
    forge root "$decoy/.java_pid$CNSPID" attach
    run_mct "$out" "$err" -v --info "$CPID"
    expect_rc 0 "--info of the container"
    expect_field "$out" pid "$CNSPID"
    [ -S "$CROOT$decoy/.mcalltree-$CNSPID/agent.sock" ] || fail "no agent socket in the container's /tmp"
    unforge "the host's side of the container's /tmp link"
    [ "$(ls -A "$decoy")" = ".java_pid$CNSPID" ] || { ls -lA "$decoy" >&2; fail "the client wrote to the host's decoy"; }
    stop_container
    rm -rf "$decoy"

    note "JDK $major: a container whose /tmp is an absolute link to a path the host lacks"
    link=/mct-trust-tmp-$$
    [ -e "$link" ] && fail "$link exists on the host"
    start_container "$jdk" "$MCT_TMP/container2-$major.log" "$link"
    # Without the link's target, the host's /tmp is where a client would fall back.
    hostdir=/tmp/.mcalltree-$CNSPID
    [ -e "$hostdir" ] && fail "$hostdir exists on the host"
    mkdir -m 700 "$hostdir"
    forge root "$hostdir/agent.sock" agent
    run_mct "$out" "$err" -v --info "$CPID"
    expect_rc 0 "--info of the second container"
    expect_field "$out" pid "$CNSPID"
    [ -S "$CROOT$link/.mcalltree-$CNSPID/agent.sock" ] || fail "no agent socket in the container's /tmp"
    unforge "the host's /tmp"
    rm -rf "$hostdir"
    [ -e "$link" ] && fail "$link was created on the host"
    stop_container
done
exit 0
