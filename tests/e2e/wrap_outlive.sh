#!/usr/bin/env bash
# The wrap form stops what it started and keeps up with a fast writer, on
# every test JDK. tgt.Main hot (entry calls back to back on 4 threads)
# writes its trace faster than it can be read.
# - A JVM that outlives COMMAND (a shell that starts it in the background
#   and exits): mcalltree exits when COMMAND does, names the JVM on stderr,
#   removes its directory; the JVM's agent notices the removed file, says so
#   on the JVM's stderr and ends the session (--info: no session, no class
#   instrumented) while the JVM runs on.
# - SIGTERM sent to mcalltree while such a JVM is COMMAND reaches it: the
#   JVM exits, and mcalltree with it (143).
# - A COMMAND that changes user (setpriv to nobody) while the agent library
#   is where nobody cannot read it: the JVM still starts (the library is
#   loaded from a copy), runs untraced, and stderr says the real cause (the
#   trace file could not be created) on both sides.
# - The memory for lines not complete yet is capped over all files: a
#   COMMAND that writes three trace files, each a start line and 60 MiB of
#   a line not ended (each under the one-line cap): one or two of them are
#   named and no longer read, not all three, and mcalltree exits 5.
# - A second trace=: JAVA_TOOL_OPTIONS that loads mcalltree with a trace
#   already is refused (exit 1, COMMAND does not run); COMMAND's own
#   -agentpath trace= is said on the JVM's stderr, the wrap's kept.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

# wrap NAME MCT_ARGS... -- COMMAND...: the client bounded to 60 s in the
# background, stdout and stderr in $MCT_TMP/NAME.out/.err; sets WRAP_PID.
wrap_bg() {
    local name=$1
    shift
    OUT=$MCT_TMP/$name.out
    ERR=$MCT_TMP/$name.err
    TMPDIR=$MCT_TMP/tmp timeout 60 "$MCT" "$@" >"$OUT" 2>"$ERR" &
    WRAP_PID=$!
    MCT_PIDS="$MCT_PIDS $WRAP_PID"
}

# ended PID: whether JVM PID has no session and no class instrumented.
ended() {
    run_mct "$MCT_TMP/info.out" "$MCT_TMP/info.err" --info "$1"
    [ "$RC" = 0 ] && [ "$(json_get "$MCT_TMP/info.out" session)" = null ] &&
        [ "$(json_get "$MCT_TMP/info.out" instrumented_classes)" = 0 ]
}

mkdir -p "$MCT_TMP/tmp" "$MCT_TMP/hidden" "$MCT_TMP/pub/tgt"
cp "$MCT_AGENT" "$MCT_TMP/hidden/"
cp "$MCT_CLASSES"/tgt/Start*.class "$MCT_TMP/pub/tgt/"
chmod 711 "$MCT_TMP"
chmod 700 "$MCT_TMP/hidden"
chmod -R a+rX "$MCT_TMP/pub"
note "the lines not complete yet of three files together"
RC=0
TMPDIR=$MCT_TMP/tmp "$MCT" tgt.StartEntry run 2 'tgt\..*' -- sh -c '
    dir=$(printf "%s" "$JAVA_TOOL_OPTIONS" | sed -n "s/.*out=\(.*\)\/{pid}\.ndjson.*/\1/p")
    for pid in 999991 999992 999993; do
        printf "%s\n" "{\"type\":\"start\",\"pid\":$pid,\"vm\":\"x\",\"version\":\"17\",\"entry\":\"a.B.c\"}" >"$dir/$pid.ndjson"
        head -c 62914560 /dev/zero | tr "\0" a >>"$dir/$pid.ndjson"
    done
    sleep 1' >"$MCT_TMP/held.out" 2>"$MCT_TMP/held.err" || RC=$?
MCT_LAST_ERR=$MCT_TMP/held.err
expect_rc 5 "three files' lines not complete yet"
n=$(grep -c "JVM pid 99999[123]: its lines not complete yet and the other JVMs' would take over 128 MiB; ignoring the rest of its trace" \
    "$MCT_TMP/held.err") || true
