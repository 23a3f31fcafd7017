#!/usr/bin/env bash
# Calls at the limits, on every test JDK:
# - an exception thrown through JDK frames that are not instrumented
#   (tgt.Through: check() throws under a lambda run by List.forEach):
#   caught above them (run: no root.exception; sum, the lambda and check
#   threw) or ending the entry method (sum: root.exception);
# - recursion deeper than the deepest depth (tgt.Deep, 200 levels): depth
#   64 gives exactly 64 nested nodes, depth 10 exactly 10, from the entry
#   run or from the recursive down itself (after its first tree, which may
#   have begun inside a running recursion: see after_first);
# - more events than a thread's buffer holds (tgt.Many: 10000 calls of leaf
#   per call of run; 3000000): every call is printed anyway, a call that
#   lost events has "truncated" on its root and fewer leaf calls, one that
#   did not has all 10000 (and the buffer grows: such a call comes within a
#   few calls);
# SPEC 3's invariants on every node; after every session the JVM is alive
# with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
IAE=java.lang.IllegalArgumentException

# nested CLASS.METHOD N: the outline of N nested calls of one method.
nested() {
    local i
    for i in $(seq 0 $(($2 - 1))); do
        printf '%*s%s calls=1 throws=0\n' $((i * 2)) '' "$1"
    done
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" through
    j=$MAJOR
    note "JDK $j: an exception through JDK frames, caught above them (tgt.Through.run)"
    trace "$j-through" -n 3 "$PID" tgt.Through run 4 "$RX"
    expect_rc 0 "Through.run"
    check_calls "$OUT" 3 "Through.run" -D 4
    expect_outline "$OUT" "Through.run" <<'EOF'
tgt.Through.run calls=1 throws=0
  tgt.Through.sum calls=1 throws=1
    tgt.Through.lambda$sum$0 calls=3 throws=1
      tgt.Through.check calls=3 throws=1
EOF
    expect_restored "$PID" "after Through.run"
    note "JDK $j: an exception through JDK frames ending the entry method (tgt.Through.sum)"
    trace "$j-through-sum" -n 3 "$PID" tgt.Through sum 3 "$RX"
    expect_rc 0 "Through.sum"
    check_calls "$OUT" 3 "Through.sum" -D 3
    expect_outline "$OUT" "Through.sum" <<EOF
tgt.Through.sum calls=1 throws=1 exception=$IAE
  tgt.Through.lambda\$sum\$0 calls=3 throws=1
    tgt.Through.check calls=3 throws=1
EOF
    expect_restored "$PID" "after Through.sum"
    stop_jvm "$PID"

    scenario "$jdk" deep 200
    note "JDK $j: recursion 200 deep, depth 64 and 10 (tgt.Deep)"
    trace "$j-deep64" -n 2 "$PID" tgt.Deep run 64 "$RX"
    expect_rc 0 "Deep.run depth 64"
    check_calls "$OUT" 2 "Deep.run depth 64" -D 64
    expect_outline "$OUT" "Deep.run depth 64" <<EOF
tgt.Deep.run calls=1 throws=0
$(nested tgt.Deep.down 63 | sed 's/^/  /')
EOF
    expect_restored "$PID" "after Deep.run depth 64"
    trace "$j-deep10" -n 3 "$PID" tgt.Deep down 10 "$RX"
    expect_rc 0 "Deep.down depth 10"
    check_calls "$OUT" 3 "Deep.down depth 10" -D 10
    expect_outline "$(after_first "$OUT")" "Deep.down depth 10" < <(nested tgt.Deep.down 10)
    expect_restored "$PID" "after Deep.down depth 10"
    trace "$j-deepdown64" -n 3 "$PID" tgt.Deep down 64 "$RX"
    expect_rc 0 "Deep.down depth 64"
    check_calls "$OUT" 3 "Deep.down depth 64" -D 64
    expect_outline "$(after_first "$OUT")" "Deep.down depth 64" < <(nested tgt.Deep.down 64)
    expect_restored "$PID" "after Deep.down depth 64"
    stop_jvm "$PID"

    scenario "$jdk" many 10000
    note "JDK $j: 10000 calls in a call (tgt.Many.run)"
    trace "$j-many" -n 6 "$PID" tgt.Many run 2 "$RX"
    expect_rc 0 "Many.run 10000"
    check_calls "$OUT" 6 "Many.run 10000" -t -D 2
    check_many "$OUT" "$j" "Many.run 10000"
    expect_restored "$PID" "after Many.run 10000"
    stop_jvm "$PID"

    scenario "$jdk" many 3000000
    note "JDK $j: 3000000 calls in a call (tgt.Many.run)"
    trace "$j-many-big" -n 2 "$PID" tgt.Many run 2 "$RX"
    expect_rc 0 "Many.run 3000000"
    check_calls "$OUT" 2 "Many.run 3000000" -t -D 2
    expect_all "$(field "$OUT" run truncated)" true "Many.run 3000000: root.truncated"
    expect_restored "$PID" "after Many.run 3000000"
    stop_jvm "$PID"
done
trace_done
