# tests/e2e/trace_lib.sh — helpers of the tracing tests (trace_*.sh),
# sourced after tests/setup and tests/e2e/lib.sh.
#
# The targets are the scenarios of tests/java/target/tgt (tgt.Main SCENARIO
# [ARG] calls the scenario's entry method every few ms once READY).
# tests/e2e/mct-tree checks the call lines of SPEC §3 and prints outlines.
# shellcheck shell=bash

TREE=$MCT_BUILDDIR/tests/e2e/mct-tree

# Failures that do not stop the test (so that one product bug does not hide
# the next), reported and counted; trace_done exits 1 if there was one.
TRACE_FAILURES=0

# soft_fail WHAT: reports a failure and carries on.
soft_fail() {
    echo "FAIL: $*" >&2
    TRACE_FAILURES=$((TRACE_FAILURES + 1))
}

# trace_done: the test's exit.
trace_done() {
    if [ "$TRACE_FAILURES" -gt 0 ]; then
        echo "$TRACE_FAILURES failure(s)" >&2
        exit 1
    fi
    exit 0
}

# The expected outlines that several tests share (expect_outline's input).
OUTLINES=$MCT_SRCDIR/tests/e2e/outlines

# check_many FILE NAME WHAT: the calls of tgt.Many.run 10000 (depth 2) in
# FILE: a call whose ring filled is truncated (the root, and the leaf node
# or not) with fewer leaf calls; one that did not has all 10000, and one at
# least did not (a ring grows after a call filled it).
check_many() {
    local file=$1 name=$2 what=$3 rows=$MCT_TMP/$2-many.rows bad
    paste -d' ' <(field "$file" run truncated) <(field "$file" run/leaf calls) \
        <(field "$file" run/leaf truncated) >"$rows"
    note "JDK $name: root truncated, leaf calls, leaf truncated: $(tr '\n' ',' <"$rows")"
    bad=$(grep -vxE -- '- 10000 -|true [0-9]+ (true|-)' "$rows" | head -1)
    [ -z "$bad" ] || fail "$what: a call with (root truncated, leaf calls, leaf truncated) = $bad"
    awk '$1 == "true" && $2 >= 10000 { exit 1 }' "$rows" || fail "$what: a truncated call with every leaf call"
    grep -qx -- '- 10000 -' "$rows" || fail "$what: no complete call (the ring does not grow)"
}

# scenario JDK NAME [ARG]: starts tgt.Main NAME [ARG] on JDK; sets PID, MAJOR
# and LOG (the JVM's output).
scenario() {
    local jdk=$1 name=$2
    shift 2
    MAJOR=$(jdk_major "$jdk")
    LOG=$MCT_TMP/jvm-$MAJOR-$name.log
    start_target "$jdk" "$LOG" tgt.Main "$name" "$@"
    PID=$TARGET_PID
}

# trace NAME ARGS...: runs the client with its stdout in OUT and its stderr
# in ERR ($MCT_TMP/NAME.out and .err); sets RC.
trace() {
    local name=$1
    shift
    OUT=$MCT_TMP/$name.out
    ERR=$MCT_TMP/$name.err
    MCT_LAST_ERR=$ERR
    run_mct "$OUT" "$ERR" "$@"
}

# check_calls FILE WANT WHAT [mct-tree check options...]: there are exactly
# WANT calls in FILE (WANT "+N": at least N), each line a call message; and
# every node keeps SPEC 3's invariants (mct-tree check) — a broken invariant
# is reported (the first few, and how many) without stopping the test.
check_calls() {
    local file=$1 want=$2 what=$3 n nbad
    shift 3
    n=$("$TREE" check "$@" "$file" 2>"$file.check")
    case $? in
    0) ;;
    1)
        nbad=$(wc -l <"$file.check")
        head -5 "$file.check" >&2
        soft_fail "$what: $nbad broken invariant(s) of SPEC 3 in $n calls (the first above)"
        ;;
    *)
        cat "$file.check" >&2
        fail "$what: $file does not hold call messages"
        ;;
    esac
    case $want in
    +*) [ "$n" -ge "${want#+}" ] || fail "$what: $n calls, want at least ${want#+}" ;;
    *) [ "$n" = "$want" ] || fail "$what: $n calls, want $want" ;;
    esac
}

