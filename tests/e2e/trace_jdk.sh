#!/usr/bin/env bash
# JDK classes with --include-jdk, on every test JDK (scenario maps): the
# JVM keeps no StackMapTable for the boot classes it does not verify, so the
# agent rewrites them from their class files; java.util.HashMap's methods,
# which branch, are instrumented (none skipped), traced below the entry
# method, and restored afterwards. Without --include-jdk they are left out.
# The same holds for application classes when the JVM verifies none
# (-XX:-BytecodeVerificationRemote): tgt.Maps.run branches.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*|java\.util\.HashMap'
for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" maps
    j=$MAJOR

    note "JDK $j: without --include-jdk, HashMap is left out"
    trace "$j-nojdk" --plan "$PID" tgt.Maps run 3 "$RX"
    expect_rc 0 "--plan without --include-jdk"
    expect_grep '^ +planned +tgt\.Maps\.run' "$OUT" "the entry method"
    expect_no_grep '^ +planned +java\.util\.HashMap' "$OUT" "HashMap left out"

    note "JDK $j: with --include-jdk, HashMap's methods are instrumented and traced"
    trace "$j-jdk" -v -n 3 --include-jdk "$PID" tgt.Maps run 3 "$RX"
    expect_rc 0 "--include-jdk"
    expect_grep '^ +instrumented +java\.util\.HashMap\.getNode' "$ERR" "HashMap.getNode instrumented"
    expect_no_grep '^ +(skipped|failed) ' "$ERR" "nothing skipped"
    check_calls "$OUT" 3 "--include-jdk" -D 3
    expect_outline "$OUT" "--include-jdk" <<'OUTLINE'
tgt.Maps.run calls=1 throws=0
  java.util.HashMap.getOrDefault calls=1 throws=0
    java.util.HashMap.getNode calls=1 throws=0
  java.util.HashMap.put calls=1 throws=0
    java.util.HashMap.hash calls=1 throws=0
    java.util.HashMap.putVal calls=1 throws=0
OUTLINE
    expect_restored "$PID" "after --include-jdk"
    stop_jvm "$PID"

    MCT_JVM_OPTS=(-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote)
    scenario "$jdk" maps
    unset MCT_JVM_OPTS
    note "JDK $j: application classes the JVM did not verify"
    trace "$j-noverify" -v -n 2 "$PID" tgt.Maps run 3 "$RX"
    expect_rc 0 "unverified application class"
    expect_grep '^ +instrumented +tgt\.Maps\.run' "$ERR" "tgt.Maps.run instrumented"
    expect_no_grep '^ +(skipped|failed) ' "$ERR" "nothing skipped"
    check_calls "$OUT" 2 "unverified application class" -D 3
    expect_restored "$PID" "after the unverified application class"
    stop_jvm "$PID"
done
trace_done
