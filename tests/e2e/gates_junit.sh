#!/usr/bin/env bash
# --junit FILE for a trace's gates, on every test JDK: one JUnit test case
# per gate judged, in a well-formed report (xmllint when installed, else
# python3's parser) whose tests/failures counts are the cases':
# - attached to tgt.Dif a (run() calls step() 3 times): --max-calls at the
#   true count and a --percentile that holds pass (2 cases, 0 failures);
#   --max-calls one under fails with the evidence the terminal shows, next
#   to a --max-calls and a --budget that hold (3 cases, 1 failure); the
#   same from the final summary of --aggregate; a gate on a method never
#   called fails as "no call to judge" (never a silent pass); --junit with
#   no gate, or with --plan, is a usage error; an unwritable file is said;
# - the wrap form (tgt.Wrapped, run() calls twice() once): a suite for the
#   JVM, named by its pid, passing at the true count and failing one under;
#   a command that starts no JVM: one failed case, nothing to judge;
# - mcalltree verdict --junit OUT of a startup trace (-agentpath with
#   max-calls= at the true count and one under): a case per gate from the
#   agent's gate line; a file that is not complete: one failed case.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
mkdir -p "$MCT_TMP/tmp"

# junit_check FILE TESTS FAILURES WHAT: FILE is well-formed XML whose
# <testsuites> says TESTS tests and FAILURES failures, and holds as many
# <testcase> and <failure> elements.
junit_check() {
    local file=$1 tests=$2 failures=$3 what=$4 got
    [ -s "$file" ] || fail "$what: no JUnit report $file"
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$file" || fail "$what: $file is not well-formed XML"
    fi
    got=$(python3 - "$file" <<'PY'
import sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("./testsuite/testcase")
failed = [c for c in cases if c.find("failure") is not None]
assert root.get("tests") == str(len(cases)), (root.get("tests"), len(cases))
assert root.get("failures") == str(len(failed)), (root.get("failures"), len(failed))
for s in root.findall("./testsuite"):
    n = s.findall("testcase")
    assert s.get("tests") == str(len(n))
    assert s.get("failures") == str(len([c for c in n if c.find("failure") is not None]))
print(len(cases), len(failed))
PY
) || fail "$what: $file: $got"
    [ "$got" = "$tests $failures" ] || fail "$what: $got tests and failures in $file, want $tests $failures"
}

