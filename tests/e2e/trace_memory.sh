#!/usr/bin/env bash
# The memory a session leaves behind, on every test JDK: 8 threads call
# tgt.Hot.run(1100000) back to back, 4.4 million probe events per call at
# depth 3, more than the biggest event ring holds, so every thread's ring
# grows as far as it may. The JVM has a fixed, pre-touched heap, so that
# its RSS (VmRSS of /proc/PID/status) moves with what the agent holds.
# The session runs until the RSS has grown by GROW_MIB (the rings grew),
# then is stopped with SIGINT:
# - while it runs, the rings stay within their budget (256 MiB): the peak
#   RSS (VmHWM) is at most the RSS before the session plus PEAK_MIB (the
#   budget, a copy of the biggest call, and slack);
# - after it the rings are shrunk back (those of threads still in a call
#   once their call returns): within 20 s the RSS is back within KEPT_MIB
#   of where it was before the session (it stayed 8 x 64 MiB higher).
# The figures are printed.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
GROW_MIB=150
PEAK_MIB=448
KEPT_MIB=48

# kib PID FIELD: a field of /proc/PID/status, in KiB.
kib() {
    sed -n "s/^$2:[[:space:]]*\([0-9]*\) kB/\1/p" "/proc/$1/status"
}

# rss_below PID KIB: the RSS of PID is below KIB.
rss_below() {
    [ "$(kib "$1" VmRSS)" -lt "$2" ]
}

# rss_above PID KIB: the RSS of PID is above KIB.
rss_above() {
    [ "$(kib "$1" VmRSS)" -gt "$2" ]
}

MCT_JVM_OPTS=(-Xms64m -Xmx64m -XX:+AlwaysPreTouch)
for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" hot 8 1100000
    j=$MAJOR
    trace "$j-info" --info "$PID"
    expect_rc 0 "--info"
    sleep 1
    before=$(kib "$PID" VmRSS)
    background "$j-big" -v "$PID" tgt.Hot run 3 "$RX"
    wait_until 120 rss_above "$PID" $((before + GROW_MIB * 1024)) || {
        cat "$BG_ERR" >&2
        fail "the RSS did not grow by $GROW_MIB MiB within 120 s of the session's start"
    }
    # at least one call printed, so that the check of the calls below has one
    wait_lines "$BG_OUT" 1 120 || {
        cat "$BG_ERR" >&2
        fail "no call printed within 120 s of the RSS's growth"
    }
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 30 || fail "the client did not exit within 30 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "the session of big calls: exit status $WAIT_RC, want 0"
    }
    check_calls "$BG_OUT" +1 "a session of big calls on 8 threads" -t -D 3
    peak=$(kib "$PID" VmHWM)
    right_after=$(kib "$PID" VmRSS)
    # settled: the last ring shrinks once its call returns
    wait_until 20 rss_below "$PID" $((before + KEPT_MIB * 1024 / 2))
    sleep 2
    after=$(kib "$PID" VmRSS)
    note "JDK $j: RSS before the session $((before / 1024)) MiB, peak $((peak / 1024)) MiB," \
        "at the client's exit $((right_after / 1024)) MiB, then $((after / 1024)) MiB"
    [ "$peak" -le $((before + PEAK_MIB * 1024)) ] ||
        soft_fail "the peak RSS during the session is $(((peak - before) / 1024)) MiB over the RSS before, want at most $PEAK_MIB"
    [ "$after" -lt $((before + KEPT_MIB * 1024)) ] ||
        soft_fail "the session left the RSS $(((after - before) / 1024)) MiB higher, want less than $KEPT_MIB"
    expect_restored "$PID" "after the session"
    stop_jvm "$PID"
done
trace_done
