#!/usr/bin/env bash
# Several JVMs in one command (client/multi.c), on every test JDK, against
# scenario counted (tgt.Counted.run called exactly as often as asked), three
# JVMs started from a jar of this test's own (so that --jvms selects them
# and no other test's):
# - --aggregate over the pid list A,X,B,C where X is not a JVM (a sleep) and
#   C is killed mid-session: A and B complete; the one summary printed is
#   their exact merge (calls, entries and the step node's calls are the sum
#   of what A and B ran); stderr names X (not a Java VM) and C (exited),
#   each with its status; the exit status is X's (2, the first to fail);
# - per call, A,B: every call line carries its JVM's "pid" and "host", and
#   each JVM's count is what it ran; the gates judge the merged run
#   (--max-calls over the calls of both);
# - --jvms with the jar's name: A and B (C is gone), nothing else;
# - usage errors: --interval and --plan with several JVMs, a pid twice,
#   --jvms with a pid, a bad --jvms regex;
# - the command killed (SIGKILL) mid-session: each JVM's session stops
#   (its process is told), and the JVMs are restored.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
HOST=$(hostname)

note "usage errors"
usage() {
    local what=$1 msg=$2
    shift 2
    trace usage "$@"
    expect_rc 1 "$what"
    expect_grep "$msg" "$ERR" "$what: the message"
}
usage "--interval" '^mcalltree: --interval cannot be used with several JVMs \(a list of pids\): give one pid' \
    --aggregate --interval 1 1,2 tgt.Counted run 2 "$RX"
usage "--plan" '^mcalltree: --plan cannot be used with several JVMs \(--jvms\)' --plan --jvms x tgt.Counted run 2 "$RX"
usage "a pid twice" "^mcalltree: pid 7 is given twice in '7,8,7'" 7,8,7 tgt.Counted run 2 "$RX"
usage "a bad list" "^mcalltree: <pid> must be a pid or a list of pids separated by commas" 7,,8 tgt.Counted run 2 "$RX"
usage "--jvms and a pid" "too many arguments, starting at 'x' \(--jvms selects the JVMs: give no <pid>\)" \
    --jvms y 7 tgt.Counted run 2 x
trace badrx --jvms 'a(' tgt.Counted run 2 "$RX"
expect_rc 1 "a bad --jvms regex"
expect_grep "^mcalltree: --jvms 'a\(' is not a POSIX extended regex" "$ERR" "a bad --jvms regex: the message"

# go DIR N: DIR's JVM runs N calls; waits until they are done.
go() {
    rm -f "$1/done"
    echo "$2" >"$1/go.tmp" && mv "$1/go.tmp" "$1/go"   # whole when the JVM reads it
    wait_until 60 test -e "$1/done" || fail "$1: the JVM did not run its $2 calls"
}

# count FILE PID: the call lines of FILE tagged with PID and this host.
count() {
    grep -c "^{\"type\":\"call\",.*,\"pid\":$2,\"host\":\"$HOST\"}\$" "$1"
}

# stop_client WHAT: SIGINT to the background client, which must end.
stop_client() {
    kill -INT "$BG_PID"
    wait_until 60 sh -c "! kill -0 $BG_PID 2>/dev/null" || fail "$1: the client did not end after SIGINT"
    RC=0
    wait "$BG_PID" || RC=$?
    MCT_LAST_ERR=$BG_ERR
}

# restored PID: the JVM answers --info with no session.
restored() {
    "$MCT" --info "$1" 2>/dev/null | grep -q '"session":null'
}

