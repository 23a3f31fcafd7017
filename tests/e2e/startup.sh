#!/usr/bin/env bash
# Tracing from the JVM's start, on every test JDK:
# -agentpath:libmcalltree.so=trace=...,out=DIR/{pid}.ndjson on tgt.Start,
# which calls tgt.StartEntry.run five times as soon as it starts and exits:
# the file holds the start line, the plan, the five calls (entry and callee:
# the first calls too) and the end; a regex holding a comma written %2C;
# count=; aggregate: one final summary of exactly the calls made, right
# before the end line at the JVM's exit; a JVM that never loads the entry
# class (end with entry_loaded false); malformed options (an unknown name,
# depth=0, no out=, a bad %-escape, interval= without aggregate) and an
# existing out file: the JVM runs to completion, exit
# status 0, with the reason on its stderr, and no file is written;
# skip-trivial: the one-line callee left as it is as its class loads.
# Gates judged by the agent: max-calls at the true count (run() calls
# twice() once) with a percentile and a budget that hold: a gate line with
# passed true right before the end, and each gate's own verdict; max-calls
# one under: passed false with the message naming the method, the figure
# and the limit, and the gate's verdict with it; a malformed
# max-calls item: the message on stderr, the JVM untraced.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# run_java JDK NAME OPTIONS ARGS...: java with the agent and OPTIONS, tgt.Start
# ARGS, bounded to 60 s; stdout and stderr in $MCT_TMP/NAME.out/.err; sets RC.
run_java() {
    local jdk=$1 name=$2 opts=$3
    shift 3
    OUT=$MCT_TMP/$name.out
    ERR=$MCT_TMP/$name.err
    RC=0
    timeout 60 "$jdk/bin/java" -Xshare:auto "-agentpath:$MCT_AGENT=$opts" -cp "$MCT_CLASSES" tgt.Start "$@" \
        >"$OUT" 2>"$ERR" || RC=$?
}

# the_file DIR WHAT: the one file in DIR, in FILE.
the_file() {
    local n
    n=$(find "$1" -type f | wc -l)
    [ "$n" = 1 ] || fail "$2: $n files in $1, want 1"
    FILE=$(find "$1" -type f)
}

# calls FILE: FILE's call lines, in FILE.calls.
calls() {
    grep '"type":"call"' "$1" >"$1.calls" || true
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")

    note "JDK $j: five calls right at the start"
    d=$MCT_TMP/$j-now
    mkdir -p "$d"
    run_java "$jdk" "$j-now" "trace=tgt.StartEntry.run,depth=2,regex=tgt%5C..*,out=$d/{pid}.ndjson" now 5
    expect_rc 0 "the traced JVM"
    the_file "$d" "out={pid}"
    case $FILE in
        "$d"/[0-9]*.ndjson) ;;
        *) fail "{pid} was not replaced: $FILE" ;;
    esac
    head -n 1 "$FILE" | grep -q '^{"type":"start","pid":[0-9]*,.*"entry":"tgt.StartEntry.run"}$' ||
        fail "the first line is not the start line: $(head -n 1 "$FILE")"
    sed -n 2p "$FILE" | grep -q '^{"type":"plan",' || fail "the second line is not the plan"
    tail -n 1 "$FILE" | grep -q '^{"type":"end","reason":"jvm_exit",.*"printed":5' ||
        fail "the last line is not the end at the JVM's exit with 5 calls: $(tail -n 1 "$FILE")"
    calls "$FILE"
    check_calls "$FILE.calls" 5 "the calls at the start" -D 2
    expect_outline "$FILE.calls" "the calls at the start" <<'OUTLINE'
tgt.StartEntry.run calls=1 throws=0
  tgt.StartEntry.twice calls=1 throws=0
OUTLINE

    note "JDK $j: skip-trivial: twice(), a one-line leaf, left as it is as its class loads"
    d=$MCT_TMP/$j-skip
    mkdir -p "$d"
    run_java "$jdk" "$j-skip" "trace=tgt.StartEntry.run,depth=2,regex=tgt%5C..*,skip-trivial,out=$d/t.ndjson" now 5
    expect_rc 0 "the JVM with skip-trivial"
    expect_no_grep 'mcalltree' "$ERR" "skip-trivial"
    calls "$d/t.ndjson"
    check_calls "$d/t.ndjson.calls" 5 "skip-trivial" -D 2
    expect_outline "$d/t.ndjson.calls" "skip-trivial" <<'OUTLINE'
