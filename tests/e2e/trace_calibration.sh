#!/usr/bin/env bash
# What a probe call costs, which the agent subtracts from every duration,
# on every test JDK:
# - every session measures it anew as it starts: three sessions in a quiet
#   JVM report figures of their own (not the first one's again), each
#   trusted; -v gives the figure with its spread (the median burst, and the
#   floor: recording an event) from the plan, and again from the end;
# - a CPU-bound load on every core, from before the JVM starts to its
#   first session: the figure stays within FACTOR (5) times the quiet one;
#   the load stopped, the next session's figure is within that as well.
#   That each session measures anew is the quiet sessions' check only: the
#   cheapest burst is a whole number of clock ticks and the figures are
#   printed to 0.1 ns, so sessions in a row may well report the same
#   figures (three did, on a quiet JDK 25): up to six sessions run until
#   two differ, and six alike fail. (The figure is
#   the cheapest of many short bursts, which load
#   hardly moves: on the 2-core build machine, itself busy, it stayed
#   within a few percent; 5 leaves room for a busier machine and still
#   catches a figure that load drives, such as a mean of the bursts.)
# - a JVM that only interprets (-Xint) makes a probe call cost far more
#   than recording an event: the figure is not trusted, stderr says so and
#   which durations are not trustworthy, and at most 4 times the floor is
#   subtracted;
# - calls whose nodes are within twice the probe cost (tgt.Many's leaf,
#   compiled) make stderr say, once, that such durations are not
#   trustworthy (or, should that session's figure not be trusted, the
#   warning saying so, which names the same bound and stands for both).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
FACTOR=5
LOAD_PIDS=

# start_load: a busy loop on every core, each ending by itself after 5
# minutes (and killed by stop_load, or at exit).
start_load() {
    local i
    for i in $(seq 1 "$(nproc)"); do
        bash -c 'while [ "$SECONDS" -lt 300 ]; do :; done' &
        LOAD_PIDS="$LOAD_PIDS $!"
        MCT_PIDS="$MCT_PIDS $!"
    done
}

stop_load() {
    local p
    for p in $LOAD_PIDS; do
        kill -9 "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    LOAD_PIDS=
}

# probe_of WHAT: the figures -v printed in $ERR: P_COST (the measured
# cost of a probe call), P_MEDIAN and P_FLOOR from the start, P_NS (what is
# subtracted) and P_TRUSTED ("trusted" or "not trusted") from the end, whose
# cost must be the start's; P_ALL all of them.
probe_of() {
    local start end cost median
    start=$(sed -n 's/^mcalltree: a probe call costs \([0-9.]*\) ns (the cheapest of [0-9]* bursts; median \([0-9.]*\) ns; recording alone \([0-9.]*\) ns); [0-9.]* ns is subtracted from a duration per probe call$/\1 \2 \3/p' "$ERR")
    end=$(sed -n "s/^mcalltree: this session's probe call cost \([0-9.]*\) ns (median \([0-9.]*\) ns, \([a-z ]*\)), \([0-9.]*\) ns subtracted per call$/\1 \2 \4 \3/p" "$ERR")
    [ -n "$start" ] || { cat "$ERR" >&2; fail "$1: -v did not say what a probe call costs as the session started"; }
    [ -n "$end" ] || { cat "$ERR" >&2; fail "$1: -v did not say what a probe call cost as the session ended"; }
    read -r P_COST P_MEDIAN P_FLOOR <<<"$start"
    read -r cost median P_NS P_TRUSTED <<<"$end"
    [ "$cost $median" = "$P_COST $P_MEDIAN" ] ||
        fail "$1: the end says a probe call cost $cost ns (median $median), the start $P_COST ns (median $P_MEDIAN)"
    P_ALL="$start $end"
    note "$1: a probe call costs $P_COST ns (median $P_MEDIAN, floor $P_FLOOR; $P_TRUSTED), $P_NS ns subtracted"
}

# at_most A B WHAT: A <= B (decimal numbers), else fails with WHAT.
at_most() {
    awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }' || fail "$3: $1 > $2"
}

# times A F: A * F.
times() {
    awk -v a="$1" -v f="$2" 'BEGIN { printf "%.3f\n", a * f }'
}

