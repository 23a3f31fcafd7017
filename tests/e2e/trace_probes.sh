#!/usr/bin/env bash
# How a traced call's ordinary probes record, on every test JDK, with each
# way forced by the agent's probes= option (-agentpath), and the same
# trees from both:
# - probes=java: the probes write the events in Java (the writer), with
#   System.nanoTime: the plan says "probes: java" and "clock: monotonic";
#   probes=native: through the JNI natives ("probes: native"); by default
#   (attached late, no option) the natives where the clock is the TSC, the
#   writer where it is CLOCK_MONOTONIC (trace_clock.sh: clock=monotonic);
# - the exact tree of tgt.Shape at depth 4 and cut at depth 2;
# - exceptions (tgt.Fail): a failure is recorded by the natives between
#   events the writer wrote, thrown out of the entry method or caught on
#   the way up;
# - a ring that fills (tgt.Many, 10000 leaf calls): the writer leaves the
#   events past the call's share of the ring to the natives, which mark the
#   call truncated; a call not truncated has every leaf call;
# - --cpu: a session that stamps events leaves them to the natives, and
#   every node still has its CPU time;
# - SPEC 3's invariants on every node; after every session the JVM alive
#   with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    note "JDK $MAJOR: attached late, the probes as the clock says"
    trace "$MAJOR-auto" -v -n 2 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "$MAJOR: attached late"
    expect_grep 'clock: (tsc; probes: native|monotonic; probes: java)$' "$ERR" "$MAJOR: the default probes"
    check_calls "$OUT" 2 "$MAJOR: attached late" -D 4
    expect_outline "$OUT" "$MAJOR: attached late" -d <"$OUTLINES/shape-4"
    stop_jvm "$PID"

    for mode in java native; do
        MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=probes=$mode")
        scenario "$jdk" shape
        j=$MAJOR-$mode

        note "JDK $j: the plan says how the probes record; the exact tree at depth 4 and 2"
        trace "$j-shape" -v -n 3 "$PID" tgt.Shape run 4 "$RX"
        expect_rc 0 "$j: Shape depth 4"
        expect_grep "clock: [a-z]+; probes: $mode\$" "$ERR" "$j: the plan's probes"
        [ "$mode" = java ] && expect_grep 'clock: monotonic;' "$ERR" "$j: the writer's clock"
        check_calls "$OUT" 3 "$j: Shape depth 4" -D 4
        expect_outline "$OUT" "$j: Shape depth 4" -d <"$OUTLINES/shape-4"
        trace "$j-shape2" -n 3 "$PID" tgt.Shape run 2 "$RX"
        expect_rc 0 "$j: Shape depth 2"
        check_calls "$OUT" 3 "$j: Shape depth 2" -D 2
        expect_outline "$OUT" "$j: Shape depth 2" <"$OUTLINES/shape-2"
        note "JDK $j: --cpu: the natives stamp every event"
        trace "$j-cpu" --cpu -n 2 "$PID" tgt.Shape run 4 "$RX"
        expect_rc 0 "$j: --cpu"
        check_calls "$OUT" 2 "$j: --cpu" -D 4
        [ "$(field "$OUT" run/mid/leafB/deep cpu_ns | grep -c '^[0-9][0-9]*$')" = 2 ] ||
            fail "$j: --cpu: deep has no cpu_ns: $(field "$OUT" run/mid/leafB/deep cpu_ns | tr '\n' ' ')"
        expect_restored "$PID" "$j: after Shape"
        stop_jvm "$PID"

        MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=probes=$mode")
        scenario "$jdk" fail
        note "JDK $j: exceptions thrown out and caught on the way up"
        trace "$j-fail" -n 3 "$PID" tgt.Fail run 4 "$RX"
        expect_rc 0 "$j: Fail.run"
        check_calls "$OUT" 3 "$j: Fail.run" -D 4
        expect_outline "$OUT" "$j: Fail.run" <"$OUTLINES/fail-run"
        trace "$j-caught" -n 3 "$PID" tgt.Fail runCaught 4 "$RX"
        expect_rc 0 "$j: Fail.runCaught"
        check_calls "$OUT" 3 "$j: Fail.runCaught" -D 4
        expect_outline "$OUT" "$j: Fail.runCaught" <"$OUTLINES/fail-caught"
        expect_restored "$PID" "$j: after Fail"
        stop_jvm "$PID"

        MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=probes=$mode")
        scenario "$jdk" many 10000
        unset MCT_JVM_OPTS
        note "JDK $j: 10000 leaf calls: rings that fill"
        trace "$j-many" -n 6 "$PID" tgt.Many run 2 "$RX"
        expect_rc 0 "$j: Many.run"
        check_calls "$OUT" 6 "$j: Many.run" -t -D 2
        check_many "$OUT" "$j" "$j: Many.run"
        grep -q '^true ' "$MCT_TMP/$j-many.rows" || fail "$j: Many.run: no call filled its ring"
        expect_restored "$PID" "$j: after Many"
        stop_jvm "$PID"
    done
done
trace_done
