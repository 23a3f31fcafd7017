#!/usr/bin/env bash
# --aggregate, --interval, --slowest, on every test JDK,
# against scenario agg (tgt.Agg: counts per entry call known exactly, see
# Agg.java):
# - 42 entry calls (-n 42) give one final summary whose counts are exact:
#   calls, entries, calls_min/calls_max, throws of every node; with
#   --slowest 42 it keeps all 42 calls whole, and the 2 ms sleep's p50/p99
#   are within the histogram's stated error (1/128) of the exact
#   nearest-rank quantiles of those calls' nap times, each at least the
#   sleep asked for;
# - --interval gives summaries with "final":false, then exactly one
#   "final":true, last, covering at least the calls of the intervals;
# - -f tree and -f folded render the summary;
# - --interval without --aggregate, --slowest 5000, -f chrome --aggregate,
#   --min-ms with --aggregate are usage errors (status 1) with their message.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

note "usage errors"
usage_error() {
    local what=$1 msg=$2
    shift 2
    trace usage "$@" 1 tgt.Agg run 2 "$RX"
    expect_rc 1 "$what"
    expect_grep "$msg" "$ERR" "$what: the message"
}
usage_error "--interval without --aggregate" \
    '^mcalltree: --interval needs --aggregate \(it says how often a summary is written\); try' --interval 1
usage_error "--slowest without --aggregate" '^mcalltree: --slowest needs --aggregate' --slowest 3
usage_error "--slowest 5000" "^mcalltree: --slowest must be an integer from 0 to 1000, got '5000';" \
    --aggregate --slowest 5000
usage_error "--interval 0" "^mcalltree: --interval must be a number of seconds of at least 0.001, got '0';" \
    --aggregate --interval 0
usage_error "-f chrome --aggregate" \
    '^mcalltree: -f chrome cannot be used with --aggregate: the chrome format shows single calls, not summaries \(use -f json, tree or folded\);' \
    -f chrome --aggregate
usage_error "--min-ms --aggregate" '^mcalltree: --min-ms cannot be used with --aggregate: a summary covers every call' \
    --aggregate --min-ms 1

# one FILE PATH KEY WANT: the one summary of FILE has KEY WANT at node PATH.
one() {
    local got
    got=$(field "$1" "$2" "$3")
    [ "$got" = "$4" ] || soft_fail "$1: $2 $3 is '$got', want '$4'"
}

# near GOT EXACT WHAT: GOT is within EXACT/128 of EXACT.
near() {
    local d=$(($1 - $2))
    [ "${d#-}" -le $(($2 / 128)) ] || soft_fail "$3: $1 is not within 1/128 of the exact $2"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    scenario "$jdk" agg

    note "JDK $j: 42 entry calls aggregated, all kept whole"
    trace "$j-agg" --aggregate --slowest 42 -n 42 -t 120 "$PID" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate -n 42"
    [ "$(wc -l <"$OUT")" = 1 ] || fail "--aggregate -n 42: $(wc -l <"$OUT") lines, want the one final summary"
    [ "$("$TREE" call "$OUT" type)" = summary ] || fail "--aggregate -n 42: not a summary"
    [ "$("$TREE" call "$OUT" final)" = true ] || fail "--aggregate -n 42: the summary is not final"
    [ "$("$TREE" call "$OUT" calls)" = 42 ] || fail "--aggregate -n 42: calls is not 42"
    [ "$("$TREE" call "$OUT" not_traced)" = 0 ] || soft_fail "--aggregate -n 42: calls not traced"
    for k in calls entries calls_min calls_max throws; do
        case $k in calls | entries) w=42 ;; calls_m*) w=1 ;; throws) w=0 ;; esac
        one "$OUT" run "$k" "$w"
    done
    # node calls entries calls_min calls_max throws
    while read -r node c en mn mx th; do
        one "$OUT" "run/$node" calls "$c"
        one "$OUT" "run/$node" entries "$en"
        one "$OUT" "run/$node" calls_min "$mn"
        one "$OUT" "run/$node" calls_max "$mx"
        one "$OUT" "run/$node" throws "$th"
    done <<'NODES'