tgt.StartEntry.run calls=1 throws=0
OUTLINE

    note "JDK $j: a regex with a comma, written %2C; count= ends the trace, not the JVM"
    f=$MCT_TMP/$j-comma.ndjson
    LOG=$MCT_TMP/jvm-$j-comma.log
    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=trace=tgt.StartEntry.run(I)J,depth=2,regex=tgt%5C.Start(Entry%7CX)%7B0%2C1%7D,count=2,out=$f")
    start_target "$jdk" "$LOG" tgt.Start later 0
    unset MCT_JVM_OPTS
    wait_until 30 grep -q '"type":"end"' "$f" || fail "count=2: no end line within 30 s"
    tail -n 1 "$f" | grep -q '^{"type":"end","reason":"count",' || fail "count=2: the last line is not the end"
    alive "$TARGET_PID" || fail "count=2: the JVM did not keep running"
    stop_target "$TARGET_PID"
    grep -q 'mcalltree' "$LOG" && { cat "$LOG" >&2; fail "the %2C regex: a message on the JVM's stderr"; }
    calls "$f"
    check_calls "$f.calls" 2 "count=2" -D 2
    expect_outline "$f.calls" "the %2C regex" <<'OUTLINE'
tgt.StartEntry.run calls=1 throws=0
  tgt.StartEntry.twice calls=1 throws=0
OUTLINE

    note "JDK $j: aggregate: the final summary at the JVM's exit, before the end"
    f=$MCT_TMP/$j-agg.ndjson
    run_java "$jdk" "$j-agg" "trace=tgt.StartEntry.run,depth=2,aggregate,slowest=2,interval=60,out=$f" now 7
    expect_rc 0 "the JVM with aggregate"
    expect_no_grep 'mcalltree' "$ERR" "aggregate's options"
    # the interval never ticked: its calls come as the last interval's
    # summary, right before the final one, which covers them all
    [ "$(grep -c '^{"type":"summary","final":true' "$f")" = 1 ] || fail "aggregate: want one final summary: $(cat "$f")"
    [ "$(grep -c '^{"type":"summary","final":false,"calls":7,' "$f")" = 1 ] ||
        fail "aggregate: want the last interval's summary of the 7 calls: $(cat "$f")"
    [ "$(grep -c '^{"type":"call"' "$f")" = 0 ] || fail "aggregate: call lines in the file"
    tail -n 2 "$f" | head -n 1 | grep -q '^{"type":"summary","final":true,"calls":7,' ||
        fail "aggregate: the line before the end is not the final summary of 7 calls: $(tail -n 2 "$f" | head -n 1)"
    tail -n 2 "$f" | head -n 1 | grep -q '"slowest":\[{' || fail "aggregate: slowest=2 kept no call"
    tail -n 1 "$f" | grep -q '^{"type":"end","reason":"jvm_exit",' || fail "aggregate: the last line is not the end"

    note "JDK $j: an entry class that never loads"
    f=$MCT_TMP/$j-never.ndjson
    run_java "$jdk" "$j-never" "trace=tgt.StartEntry.run,out=$f" never 200
    expect_rc 0 "the JVM that never loads the class"
    [ "$(wc -l <"$f")" = 2 ] || fail "never: $(wc -l <"$f") lines, want start and end"
    tail -n 1 "$f" | grep -q '^{"type":"end","reason":"jvm_exit",.*"entry_loaded":false}$' ||
        fail "never: the end line does not say entry_loaded false: $(tail -n 1 "$f")"

    note "JDK $j: malformed options and an existing file leave the JVM untraced"
    d=$MCT_TMP/$j-bad
    mkdir -p "$d"
    for bad in "unknown option 'bogus'|trace=tgt.StartEntry.run,bogus=1,out=$d/a" \
               "option 'depth': give an integer from 1 to 64, not '0'|trace=tgt.StartEntry.run,depth=0,out=$d/b" \
               "option 'trace' needs out=FILE|trace=tgt.StartEntry.run,depth=2" \
               "option 'regex': '%zz' is not %XX|trace=tgt.StartEntry.run,regex=a%zz,out=$d/c" \
               "option 'interval' needs aggregate|trace=tgt.StartEntry.run,interval=1,out=$d/e" \
               "option 'min-ms' cannot be used with aggregate|trace=tgt.StartEntry.run,aggregate,min-ms=1,out=$d/f"; do
        msg=${bad%%|*}
        run_java "$jdk" "$j-bad" "${bad#*|}" now 3
        expect_rc 0 "malformed options (${bad#*|})"
        grep -qF "mcalltree agent: $msg" "$ERR" || {
            cat "$ERR" >&2
            fail "malformed options (${bad#*|}): no message '$msg' on the JVM's stderr"
        }
        grep -q 'the JVM runs untraced' "$ERR" || fail "malformed options: the message does not say untraced"
    done
    [ -z "$(ls -A "$d")" ] || fail "malformed options: files were written: $(ls "$d")"
    echo keep >"$d/exists"
    run_java "$jdk" "$j-exists" "trace=tgt.StartEntry.run,out=$d/exists" now 3
    expect_rc 0 "an existing out file"
    expect_grep 'cannot create the trace file .*exists: File exists' "$ERR" "an existing out file"
    [ "$(cat "$d/exists")" = keep ] || fail "an existing out file was changed"