[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "the cap over all files: $n files dropped, want 1 or 2: $(cat "$MCT_TMP/held.err")"

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    java=("$jdk/bin/java" -Xshare:auto -cp "$MCT_CLASSES")

    note "JDK $j: a JVM that outlives COMMAND, writing fast"
    pidfile=$MCT_TMP/$j-jvm.pid
    jlog=$MCT_TMP/$j-jvm.log
    wrap_bg "$j-outlive" -o /dev/null tgt.Hot run 2 'tgt\..*' -- \
        sh -c 'pf=$1; shift; "$@" >"$0" 2>&1 & echo $! >"$pf.tmp"; mv "$pf.tmp" "$pf"; sleep 3' "$jlog" "$pidfile" "${java[@]}" tgt.Main hot 4 1
    wait_until 30 test -s "$pidfile" || fail "the JVM did not start"
    jpid=$(cat "$pidfile")
    MCT_PIDS="$MCT_PIDS $jpid"
    RC=0
    wait "$WRAP_PID" || RC=$?
    [ "$RC" = 124 ] && fail "mcalltree did not exit when COMMAND did (a fast writer kept it reading)"
    MCT_LAST_ERR=$ERR
    expect_rc 0 "COMMAND's status"
    expect_grep "JVM pid $jpid: still running after COMMAND exited" "$ERR" "the JVM named"
    alive "$jpid" || fail "the JVM did not run on"
    [ -z "$(ls -A "$MCT_TMP/tmp")" ] || fail "the private directory is left: $(ls -A "$MCT_TMP/tmp")"
    wait_until 10 grep -q "the trace file .* was removed: the trace ends" "$jlog" ||
        fail "the agent did not say the removed file: $(cat "$jlog")"
    wait_until 10 ended "$jpid" || fail "the JVM's session did not end: $(cat "$MCT_TMP/info.out")"
    stop_jvm "$jpid"

    note "JDK $j: SIGTERM to mcalltree reaches a fast-writing COMMAND"
    wrap_bg "$j-term" -o /dev/null tgt.Hot run 2 'tgt\..*' -- "${java[@]}" tgt.Main hot 4 1
    wait_until 30 grep -q '^READY' "$OUT" || fail "COMMAND did not start: $(cat "$ERR")"
    sleep 1
    kill -TERM "$WRAP_PID"
    RC=0
    wait "$WRAP_PID" || RC=$?
    MCT_LAST_ERR=$ERR
    expect_rc 143 "SIGTERM forwarded to COMMAND"

    if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
        note "JDK $j: COMMAND changes user; the library is not readable by that user"
        RC=0
        TMPDIR=$MCT_TMP/tmp "$MCT" --agent "$MCT_TMP/hidden/$(basename "$MCT_AGENT")" tgt.StartEntry run 2 \
            'tgt\..*' -- setpriv --reuid=65534 --regid=65534 --clear-groups "$jdk/bin/java" -Xshare:auto \
            -cp "$MCT_TMP/pub" tgt.Start now 3 >"$MCT_TMP/$j-user.out" 2>"$MCT_TMP/$j-user.err" || RC=$?
        MCT_LAST_ERR=$MCT_TMP/$j-user.err
        expect_rc 0 "the JVM of a COMMAND that changes user"
        expect_no_grep "Could not find agent library" "$MCT_TMP/$j-user.err" "the JVM started"
        expect_grep "cannot create the trace file .*: Permission denied; the JVM runs untraced" \
            "$MCT_TMP/$j-user.err" "the agent's cause"
        expect_grep "or a JVM could not create its trace file \(its stderr says why\)" "$MCT_TMP/$j-user.err" \
            "the client's causes"
    fi

    note "JDK $j: a second trace="
    RC=0
    JAVA_TOOL_OPTIONS="-Xss2m -agentpath:$MCT_AGENT=trace=tgt.Other.run,out=/nonexistent/x" \
        TMPDIR=$MCT_TMP/tmp "$MCT" tgt.StartEntry run 2 'tgt\..*' -- touch "$MCT_TMP/ran" \
        >"$MCT_TMP/$j-second.out" 2>"$MCT_TMP/$j-second.err" || RC=$?
    MCT_LAST_ERR=$MCT_TMP/$j-second.err
    expect_rc 1 "a trace already in JAVA_TOOL_OPTIONS"
    expect_grep "JAVA_TOOL_OPTIONS already loads mcalltree with a trace=" "$MCT_TMP/$j-second.err" "the refusal"
    [ -e "$MCT_TMP/ran" ] && fail "COMMAND ran"
    RC=0
    TMPDIR=$MCT_TMP/tmp "$MCT" -o "$MCT_TMP/$j-own.json" tgt.StartEntry run 2 'tgt\..*' -- "$jdk/bin/java" \
        -Xshare:auto "-agentpath:$MCT_AGENT=trace=tgt.StartEntry.twice,out=$MCT_TMP/$j-own.ndjson" \
        -cp "$MCT_CLASSES" tgt.Start now 3 >"$MCT_TMP/$j-own.out" 2>"$MCT_TMP/$j-own.err" || RC=$?
    MCT_LAST_ERR=$MCT_TMP/$j-own.err
    expect_rc 0 "COMMAND with its own trace="
    expect_grep "a second trace= \(tgt.StartEntry.twice, out=$MCT_TMP/$j-own.ndjson\) is ignored: this JVM already traces tgt.StartEntry.run" \
        "$MCT_TMP/$j-own.err" "the second trace= said"
    [ "$(grep -c '"type":"call"' "$MCT_TMP/$j-own.json")" = 3 ] || fail "the wrap's trace was not kept"
    [ -e "$MCT_TMP/$j-own.ndjson" ] && fail "the second trace= wrote its file"
done
echo PASS