# tracing N: the client's stderr says N sessions began.
tracing() {
    [ -e "$BG_ERR" ] && [ "$(grep -c '^mcalltree: JVM pid [0-9]*: tracing tgt.Counted.run' "$BG_ERR")" -ge "$1" ]
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    JAR=$MCT_TMP/many-$j-$$.jar
    "$jdk/bin/jar" cfe "$JAR" tgt.Main -C "$MCT_CLASSES" tgt || fail "cannot make $JAR"
    for n in A B C; do
        mkdir -p "$MCT_TMP/$j-$n"
        start_target "$jdk" "$MCT_TMP/jvm-$j-$n.log" -jar "$JAR" counted "$MCT_TMP/$j-$n"
        eval "P$n=$TARGET_PID"
    done
    sleep 600 &
    PX=$!
    MCT_PIDS="$MCT_PIDS $PX"

    note "JDK $j: --aggregate over A,X,B,C: X is no JVM, C is killed mid-session"
    background "$j-agg" --aggregate --include-warmup -t 300 "$PA,$PX,$PB,$PC" tgt.Counted run 2 "$RX"
    wait_until 60 tracing 3 || fail "the three sessions did not begin: $(cat "$BG_ERR")"
    go "$MCT_TMP/$j-A" 30
    go "$MCT_TMP/$j-B" 50
    go "$MCT_TMP/$j-C" 20
    kill -9 "$PC"
    wait_until 60 grep -q "^mcalltree: JVM pid $PC: the target JVM (pid $PC) exited during the session" "$BG_ERR" ||
        fail "C's end was not said: $(cat "$BG_ERR")"
    stop_client "--aggregate"
    expect_rc 2 "A,X,B,C: X's status"
    expect_grep "^mcalltree: JVM pid $PX: process $PX \(sleep\) is not a Java VM" "$BG_ERR" "X refused"
    expect_grep "^mcalltree: JVM pid $PX: its session failed \(exit status 2: cannot attach or connect\)" \
        "$BG_ERR" "X's status"
    expect_grep "^mcalltree: JVM pid $PC: its session failed \(exit status 5: " "$BG_ERR" "C's status"
    expect_grep "^mcalltree: 2 of 4 JVMs failed; the exit status is the first one's" "$BG_ERR" "the failures counted"
    [ "$(wc -l <"$BG_OUT")" = 1 ] || fail "--aggregate: $(wc -l <"$BG_OUT") lines, want the one merged summary"
    [ "$("$TREE" call "$BG_OUT" type)" = summary ] || fail "--aggregate: not a summary"
    [ "$("$TREE" call "$BG_OUT" final)" = true ] || fail "--aggregate: the summary is not final"
    [ "$("$TREE" call "$BG_OUT" calls)" = 80 ] || soft_fail "merged calls: $("$TREE" call "$BG_OUT" calls), want 30 + 50"
    [ "$(field "$BG_OUT" run entries)" = 80 ] || soft_fail "merged run entries: $(field "$BG_OUT" run entries)"
    [ "$(field "$BG_OUT" run/step calls)" = 160 ] || soft_fail "merged step calls: $(field "$BG_OUT" run/step calls)"

    note "JDK $j: per call over A,B; --max-calls judged on the calls of both"
    background "$j-calls" --max-calls tgt.Counted.step=1 --junit "$MCT_TMP/$j-calls.xml" "$PA,$PB" tgt.Counted run 2 "$RX"
    wait_until 60 tracing 2 || fail "the two sessions did not begin: $(cat "$BG_ERR")"
    go "$MCT_TMP/$j-A" 7
    go "$MCT_TMP/$j-B" 9
    wait_until 30 has_lines "$BG_OUT" 16 || fail "the 16 calls did not come"
    stop_client "per call"
    expect_rc 4 "--max-calls step=1 (each call makes 2)"
    [ "$(wc -l <"$BG_OUT")" = 16 ] || fail "A,B per call: $(wc -l <"$BG_OUT") lines, want 16 calls"
    # --junit: the merged run's one gate, failed, in a suite naming both JVMs
    python3 - "$MCT_TMP/$j-calls.xml" <<'PY' || fail "--junit over two JVMs: $(cat "$MCT_TMP/$j-calls.xml")"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
cases = root.findall('.//testcase')
assert root.get('tests') == '1' and root.get('failures') == '1', root.attrib
assert len(cases) == 1 and cases[0].find('failure') is not None
assert '(2 JVMs)' in cases[0].get('classname', '') + ''.join(s.get('name', '') for s in root.findall('testsuite'))
PY
    # each JVM's calls numbered on their own, checked apart
    grep "\"pid\":$PA,\"host\":\"$HOST\"}\$" "$BG_OUT" >"$BG_OUT.A"
    grep "\"pid\":$PB,\"host\":\"$HOST\"}\$" "$BG_OUT" >"$BG_OUT.B"
    check_calls "$BG_OUT.A" 7 "A's calls, tagged with A's pid and the host"
    check_calls "$BG_OUT.B" 9 "B's calls, tagged with B's pid and the host"

    note "JDK $j: --jvms selects A and B by their jar"
    background "$j-jvms" --jvms ".*/many-$j-$$\\.jar" tgt.Counted run 2 "$RX"
    wait_until 60 tracing 2 || fail "--jvms: the two sessions did not begin: $(cat "$BG_ERR")"
    go "$MCT_TMP/$j-A" 3
    go "$MCT_TMP/$j-B" 4
    wait_until 30 has_lines "$BG_OUT" 7 || fail "--jvms: the 7 calls did not come"
    stop_client "--jvms"
    expect_rc 0 "--jvms"
    [ "$(grep -c '^mcalltree: JVM pid [0-9]*: tracing' "$BG_ERR")" = 2 ] || fail "--jvms: not two JVMs: $(cat "$BG_ERR")"
    [ "$(count "$BG_OUT" "$PA")" = 3 ] || soft_fail "--jvms: A's calls: $(count "$BG_OUT" "$PA"), want 3"
    [ "$(count "$BG_OUT" "$PB")" = 4 ] || soft_fail "--jvms: B's calls: $(count "$BG_OUT" "$PB"), want 4"
    note "JDK $j: the command killed: its sessions stop, the JVMs are restored"
    background "$j-killed" -t 300 "$PA,$PB" tgt.Counted run 2 "$RX"
    wait_until 60 tracing 2 || fail "killed: the two sessions did not begin: $(cat "$BG_ERR")"
    kill -9 "$BG_PID"
    wait_until 30 restored "$PA" || fail "killed: JVM A still has its session"
    wait_until 30 restored "$PB" || fail "killed: JVM B still has its session"
    expect_restored "$PA" "killed: A"
    expect_restored "$PB" "killed: B"
    stop_target "$PA"
    stop_target "$PB"
    kill "$PX"
done
trace_done
