#!/usr/bin/env bash
# Exceptions, on every test JDK (tgt.Fail: c() throws three levels below the
# entry method):
# - Fail.run: root.exception is java.lang.IllegalStateException and throws=1
#   on run, a, b and c; cut at depth 2, a (the deepest node) still threw;
# - Fail.runCaught: a() catches, so no root.exception, throws=0 on the root
#   and aCatching, 1 on b and c;
# - the exception in -f tree and -f chrome;
# - SPEC 3's invariants on every node; after every session the JVM alive
#   with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
ISE=java.lang.IllegalStateException

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" fail
    j=$MAJOR

    note "JDK $j: an exception thrown three levels down ends the entry method"
    trace "$j-run" -n 3 "$PID" tgt.Fail run 4 "$RX"
    expect_rc 0 "Fail.run"
    check_calls "$OUT" 3 "Fail.run" -D 4
    expect_outline "$OUT" "Fail.run" <"$OUTLINES/fail-run"
    expect_all "$(field "$OUT" run exception)" "$ISE" "Fail.run: root.exception"
    expect_all "$(field "$OUT" run/a/b/c throws)" 1 "Fail.run: c's throws"
    expect_restored "$PID" "after Fail.run"

    note "JDK $j: the exception of a node cut by the depth"
    trace "$j-run2" -n 2 "$PID" tgt.Fail run 2 "$RX"
    expect_rc 0 "Fail.run depth 2"
    check_calls "$OUT" 2 "Fail.run depth 2" -D 2
    expect_outline "$OUT" "Fail.run depth 2" <<EOF
tgt.Fail.run calls=1 throws=1 exception=$ISE
  tgt.Fail.a calls=1 throws=1
EOF
    expect_restored "$PID" "after Fail.run depth 2"

    note "JDK $j: an exception caught on the way up"
    trace "$j-caught" -n 3 "$PID" tgt.Fail runCaught 4 "$RX"
    expect_rc 0 "Fail.runCaught"
    check_calls "$OUT" 3 "Fail.runCaught" -D 4
    expect_outline "$OUT" "Fail.runCaught" <"$OUTLINES/fail-caught"
    expect_all "$(field "$OUT" runCaught exception)" - "Fail.runCaught: root.exception"
    expect_restored "$PID" "after Fail.runCaught"

    note "JDK $j: the exception in -f tree and -f chrome"
    trace "$j-tree" -f tree -n 1 "$PID" tgt.Fail run 4 "$RX"
    expect_rc 0 "Fail.run -f tree"
    expect_grep "tgt\\.Fail\\.run\\(\\) .*${ISE//./\\.}" "$OUT" "Fail.run -f tree: the exception"
    trace "$j-chrome" -f chrome -n 1 -o "$MCT_TMP/$j-fail.json" "$PID" tgt.Fail run 4 "$RX"
    expect_rc 0 "Fail.run -f chrome"
    n=$("$TREE" chrome "$MCT_TMP/$j-fail.json") || fail "Fail.run -f chrome: not a valid, nested trace"
    [ "$n" = 1 ] || fail "Fail.run -f chrome: $n calls, want 1"
    expect_grep "\"exception\":\"${ISE//./\\.}\"" "$MCT_TMP/$j-fail.json" "Fail.run -f chrome: the exception"
    expect_restored "$PID" "after -f chrome"
    stop_jvm "$PID"
done
trace_done