done
for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")

    # min-calls=1: of the 5 calls back to back at the start, the agent may
    # trace only the first (the others not traced, busy), too few for a p50.
    note "JDK $j: gates judged by the agent, the verdict right before the end"
    d=$MCT_TMP/$j-gates
    mkdir -p "$d"
    run_java "$jdk" "$j-gate-pass" "trace=tgt.StartEntry.run,depth=2,regex=tgt%5C..*,out=$d/pass.ndjson,max-calls=tgt.StartEntry.twice=1,max-calls=tgt.StartEntry.twice(I)J=1,percentile=50,fail-over-ms=60000,min-calls=1,budget=tgt.StartEntry.twice:max=60000" now 5
    expect_rc 0 "the JVM whose gates hold"
    f=$d/pass.ndjson
    tail -n 2 "$f" | head -n 1 | grep -qxF '{"type":"gate","passed":true,"failures":[],"gates":[{"gate":"max-calls tgt.StartEntry.twice=1","passed":true,"failures":[]},{"gate":"max-calls tgt.StartEntry.twice(I)J=1","passed":true,"failures":[]},{"gate":"percentile 50 fail-over-ms 60000","passed":true,"failures":[]},{"gate":"budget tgt.StartEntry.twice:max=60000","passed":true,"failures":[]}]}' ||
        fail "gates at the true count: the line before the end is not a passed gate: $(tail -n 2 "$f")"
    tail -n 1 "$f" | grep -q '^{"type":"end",' || fail "gates: the last line is not the end"
    [ "$(grep -c '"type":"gate"' "$f")" = 1 ] || fail "gates: not exactly one gate line"
    run_java "$jdk" "$j-gate-fail" "trace=tgt.StartEntry.run,depth=2,regex=tgt%5C..*,out=$d/fail.ndjson,max-calls=tgt.StartEntry.twice=0" now 5
    expect_rc 0 "the JVM whose gate fails (its exit status is never changed)"
    f=$d/fail.ndjson
    tail -n 2 "$f" | head -n 1 | grep -qxF '{"type":"gate","passed":false,"failures":["max-calls tgt.StartEntry.twice=0: tgt.StartEntry.twice(I)J was called 1 times in one entry call, over the limit of 0"],"gates":[{"gate":"max-calls tgt.StartEntry.twice=0","passed":false,"failures":["max-calls tgt.StartEntry.twice=0: tgt.StartEntry.twice(I)J was called 1 times in one entry call, over the limit of 0"]}]}' ||
        fail "max-calls one under the true count: $(tail -n 2 "$f" | head -n 1)"
    tail -n 1 "$f" | grep -q '^{"type":"end",' || fail "a failed gate: the last line is not the end"
    calls "$f"
    check_calls "$f.calls" 5 "a failed gate: the calls are still written" -D 2

    note "JDK $j: a malformed max-calls item leaves the JVM untraced"
    run_java "$jdk" "$j-gate-bad" "trace=tgt.StartEntry.run,max-calls=tgt.StartEntry.twice,out=$d/bad.ndjson" now 3
    expect_rc 0 "a malformed max-calls item"
    grep -qF "mcalltree agent: option 'max-calls': max-calls takes CLASS.METHOD=N (com.shop.Repo.find=1), got 'tgt.StartEntry.twice'; the JVM runs untraced" "$ERR" || {
        cat "$ERR" >&2
        fail "a malformed max-calls item: no message on the JVM's stderr"
    }
    [ ! -e "$d/bad.ndjson" ] || fail "a malformed max-calls item: the file was written"
done
trace_done