# junit_failure FILE CASE TEXT WHAT: the failure message of test case CASE
# in FILE is TEXT.
junit_failure() {
    local got
    got=$(python3 - "$1" "$2" <<'PY'
import sys
import xml.etree.ElementTree as ET
for c in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    if c.get("name") == sys.argv[2] and c.find("failure") is not None:
        print(c.find("failure").get("message"))
PY
)
    [ "$got" = "$3" ] || fail "$4: the failure of '$2' is '$got', want '$3'"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    java=("$jdk/bin/java" -Xshare:auto -cp "$MCT_CLASSES")

    note "JDK $j: attached, gates that hold"
    start_target "$jdk" "$MCT_TMP/jvm-$j-dif.log" tgt.Dif a
    PID=$TARGET_PID
    x=$MCT_TMP/$j-pass.xml
    trace "$j-pass" --include-warmup -n 20 -t 60 --max-calls tgt.Dif.step=3 --percentile 50 --fail-over-ms 60000 \
        --junit "$x" -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 0 "gates that hold"
    junit_check "$x" 2 0 "gates that hold"
    grep -qF '<testcase classname="mcalltree tgt.Dif.run" name="--max-calls tgt.Dif.step=3"/>' "$x" ||
        fail "gates that hold: no passed case for --max-calls: $(cat "$x")"
    grep -qF 'name="--percentile 50 --fail-over-ms 60000"/>' "$x" ||
        fail "gates that hold: no passed case for --percentile: $(cat "$x")"

    note "JDK $j: attached, a gate that fails among two that hold"
    x=$MCT_TMP/$j-fail.xml
    msg='--max-calls tgt.Dif.step=2: tgt.Dif.step(I)J was called 3 times in one entry call, over the limit of 2'
    trace "$j-fail" --include-warmup -n 20 -t 60 --max-calls tgt.Dif.step=2 --max-calls 'tgt.Dif.run(Z)J=1' \
        --budget 'tgt.Dif.step:max=60000' --junit "$x" -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--max-calls one under the true count"
    expect_grep "^mcalltree: $(printf '%s' "$msg" | sed 's/[().$]/\\&/g') \\(exit status 4\\)\$" "$ERR" \
        "the terminal's evidence"
    junit_check "$x" 3 1 "a gate that fails"
    junit_failure "$x" "--max-calls tgt.Dif.step=2" "$msg" "a gate that fails"

    note "JDK $j: attached, --aggregate's final summary judged"
    x=$MCT_TMP/$j-agg.xml
    trace "$j-agg" --aggregate -n 20 -t 60 --max-calls tgt.Dif.step=2 --max-calls tgt.Dif.step=3 --junit "$x" \
        -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 4 "--aggregate, --max-calls one under"
    junit_check "$x" 2 1 "--aggregate"
    junit_failure "$x" "--max-calls tgt.Dif.step=2" "$msg" "--aggregate"

    note "JDK $j: attached, a gate with no call to judge"
    x=$MCT_TMP/$j-none.xml
    trace "$j-none" -t 2 --max-calls tgt.Dif.extra=1 --junit "$x" -o /dev/null "$PID" tgt.Dif extra 2 "$RX"
    expect_rc 4 "no call to judge"
    junit_check "$x" 1 1 "no call to judge"
    junit_failure "$x" "--max-calls tgt.Dif.extra=1" "the gates have no call of tgt.Dif.extra to judge" \
        "no call to judge"

    note "JDK $j: --junit usage errors"
    trace "$j-nogate" -n 3 --junit "$MCT_TMP/$j-nogate.xml" "$PID" tgt.Dif run 2 "$RX"
    expect_rc 1 "--junit without a gate"
    expect_grep '^mcalltree: --junit writes the verdicts of --max-calls, --percentile with --fail-over-ms, --budget or --max-alloc: give one' \
        "$ERR" "--junit without a gate"
    trace "$j-plan" --plan --max-calls tgt.Dif.step=3 --junit "$MCT_TMP/$j-plan.xml" "$PID" tgt.Dif run 2 "$RX"
    expect_rc 1 "--junit with --plan"
    expect_grep '^mcalltree: --junit cannot be used with --plan' "$ERR" "--junit with --plan"
    [ ! -e "$MCT_TMP/$j-nogate.xml" ] && [ ! -e "$MCT_TMP/$j-plan.xml" ] || fail "a usage error wrote a report"
    trace "$j-nodir" --include-warmup -n 3 -t 60 --max-calls tgt.Dif.step=3 --junit "$MCT_TMP/no/such/dir.xml" \
        -o /dev/null "$PID" tgt.Dif run 2 "$RX"
    expect_rc 1 "--junit into a missing directory"
    expect_grep "^mcalltree: --junit $MCT_TMP/no/such/dir.xml: cannot write: No such file or directory" "$ERR" \
        "--junit into a missing directory"
    expect_restored "$PID" "after the sessions"
    stop_target "$PID"

    note "JDK $j: the wrap form"
    for limit in 1 0; do
        x=$MCT_TMP/$j-wrap-$limit.xml
        OUT=$MCT_TMP/$j-wrap-$limit.out ERR=$MCT_TMP/$j-wrap-$limit.err MCT_LAST_ERR=$ERR RC=0
        TMPDIR=$MCT_TMP/tmp timeout 120 "$MCT" --max-calls tgt.StartEntry.twice=$limit --junit "$x" -o /dev/null \
            tgt.StartEntry run 2 "$RX" -- "${java[@]}" tgt.Wrapped 4 0 >"$OUT" 2>"$ERR" || RC=$?
        pid=$(sed -n 's/^mcalltree: JVM pid \([0-9]*\) (.*): tracing .*/\1/p' "$ERR")
        [ -n "$pid" ] || fail "wrap: no JVM traced: $(cat "$ERR")"
        grep -qF "<testsuite name=\"mcalltree tgt.StartEntry.run (JVM pid $pid)\"" "$x" ||
            fail "wrap: no suite named by the JVM's pid $pid: $(cat "$x")"
        if [ $limit = 1 ]; then
            expect_rc 0 "wrap, --max-calls at the true count"
            junit_check "$x" 1 0 "wrap, at the true count"
        else
            expect_rc 4 "wrap, --max-calls one under"
            junit_check "$x" 1 1 "wrap, one under"
            junit_failure "$x" "--max-calls tgt.StartEntry.twice=0" \
                "--max-calls tgt.StartEntry.twice=0: tgt.StartEntry.twice(I)J was called 1 times in one entry call, over the limit of 0" \
                "wrap, one under"
        fi
    done
    x=$MCT_TMP/$j-wrap-nojvm.xml
    OUT=$MCT_TMP/$j-wrap-nojvm.out ERR=$MCT_TMP/$j-wrap-nojvm.err MCT_LAST_ERR=$ERR RC=0
    TMPDIR=$MCT_TMP/tmp timeout 120 "$MCT" --max-calls tgt.StartEntry.twice=1 --junit "$x" -o /dev/null \
        tgt.StartEntry run 2 "$RX" -- true >"$OUT" 2>"$ERR" || RC=$?
    expect_rc 4 "wrap, no JVM"
    junit_check "$x" 1 1 "wrap, no JVM"
    junit_failure "$x" "the gates" "no JVM traced a call of the entry method: nothing to judge" "wrap, no JVM"

    note "JDK $j: mcalltree verdict --junit"
    f=$MCT_TMP/$j-start.ndjson
    timeout 60 "${java[@]}" "-agentpath:$MCT_AGENT=trace=tgt.StartEntry.run,depth=2,regex=tgt%5C..*,out=$f,max-calls=tgt.StartEntry.twice=1,max-calls=tgt.StartEntry.twice=0" \
        tgt.Start now 5 >"$MCT_TMP/$j-start.out" 2>&1 || fail "the startup trace's JVM: $(cat "$MCT_TMP/$j-start.out")"
    x=$MCT_TMP/$j-verdict.xml
    trace "$j-verdict" verdict --junit "$x" "$f"
    expect_rc 4 "verdict, a gate one under"
    junit_check "$x" 2 1 "verdict"
    grep -qF "<testcase classname=\"mcalltree verdict $f\" name=\"max-calls tgt.StartEntry.twice=1\"/>" "$x" ||
        fail "verdict: no passed case for max-calls=tgt.StartEntry.twice=1: $(cat "$x")"
    junit_failure "$x" "max-calls tgt.StartEntry.twice=0" \
        "max-calls tgt.StartEntry.twice=0: tgt.StartEntry.twice(I)J was called 1 times in one entry call, over the limit of 0" \
        "verdict"
    head -n 3 "$f" >"$f.cut"
    x=$MCT_TMP/$j-verdict-cut.xml
    trace "$j-verdict-cut" verdict --junit "$x" "$f.cut"
    expect_rc 5 "verdict of a file cut short"
    junit_check "$x" 1 1 "verdict of a file cut short"
    junit_failure "$x" "the gates" \
        "not judged: the file is not to be trusted or not complete (exit status 5; stderr says why)" \
        "verdict of a file cut short"
done
trace_done
