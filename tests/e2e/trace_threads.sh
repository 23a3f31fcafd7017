#!/usr/bin/env bash
# The entry method on several threads at once, and --include-jdk, on every
# test JDK (scenario threads: worker-1..worker-3 call tgt.Work.job):
# - -n 30: exactly 30 trees, one per call, each job -> step x2, on threads
#   named worker-1..worker-3, at least two of them, a name always with the
#   same thread id and an id always with the same name;
# - regex '.*': java.lang.String.length (called by Work.step) is left out
#   as a JDK class, and traced under step with --include-jdk; after it the
#   JVM still runs and traces normally.
# SPEC 3's invariants on every node; after every session the JVM is alive
# with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" threads
    j=$MAJOR

    note "JDK $j: tgt.Work.job on three threads, -n 30"
    trace "$j-threads" -n 30 "$PID" tgt.Work job 2 'tgt\..*'
    expect_rc 0 "Work.job -n 30"
    check_calls "$OUT" 30 "Work.job -n 30" -D 2
    expect_outline "$OUT" "Work.job" <<'EOF'
tgt.Work.job calls=1 throws=0
  tgt.Work.step calls=2 throws=0
EOF
    "$TREE" call "$OUT" thread.name >"$MCT_TMP/$j-names"
    "$TREE" call "$OUT" thread.id >"$MCT_TMP/$j-ids"
    bad=$(grep -vxE 'worker-[123]' "$MCT_TMP/$j-names" | head -1)
    [ -z "$bad" ] || fail "Work.job: thread '$bad', want worker-1..3"
    names=$(sort -u "$MCT_TMP/$j-names" | wc -l)
    note "JDK $j: $names distinct threads: $(sort "$MCT_TMP/$j-names" | uniq -c | tr -s ' \n' ' ')"
    [ "$names" -ge 2 ] || fail "Work.job: 30 calls on $names thread(s), want at least 2"
    paste -d' ' "$MCT_TMP/$j-ids" "$MCT_TMP/$j-names" | sort -u >"$MCT_TMP/$j-pairs"
    [ "$(wc -l <"$MCT_TMP/$j-pairs")" = "$names" ] || {
        cat "$MCT_TMP/$j-pairs" >&2
        fail "Work.job: a thread name with two ids"
    }
    [ "$(cut -d' ' -f1 "$MCT_TMP/$j-pairs" | sort -u | wc -l)" = "$names" ] || {
        cat "$MCT_TMP/$j-pairs" >&2
        fail "Work.job: a thread id with two names"
    }
    expect_restored "$PID" "after Work.job -n 30"

    note "JDK $j: regex '.*' leaves the JDK out"
    trace "$j-nojdk-plan" -f json --plan "$PID" tgt.Work job 3 '.*'
    expect_rc 0 "--plan, regex .*"
    "$TREE" plan "$OUT" >"$MCT_TMP/$j-nojdk.plan" || fail "--plan: not a plan"
    expect_grep '^3 excluded java\.lang\.String\.length \(\)I$' "$MCT_TMP/$j-nojdk.plan" \
        "--plan: String.length left out"
    trace "$j-nojdk" -n 3 "$PID" tgt.Work job 3 '.*'
    expect_rc 0 "regex .*"
    check_calls "$OUT" 3 "regex .*" -D 3
    expect_outline "$OUT" "regex .*" <<'EOF'
tgt.Work.job calls=1 throws=0
  tgt.Work.step calls=2 throws=0
EOF
    expect_restored "$PID" "after regex .*"

    note "JDK $j: --include-jdk traces String.length under step"
    trace "$j-jdk-plan" -f json --plan --include-jdk "$PID" tgt.Work job 3 '.*'
    expect_rc 0 "--plan --include-jdk"
    "$TREE" plan "$OUT" >"$MCT_TMP/$j-jdk.plan" || fail "--plan --include-jdk: not a plan"
    expect_grep '^3 planned java\.lang\.String\.length \(\)I$' "$MCT_TMP/$j-jdk.plan" \
        "--plan --include-jdk: String.length planned"
    trace "$j-jdk" -n 3 --include-jdk "$PID" tgt.Work job 3 '.*'
    expect_rc 0 "--include-jdk"
    check_calls "$OUT" 3 "--include-jdk" -D 3
    expect_outline "$OUT" "--include-jdk" <<'EOF'
tgt.Work.job calls=1 throws=0
  tgt.Work.step calls=2 throws=0
    java.lang.String.length calls=2 throws=0
EOF
    expect_restored "$PID" "after --include-jdk"
    trace "$j-after-jdk" -n 3 "$PID" tgt.Work job 2 'tgt\..*'
    expect_rc 0 "a session after --include-jdk"
    check_calls "$OUT" 3 "a session after --include-jdk" -D 2
    expect_restored "$PID" "after the session after --include-jdk"
    stop_jvm "$PID"
done
trace_done
