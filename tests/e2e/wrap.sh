#!/usr/bin/env bash
# The wrap form, on every test JDK: mcalltree ... -- COMMAND runs
# COMMAND with the agent in JAVA_TOOL_OPTIONS. A wrapped java (tgt.Wrapped)
# that calls tgt.StartEntry.run right at its start: those calls are written,
# tagged with the JVM's pid, with a regex holding a comma and an agent
# library whose path has a space, and the JAVA_TOOL_OPTIONS that was there
# is kept; a shell script starting two JVMs one after the other: each
# traced and tagged with its own pid (json, and tree's "pid N" lines); exit
# statuses: COMMAND's own, 127 for a COMMAND not found, 4 for --fail-over-ms
# with no call to judge (and COMMAND's non-zero status before it), a JVM
# that ignores JAVA_TOOL_OPTIONS reported, usage errors; --aggregate: one
# final summary per JVM of exactly its calls, tagged with its pid;
# --max-calls per JVM at the true count passes (COMMAND's 0), one under it
# exits 4 naming the method and the pid (also on the final summary of
# --aggregate), a method the plan does not trace exits 1; the private
# directory is removed.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# wrap NAME MCT_ARGS... -- COMMAND...: the client bounded to 120 s, its
# stdout and stderr in $MCT_TMP/NAME.out/.err, output to $MCT_TMP/NAME.json
# (-o, given by the caller where wanted); sets RC, OUT, ERR.
wrap() {
    local name=$1
    shift
    OUT=$MCT_TMP/$name.out
    ERR=$MCT_TMP/$name.err
    MCT_LAST_ERR=$ERR
    RC=0
    TMPDIR=$MCT_TMP/tmp timeout 120 "$MCT" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

# pids_in FILE: the distinct "pid" values of FILE's lines, sorted.
pids_in() {
    sed -n 's/.*,"pid":\([0-9]*\)}$/\1/p' "$1" | sort -u
}

mkdir -p "$MCT_TMP/tmp" "$MCT_TMP/a b"
cp "$MCT_AGENT" "$MCT_TMP/a b/"
SPACED_AGENT="$MCT_TMP/a b/$(basename "$MCT_AGENT")"

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    java=("$jdk/bin/java" -Xshare:auto -cp "$MCT_CLASSES")

    note "JDK $j: a wrapped java calling the entry method at once, exit status 3"
    json=$MCT_TMP/$j-one.json
    JAVA_TOOL_OPTIONS=-Dwrapped.prop=kept \
        wrap "$j-one" --agent "$SPACED_AGENT" -o "$json" tgt.StartEntry 'run(I)J' 2 'tgt\.Start(Entry|X){0,1}' \
        -- "${java[@]}" tgt.Wrapped 5 3
    expect_rc 3 "the wrapped java's own status"
    expect_grep '^prop=kept$' "$OUT" "the JAVA_TOOL_OPTIONS that was there"
    expect_grep '^mcalltree: JVM pid [0-9]+ \(.*\): tracing tgt.StartEntry.run' "$ERR" "the JVM traced"
    expect_no_grep 'mcalltree agent:' "$ERR" "the agent's options (a comma, a space in its path)"
    [ "$(wc -l <"$json")" = 5 ] || fail "the first calls: $(wc -l <"$json") lines, want 5"
    check_calls "$json" 5 "the first calls" -D 2
    expect_outline "$json" "the first calls" <<'OUTLINE'
tgt.StartEntry.run calls=1 throws=0
  tgt.StartEntry.twice calls=1 throws=0
OUTLINE
    pid=$(pids_in "$json")
    [ "$(echo "$pid" | wc -l)" = 1 ] && [ -n "$pid" ] || fail "the calls are not tagged with one pid: $pid"
    expect_grep "^mcalltree: JVM pid $pid \\(" "$ERR" "the tag is the traced JVM's pid"

    note "JDK $j: a script starting two JVMs one after the other"
    json=$MCT_TMP/$j-two.json
    script=$MCT_TMP/two.sh
    printf '#!/bin/sh\n"$@" tgt.Wrapped 2 0 && "$@" tgt.Wrapped 3 0\n' >"$script"
    chmod +x "$script"
    wrap "$j-two" -o "$json" tgt.StartEntry run 2 'tgt\..*' -- "$script" "${java[@]}"
    expect_rc 0 "two JVMs"
    pids=$(pids_in "$json")
    [ "$(echo "$pids" | wc -l)" = 2 ] || fail "two JVMs: pids '$pids' in the output, want two"
    set -- $pids
    n1=$(grep -c ",\"pid\":$1}\$" "$json")
    n2=$(grep -c ",\"pid\":$2}\$" "$json")
    [ "$(printf '%s\n' "$n1" "$n2" | sort | tr '\n' ' ')" = "2 3 " ] ||
        fail "two JVMs: $n1 and $n2 calls, want 2 and 3"
    [ "$(grep -c '^mcalltree: JVM pid [0-9]* (.*): tracing' "$ERR")" = 2 ] || fail "two JVMs: not both reported"
    grep ",\"pid\":$1}\$" "$json" >"$json.1"
    grep ",\"pid\":$2}\$" "$json" >"$json.2"
    check_calls "$json.1" "$n1" "the first JVM" -D 2
    check_calls "$json.2" "$n2" "the second JVM" -D 2
    tree=$MCT_TMP/$j-two.tree
    wrap "$j-two-tree" -f tree -o "$tree" tgt.StartEntry run 2 'tgt\..*' -- "$script" "${java[@]}"
    expect_rc 0 "two JVMs, -f tree"
    [ "$(grep -c '^pid [0-9]*$' "$tree")" = 2 ] || fail "-f tree: want a 'pid N' line per JVM"

    note "JDK $j: --aggregate, two JVMs: one final summary each, of their own calls"
    json=$MCT_TMP/$j-agg.json
    wrap "$j-agg" --aggregate --slowest 1 -o "$json" tgt.StartEntry run 2 'tgt\..*' -- "$script" "${java[@]}"
    expect_rc 0 "--aggregate, two JVMs"
    [ "$(wc -l <"$json")" = 2 ] || fail "--aggregate: $(wc -l <"$json") lines, want a summary per JVM"
    [ "$(grep -c '^{"type":"summary","final":true,' "$json")" = 2 ] || fail "--aggregate: not two final summaries"
    [ "$(pids_in "$json" | wc -l)" = 2 ] || fail "--aggregate: the summaries are not tagged with two pids"
    [ "$(sed -n 's/^{"type":"summary","final":true,"calls":\([0-9]*\),.*/\1/p' "$json" | sort | tr '\n' ' ')" = "2 3 " ] ||
        fail "--aggregate: the summaries' calls are not 2 and 3: $(cut -c1-80 "$json")"
    for pid in $(pids_in "$json"); do
        expect_grep "^mcalltree: JVM pid $pid: 1 summary written" "$ERR" "--aggregate: JVM $pid's end"
    done

    note "JDK $j: --max-calls per JVM, on the calls and on the final summary"
    wrap "$j-max1" --max-calls tgt.StartEntry.twice=1 -o "$MCT_TMP/max.json" tgt.StartEntry run 2 'tgt\..*' \
        -- "${java[@]}" tgt.Wrapped 4 0
    expect_rc 0 "--max-calls at the true count"
    for agg in "" --aggregate; do
        wrap "$j-max0$agg" $agg --max-calls tgt.StartEntry.twice=0 -o "$MCT_TMP/max.json" tgt.StartEntry run 2 \
            'tgt\..*' -- "$script" "${java[@]}"
        expect_rc 4 "--max-calls $agg one under the true count"
        [ "$(grep -c '^mcalltree: JVM pid [0-9]*: --max-calls tgt.StartEntry.twice=0: tgt.StartEntry.twice(I)J was called 1 times in one entry call, over the limit of 0' "$ERR")" = 2 ] ||
            fail "--max-calls $agg: not said for both JVMs with their pids"
    done
    wrap "$j-max7" --max-calls tgt.StartEntry.twice=0 -o "$MCT_TMP/max.json" tgt.StartEntry run 2 'tgt\..*' \
        -- "${java[@]}" tgt.Wrapped 4 7
    expect_rc 7 "COMMAND's status before a failed --max-calls"
    wrap "$j-typo" --max-calls tgt.StartEntry.twic=1 -o "$MCT_TMP/max.json" tgt.StartEntry run 2 'tgt\..*' \
        -- "${java[@]}" tgt.Wrapped 4 0
    expect_rc 1 "--max-calls naming a method the plan lacks"
    expect_grep '^mcalltree: JVM pid [0-9]+: --max-calls tgt.StartEntry.twic=1: no method tgt.StartEntry.twic ' "$ERR" \
        "--max-calls naming a method the plan lacks"

    note "JDK $j: exit statuses and reports"
    wrap "$j-none" tgt.StartEntry run 2 'tgt\..*' -- "$MCT_TMP/no such command" x
    expect_rc 127 "a COMMAND not found"
    expect_grep "no such command: command not found" "$ERR" "a COMMAND not found"
    wrap "$j-gate" --fail-over-ms 1000 -o "$MCT_TMP/gate.json" tgt.StartEntry run 2 'tgt\..*' \
        -- "${java[@]}" tgt.Wrapped 0 0
    expect_rc 4 "--fail-over-ms and no call"
    expect_grep 'no call to judge' "$ERR" "--fail-over-ms and no call"
    expect_grep '^mcalltree: JVM pid [0-9]+: tgt.StartEntry never loaded' "$ERR" "a JVM whose entry class never loaded"
    wrap "$j-gate7" --fail-over-ms 1000 -o "$MCT_TMP/gate.json" tgt.StartEntry run 2 'tgt\..*' \
        -- "${java[@]}" tgt.Wrapped 0 7
    expect_rc 7 "COMMAND's status before the gate's"
    wrap "$j-ignored" tgt.StartEntry run 2 'tgt\..*' -- env -u JAVA_TOOL_OPTIONS "${java[@]}" tgt.Wrapped 2 0
    expect_rc 0 "a JVM without the agent"
    expect_grep '^prop=null$' "$OUT" "a JVM without the agent ran"
    expect_grep 'no JVM loaded the agent' "$ERR" "a JVM without the agent"
done

note "usage errors"
wrap usage1 1234 tgt.StartEntry run 2 'tgt\..*' -- true
expect_rc 1 "a pid and a command"
expect_grep 'a <pid> and a command \(after --\) exclude each other' "$ERR" "a pid and a command"
wrap usage2 tgt.StartEntry run 2 'tgt\..*' --
expect_rc 1 "no command"
expect_grep 'missing COMMAND after --' "$ERR" "no command"
wrap usage3 -t 5 tgt.StartEntry run 2 'tgt\..*' -- true
expect_rc 1 "--timeout with a command"
expect_grep '--timeout cannot be used with a command' "$ERR" "--timeout with a command"
wrap usage4 tgt.StartEntry run 2 -- true
expect_rc 1 "too few arguments"
expect_grep 'missing argument before --: <regex>' "$ERR" "too few arguments"
note "a hang-up sent to mcalltree reaches COMMAND, and the private directory goes"
TMPDIR=$MCT_TMP/tmp "$MCT" tgt.StartEntry run 2 'tgt\..*' -- sleep 31.25 >"$MCT_TMP/hup.out" 2>"$MCT_TMP/hup.err" &
hup=$!
wait_until 20 pgrep -f '^sleep 31.25$' >/dev/null || fail "COMMAND did not start"
kill -HUP "$hup"
RC=0
wait "$hup" || RC=$?
MCT_LAST_ERR=$MCT_TMP/hup.err
expect_rc 129 "COMMAND killed by the hang-up"
if pgrep -f '^sleep 31.25$' >/dev/null; then
    pkill -f '^sleep 31.25$'
    fail "COMMAND outlived mcalltree's hang-up"
fi
[ -z "$(ls -A "$MCT_TMP/tmp")" ] || fail "the private directories were not removed: $(ls "$MCT_TMP/tmp")"
trace_done