part 126 42 3 3 0
branch 21 21 1 1 0
extra 84 42 1 3 0
check 42 42 1 1 6
nap 42 42 1 1 0
NODES

    SLOW=$MCT_TMP/$j-agg.slowest
    "$TREE" slowest "$OUT" >"$SLOW.raw" || fail "--slowest 42: no slowest array"
    # Kept slowest first; seq is the call's rank among those aggregated.
    paste -d ' ' <("$TREE" call "$SLOW.raw" seq) "$SLOW.raw" | sort -n | cut -d ' ' -f 2- >"$SLOW"
    [ "$("$TREE" call "$SLOW" seq | paste -sd ' ')" = "$(seq 1 42 | paste -sd ' ')" ] ||
        fail "--slowest 42: the calls kept are not the 42 aggregated, numbered 1 to 42"
    check_calls "$SLOW" 42 "--slowest 42: the calls kept"
    naps=$(field "$SLOW" run/nap total_ns | sort -n)
    expect_all_ge "$naps" 1990000 "the 2 ms sleep of each call kept"
    p50=$(echo "$naps" | sed -n 21p)
    p99=$(echo "$naps" | sed -n 42p)
    near "$(field "$OUT" run/nap p50_ns)" "$p50" "nap p50_ns"
    near "$(field "$OUT" run/nap p99_ns)" "$p99" "nap p99_ns"
    note "JDK $j: nap p50 $(field "$OUT" run/nap p50_ns) ns (exact $p50), p99 $(field "$OUT" run/nap p99_ns) ns (exact $p99)"

    note "JDK $j: --interval"
    trace "$j-agg-int" --aggregate --interval 0.25 -t 2 "$PID" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate --interval 0.25 -t 2"
    finals=$("$TREE" call "$OUT" final)
    [ "$(echo "$finals" | wc -l)" -ge 3 ] || fail "--interval 0.25 -t 2: fewer than 3 summaries"
    [ "$(echo "$finals" | grep -c true)" = 1 ] || fail "--interval: not exactly one final summary"
    [ "$(echo "$finals" | tail -1)" = true ] || fail "--interval: the final summary is not the last"
    calls=$("$TREE" call "$OUT" calls)
    parts=$(($(echo "$calls" | sed "\$d" | paste -sd+)))
    [ "$(echo "$calls" | tail -1)" -ge "$parts" ] || fail "--interval: the final summary covers fewer calls than the intervals"
    [ "$parts" -ge 1 ] || fail "--interval: the intervals covered no call"

    note "JDK $j: -f tree and -f folded"
    trace "$j-agg-tree" --aggregate -f tree -n 14 -t 60 "$PID" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate -f tree"
    expect_grep '^summary \(final\): 14 entry calls' "$OUT" "-f tree: the summary's head"
    expect_grep 'p50 +p90 +p99' "$OUT" "-f tree: the percentile columns"
    expect_grep '3× +.*tgt\.Agg\.part\(int\)' "$OUT" "-f tree: part's calls per entry call"
    trace "$j-agg-folded" --aggregate -f folded -n 14 -t 60 "$PID" tgt.Agg run 2 "$RX"
    expect_rc 0 "--aggregate -f folded"
    expect_grep '^tgt\.Agg\.run;tgt\.Agg\.nap [0-9]+$' "$OUT" "-f folded: nap's line"
    nap=$(sed -n 's/^tgt\.Agg\.run;tgt\.Agg\.nap //p' "$OUT")
    [ "$nap" -ge $((14 * 1990000)) ] || soft_fail "-f folded: nap's self time $nap is under 14 sleeps"
    expect_restored "$PID" "after the aggregate sessions"
    stop_jvm "$PID"
done
trace_done