# expect_outline FILE WHAT [-d]: the distinct outlines of FILE's calls
# (mct-tree outline) are exactly stdin.
expect_outline() {
    local file=$1 what=$2 got want
    shift 2
    want=$(cat)
    got=$("$TREE" outline "$@" "$file") || fail "$what: mct-tree outline failed"
    if [ "$got" != "$want" ]; then
        echo "--- want:" >&2
        echo "$want" >&2
        echo "--- got:" >&2
        echo "$got" >&2
        fail "$what: the call trees differ"
    fi
}

# expect_outline_set FILE WHAT [-d]: the distinct outlines of FILE's calls,
# in any order, are exactly those on stdin (separated by lines "--").
expect_outline_set() {
    local file=$1 what=$2 got want
    shift 2
    want=$("$TREE" sort)
    got=$(set -o pipefail; "$TREE" outline "$@" "$file" | "$TREE" sort) || fail "$what: mct-tree outline failed"
    if [ "$got" != "$want" ]; then
        echo "--- want (sorted):" >&2
        echo "$want" >&2
        echo "--- got (sorted):" >&2
        echo "$got" >&2
        fail "$what: the call trees differ"
    fi
}

# after_first FILE: prints the path of a copy of FILE without its first
# call. When the entry method calls itself (recursion, one implementation
# calling another), the thread may be inside such a call, running the old
# code, as the class is instrumented: the inner call it makes next is a
# real call of the entry method, traced from there, so the first tree may
# be shorter; every later call is whole.
after_first() {
    tail -n +2 "$1" >"$1.rest"
    echo "$1.rest"
}

# field FILE PATH KEY: one line per call, KEY of the node at PATH.
field() {
    "$TREE" field "$1" "$2" "$3" || fail "mct-tree field $2 $3 failed on $1"
}

# expect_all VALUES WANT WHAT: every line of VALUES is WANT (and there is one).
expect_all() {
    local other
    [ -n "$1" ] || fail "$3: no value"
    other=$(echo "$1" | grep -vxF -- "$2" | head -1)
    [ -z "$other" ] || fail "$3: '$other', want '$2'"
}

# expect_all_ge VALUES MIN WHAT: every line of VALUES is an integer >= MIN.
expect_all_ge() {
    local v
    [ -n "$1" ] || fail "$3: no value"
    for v in $1; do
        case $v in '' | *[!0-9]*) fail "$3: '$v' is not a number" ;; esac
        [ "$v" -ge "$2" ] || fail "$3: $v < $2"
    done
}

# in_range VALUES LO HI WHAT: every value is in LO..HI (soft: the test
# goes on to report every value out of range).
in_range() {
    local v
    [ -n "$1" ] || { soft_fail "$4: no value"; return; }
    for v in $1; do
        [ "$v" -ge "$2" ] && [ "$v" -le "$3" ] || soft_fail "$4: $v is outside $2..$3"
    done
}

# expect_restored PID WHAT: the target is alive, answers --info, has no
# session and no instrumented class.
expect_restored() {
    local out=$MCT_TMP/restored.out err=$MCT_TMP/restored.err
    alive "$1" || {
        tail -20 "$LOG" >&2
        fail "$2: the target JVM is gone"
    }
    MCT_LAST_ERR=$err
    run_mct "$out" "$err" --info "$1"
    expect_rc 0 "$2: --info"
    expect_field "$out" session null
    expect_field "$out" instrumented_classes 0
}

# background NAME ARGS...: starts the client in the background, stdout in
# BG_OUT, stderr in BG_ERR; sets BG_PID.
background() {
    local name=$1
    shift
    BG_OUT=$MCT_TMP/$name.out
    BG_ERR=$MCT_TMP/$name.err
    "$MCT" "$@" >"$BG_OUT" 2>"$BG_ERR" &
    BG_PID=$!
    MCT_PIDS="$MCT_PIDS $BG_PID"
}

# wait_lines FILE N SEC: waits until FILE has N lines, at most SEC seconds.
wait_lines() {
    wait_until "$3" has_lines "$1" "$2"
}

# has_lines FILE N: FILE exists and has at least N lines.
has_lines() {
    [ -e "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]
}

# now_ms: a monotonic-enough clock for the few bounds the tests report.
now_ms() {
    echo $(($(date +%s%N) / 1000000))
}
