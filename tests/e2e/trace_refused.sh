#!/usr/bin/env bash
# Requests the target refuses, on every test JDK: exit status 3, nothing on
# stdout, a message naming what was wrong — a class not loaded yet
# (tgt.LateHelper before the flag of scenario late) or that does not exist
# (named without its package: the loaded classes of that simple name are
# suggested),
# a method not found (by name: its methods listed; by descriptor: the
# descriptors of that name listed), an invalid regex, nothing instrumentable
# (a JDK method without --include-jdk). After them the JVM is alive, has no
# session, nothing instrumented, and traces normally.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# refused NAME PATTERN WHAT ARGS...: the client exits 3 with PATTERN on
# stderr and nothing on stdout.
refused() {
    local name=$1 pattern=$2 what=$3
    shift 3
    trace "$name" "$@"
    expect_rc 3 "$what"
    [ -s "$OUT" ] && fail "$what: something on stdout"
    expect_grep "$pattern" "$ERR" "$what"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" late "$MCT_TMP/never.flag"
    j=$MAJOR
    note "JDK $j: refusals"
    refused "$j-notloaded" 'tgt\.LateHelper.*not loaded' "a class not loaded yet" \
        "$PID" tgt.LateHelper help 2 'tgt\..*'
    refused "$j-noclass" 'tgt\.Nope.*not loaded' "a class that does not exist" \
        "$PID" tgt.Nope run 2 'tgt\..*'
    refused "$j-simplename" 'class Late is not loaded.*; did you mean tgt\.Late\?' \
        "a class named without its package" "$PID" Late run 2 'tgt\..*'
    refused "$j-nomethod" 'tgt\.Late has no method nope.*run' "a method not found" \
        "$PID" tgt.Late nope 2 'tgt\..*'
    refused "$j-nodesc" 'run\(I\)J.*\(Z\)J' "a descriptor not found" \
        "$PID" tgt.Late 'run(I)J' 2 'tgt\..*'
    refused "$j-badregex" 'regex' "an invalid regex" \
        "$PID" tgt.Late run 2 'tgt\.(.*'
    # the pattern and its caret each on a line of their own, the caret
    # under the end of the pattern (where PCRE2 misses the parenthesis)
    expect_grep '^mcalltree:   tgt\\\.\(\.\*$' "$ERR" "an invalid regex: the pattern on its line"
    expect_grep '^mcalltree:           \^$' "$ERR" "an invalid regex: the caret under its character"
    refused "$j-nothing" 'nothing to instrument.*java\.lang\.Object\.hashCode' "nothing instrumentable" \
        "$PID" java.lang.Object hashCode 2 '.*'
    expect_restored "$PID" "after the refusals"

    note "JDK $j: a session after the refusals"
    trace "$j-ok" -n 2 "$PID" tgt.Late 'run(Z)J' 2 'tgt\..*'
    expect_rc 0 "a session after the refusals"
    check_calls "$OUT" 2 "a session after the refusals" -D 2
    expect_outline "$OUT" "a session after the refusals" <<'EOF'
tgt.Late.run calls=1 throws=0
EOF
    expect_restored "$PID" "after the session"
    stop_jvm "$PID"
done
trace_done
