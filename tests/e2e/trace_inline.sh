#!/usr/bin/env bash
# The probes keep instrumented methods inlinable (tgt.Hot.run, whose step
# and leaf are instrumented, called back to back), on every test JDK: the
# JIT's own account of its inlining (PrintInlining for Hot.run, in the
# target's output) shows the probes that run outside a traced call (enter,
# exit) inlined as @ForceInline, which charges each one byte of the
# compile's inlining budget, and fail, which only an exception reaches,
# never inlined where its call is compiled (@DontInline: a plain call is
# the least code in every instrumented method's catch-all). Without the
# annotations the JIT says neither: the probes' bytecode then used up the
# budget of large instrumented callers.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    MCT_JVM_OPTS=(-XX:+UnlockDiagnosticVMOptions '-XX:CompileCommand=quiet'
        '-XX:CompileCommand=PrintInlining,tgt.Hot::run')
    scenario "$jdk" hot 1 20
    MCT_JVM_OPTS=()
    j=$MAJOR
    note "JDK $j: the probes in Hot.run's compiled code"
    background "$j-inline" --min-ms 1000000 "$PID" tgt.Hot run 3 "$RX"
    wait_until 60 grep -q 'Probe::enter .*force inline by annotation' "$LOG" || {
        cat "$BG_ERR" >&2
        fail "JDK $j: the JIT did not say it force-inlined Probe.enter within 60 s (see $LOG)"
    }
    wait_until 60 grep -q 'Probe::exit .*force inline by annotation' "$LOG" ||
        fail "JDK $j: the JIT did not say it force-inlined Probe.exit (see $LOG)"
    # The catch-all's call of fail is compiled only where the JIT compiles
    # the handler at all (JDK 17 does here, 25 leaves out one never run).
    if grep 'Probe::fail ' "$LOG" | grep -qv "don't inline by annotation"; then
        fail "JDK $j: Probe.fail inlined: $(grep 'Probe::fail ' "$LOG" | grep -m1 -v "don't inline")"
    fi
    if grep -q 'Probe::.*DesiredMethodLimit' "$LOG"; then
        fail "JDK $j: a probe was refused for the inlining budget: $(grep -m1 'Probe::.*DesiredMethodLimit' "$LOG")"
    fi
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 30 || fail "JDK $j: the client did not stop within 30 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "JDK $j: exit status $WAIT_RC"
    }
    stop_jvm "$PID"
done
trace_done