# session NAME: one traced session of tgt.Shape.run with -v (3 calls).
session() {
    trace "$1" -v -n 3 "$PID" tgt.Shape run 3 "$RX"
    expect_rc 0 "$1"
    check_calls "$OUT" 3 "$1" -D 3
    probe_of "$1"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    j=$MAJOR

    note "JDK $j: sessions in a quiet JVM, each measuring anew"
    quiet=
    seen=
    for i in 1 2 3 4 5 6; do
        # Three sessions, more while all gave the same figures (see above).
        [ "$i" -le 3 ] || [ "$(sort -u <<<"$seen" | grep -c .)" -eq 1 ] || break
        session "$j-quiet$i"
        [ "$P_TRUSTED" = trusted ] || fail "$j-quiet$i: a quiet JVM's figure is not trusted"
        [ "$P_NS" = "$P_COST" ] || fail "$j-quiet$i: $P_NS ns subtracted, not the $P_COST ns measured"
        at_most "$P_FLOOR" "$P_COST" "$j-quiet$i: the floor exceeds the cost"
        at_most "$P_COST" "$P_MEDIAN" "$j-quiet$i: the cheapest burst costs more than the median"
        if [ -z "$quiet" ] || awk -v a="$P_COST" -v b="$quiet" 'BEGIN { exit !(a < b) }'; then
            quiet=$P_COST
        fi
        seen="$seen$P_ALL"$'\n'
        expect_restored "$PID" "after $j-quiet$i"
    done
    [ "$(sort -u <<<"$seen" | grep -c .)" -gt 1 ] ||
        fail "$(grep -c . <<<"$seen") sessions reported the very same probe figures: they were not measured anew"
    stop_jvm "$PID"
    bound=$(times "$quiet" "$FACTOR")

    note "JDK $j: under a CPU-bound load on $(nproc) cores from the JVM's start"
    start_load
    scenario "$jdk" shape
    session "$j-load"
    stop_load
    at_most "$P_COST" "$bound" "$j-load: the cost measured under load is over $FACTOR times the quiet $quiet ns"
    at_most "$P_NS" "$bound" "$j-load: what is subtracted under load is over $FACTOR times the quiet $quiet ns"
    expect_restored "$PID" "after $j-load"

    note "JDK $j: the load stopped, the next session measures its own"
    session "$j-after"
    at_most "$P_COST" "$bound" "$j-after: the cost is over $FACTOR times the quiet $quiet ns"
    expect_restored "$PID" "after $j-after"
    stop_jvm "$PID"

    note "JDK $j: a JVM that only interprets: an implausible figure, not trusted"
    MCT_JVM_OPTS=(-Xint)
    scenario "$jdk" shape
    unset MCT_JVM_OPTS
    session "$j-xint"
    [ "$P_TRUSTED" = "not trusted" ] || fail "$j-xint: a probe call costing $P_COST ns is trusted"
    at_most "$P_NS" "$(times "$P_FLOOR" 4.05)" "$j-xint: more than 4 times the floor is subtracted"
    at_most "$P_NS" "$P_COST" "$j-xint: more than the measured cost is subtracted"
    expect_grep 'the cost of a probe call could not be measured reliably: .* ns is subtracted per probe call, and durations under [0-9]+ ns are not trustworthy' \
        "$ERR" "$j-xint: the warning"
    expect_restored "$PID" "after $j-xint"
    stop_jvm "$PID"

    note "JDK $j: nodes within twice the probe cost, said once"
    scenario "$jdk" many 1000
    trace "$j-short" -n 5 "$PID" tgt.Many run 2 "$RX"
    expect_rc 0 "$j-short"
    check_calls "$OUT" 5 "$j-short" -D 2
    [ "$(grep -c 'are not trustworthy' "$ERR")" = 1 ] || {
        cat "$ERR" >&2
        fail "$j-short: stderr does not say once that short durations are not trustworthy"
    }
    expect_grep '^mcalltree: (durations under [0-9]+ ns are not trustworthy: a probe call costs about [0-9.]+ ns|the cost of a probe call could not be measured reliably: .* and durations under [0-9]+ ns are not trustworthy$)' \
        "$ERR" "$j-short: the warning"
    expect_restored "$PID" "after $j-short"
    stop_jvm "$PID"
done
trace_done
