#!/usr/bin/env bash
# A summary's memory is bounded, and the final summary and `end` reach a
# client that reads them, on every test JDK, against scenario knot
# (tgt.Knot: mutual recursion among twelve methods along paths that depend
# on the data, so that nearly every entry call takes new call paths):
# - in a memory cgroup of LIMIT, --aggregate -t 6 leaves the JVM alive (it
#   was OOM-killed when every path made a node of about 5 KB); the final
#   summary says how many calls were folded ("folded", nodes marked
#   "other":true), so does the client on stderr; the session is over and the
#   classes restored when the client exits;
# - a client stopped while the agent writes a final summary of megabytes
#   (--slowest 1000), and continued within the 3 s the agent allows a
#   client that reads nothing, gets the summary and `end` (exit status 0);
# - stopped for longer, it loses them and says why: it read nothing for
#   that long (exit status 5).
# Skipped (77) where no memory cgroup can be made (cgroup v2 with the
# memory controller, or v1's memory hierarchy, writable by this user).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
LIMIT=$((512 << 20))

# make_cgroup: a memory cgroup of LIMIT bytes (no swap) in CG, or returns 1.
CG=
make_cgroup() {
    local v2=/sys/fs/cgroup rel
    if [ -e "$v2/cgroup.controllers" ]; then
        CG=$v2/mct-test-$$
        mkdir "$CG" 2>/dev/null || return 1
        [ -e "$CG/memory.max" ] && echo "$LIMIT" >"$CG/memory.max" 2>/dev/null || return 1
        [ ! -e "$CG/memory.swap.max" ] || echo 0 >"$CG/memory.swap.max" 2>/dev/null
    elif [ -d "$v2/memory" ]; then
        rel=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
        CG=$v2/memory${rel%/}/mct-test-$$
        mkdir "$CG" 2>/dev/null || return 1
        echo "$LIMIT" >"$CG/memory.limit_in_bytes" 2>/dev/null || return 1
        [ ! -e "$CG/memory.memsw.limit_in_bytes" ] ||
            echo "$LIMIT" >"$CG/memory.memsw.limit_in_bytes" 2>/dev/null
    else
        return 1
    fi
}
if ! make_cgroup; then
    [ -z "$CG" ] || rmdir "$CG" 2>/dev/null
    skip "cannot make a memory cgroup here (cgroup v2 memory.max or v1 memory.limit_in_bytes not writable)"
fi
trap 'mct_cleanup; rmdir "$CG" 2>/dev/null' EXIT
# The JVM moves itself into the cgroup, then runs (its pid stays the JVM's).
MCT_JVM_PREFIX=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG")
MCT_JVM_OPTS=(-Xmx64m)

# session_at PID N: --info shows a session of PID that aggregated N calls.
session_at() {
    run_mct "$MCT_TMP/poll.out" "$MCT_TMP/poll.err" --info "$1" &&
        [ "$(json_get "$MCT_TMP/poll.out" session.printed 2>/dev/null)" = "$2" ]
}

# queued PID: bytes wait in the socket of client PID (ss(8); where there is
# no ss, at once).
queued() {
    command -v ss >/dev/null || return 0
    ss -xpn | awk -v p="pid=$1," '$3 > 0 && index($0, p) { found = 1 } END { exit !found }'
}

# stopped_client NAME N: starts a client of --aggregate --slowest 1000 -n N,
# stops it once its session runs (it has the plan), waits until the agent
# has aggregated the N calls and begun to write the final summary to it.
stopped_client() {
    background "$1" --aggregate --slowest 1000 -n "$2" -t 120 "$PID" tgt.Knot run 50 "$RX"
    wait_until 60 grep -q '^mcalltree: tracing' "$BG_ERR" || fail "$1: no session within 60 s"
    kill -STOP "$BG_PID"
    wait_until 60 session_at "$PID" "$2" && wait_until 60 queued "$BG_PID" || {
        kill -CONT "$BG_PID"
        fail "$1: the session did not aggregate $2 calls and write them within 60 s"
    }
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" knot
    j=$MAJOR
    grep -qx "$PID" "$CG/cgroup.procs" || fail "JDK $j: the JVM is not in the cgroup $CG"

    note "JDK $j: --aggregate on mutual recursion, the JVM in a cgroup of $((LIMIT >> 20)) MiB"
    trace "$j-knot" --aggregate -t 6 "$PID" tgt.Knot run 50 "$RX"
    alive "$PID" || {
        tail -5 "$LOG" >&2
        fail "JDK $j: the JVM died during the session (OOM-killed?)"
    }
    expect_rc 0 "--aggregate on mutual recursion"
    [ "$(wc -l <"$OUT")" = 1 ] || fail "--aggregate: $(wc -l <"$OUT") lines, want the one final summary"
    expect_field "$OUT" final true
    folded=$(json_get "$OUT" folded) || fail "JDK $j: the summary has no \"folded\""
    [ "$folded" -gt 0 ] || fail "JDK $j: \"folded\" is $folded"
    grep -q '"other":true' "$OUT" || fail "JDK $j: no node marked \"other\":true"
    expect_grep "^mcalltree: the summary reached its budget .*: $folded calls on paths past it .* were folded" \
        "$ERR" "JDK $j: the client's word on what was folded"
    note "JDK $j: $(json_get "$OUT" calls) calls, $folded folded, the summary $(wc -c <"$OUT") bytes"
    expect_restored "$PID" "JDK $j: after the session on mutual recursion"

    note "JDK $j: a client stopped while the final summary is written, continued within 3 s"
    stopped_client "$j-slow" 400
    sleep 1
    kill -CONT "$BG_PID"
    wait_exit "$BG_PID" 60 || fail "JDK $j: the continued client did not exit within 60 s"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "JDK $j: the continued client: exit status $WAIT_RC, want 0"
    }
    expect_field "$BG_OUT" final true
    expect_field "$BG_OUT" calls 400
    note "JDK $j: the final summary: $(wc -c <"$BG_OUT") bytes"
    expect_no_grep 'closed the connection' "$BG_ERR" "JDK $j: the continued client"
    expect_restored "$PID" "JDK $j: after the stopped client"

    note "JDK $j: a client stopped for longer than the agent waits"
    stopped_client "$j-lost" 400
    sleep 5
    kill -CONT "$BG_PID"
    wait_exit "$BG_PID" 60 || fail "JDK $j: the client stopped for long did not exit within 60 s"
    [ "$WAIT_RC" = 5 ] || {
        cat "$BG_ERR" >&2
        fail "JDK $j: the client stopped for long: exit status $WAIT_RC, want 5"
    }
    expect_grep '^mcalltree: the agent closed the connection without ending the session: .* this client read nothing for at least [0-9.]+ s \(it was stopped' \
        "$BG_ERR" "JDK $j: the client stopped for long says why"
    expect_restored "$PID" "JDK $j: after the client stopped for long"
    stop_jvm "$PID"
done
trace_done
