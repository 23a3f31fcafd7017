#!/usr/bin/env bash
# One class in many class loaders (issue 9, item 12), on every test JDK:
# plug.Impl is defined by two URLClassLoaders before the attach and by a
# new one for every call of the entry method (scenario loaders); every copy
# is instrumented, those loaded before through the snapshot and the new
# ones as they load, so each tree holds the three calls; the plan lists the
# class once; every copy is restored. Before, only the copy of one loader
# was traced. And planning a class with a lambda in a loader of the
# application's own never runs that loader's resource lookup (scenario
# spied).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*|plug\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" loaders
    j=$MAJOR

    note "JDK $j: the plan lists plug.Impl once"
    trace "$j-plan" --plan "$PID" tgt.Loaders run 3 "$RX"
    expect_rc 0 "--plan"
    [ "$(grep -c 'plug\.Impl\.applyAsLong' "$OUT")" = 1 ] || {
        cat "$OUT" >&2
        fail "--plan: plug.Impl.applyAsLong is not listed exactly once"
    }
    expect_grep '^  planned +plug\.Impl\.twice\(J\)J$' "$OUT" "--plan: plug.Impl.twice"

    note "JDK $j: every loader's copy is traced"
    trace "$j-calls" -n 20 "$PID" tgt.Loaders run 3 "$RX"
    expect_rc 0 "tracing tgt.Loaders.run"
    check_calls "$OUT" 20 "tgt.Loaders.run"
    expect_outline "$(after_first "$OUT")" "two early copies and a new one per call" <<'OUTLINE'
tgt.Loaders.run calls=1 throws=0
  plug.Impl.applyAsLong calls=3 throws=0
    plug.Impl.twice calls=3 throws=0
OUTLINE
    expect_restored "$PID" "after the session"

    note "JDK $j: again, with the copies the first session instrumented gone"
    trace "$j-again" -n 5 "$PID" tgt.Loaders run 3 "$RX"
    expect_rc 0 "a second session"
    expect_outline "$(after_first "$OUT")" "the second session" <<'OUTLINE'
tgt.Loaders.run calls=1 throws=0
  plug.Impl.applyAsLong calls=3 throws=0
    plug.Impl.twice calls=3 throws=0
OUTLINE
    expect_restored "$PID" "after the second session"
    stop_jvm "$PID"

    # A class with a lambda in a loader of the application's own (scenario
    # spied, whose loader prints "spied NAME" when asked for a resource):
    # planning it runs none of that loader's code, which could block the
    # session or do anything else; the lambda is not followed then.
    scenario "$jdk" spied
    note "JDK $j: planning a class of the application's own loader runs none of its code"
    before=$(grep -c '^spied ' "$LOG" || true)
    trace "$j-spied" --plan "$PID" plug.Lam applyAsLong 3 'plug\..*'
    expect_rc 0 "--plan plug.Lam.applyAsLong"
    expect_grep 'plug\.Lam\.applyAsLong' "$OUT" "--plan: the entry method"
    [ "$(grep -c '^spied ' "$LOG" || true)" = "$before" ] ||
        fail "JDK $j: --plan ran the loader's resource lookup: $(grep '^spied ' "$LOG" | head -3)"
    ! grep -q 'lambda\$applyAsLong' "$OUT" ||
        fail "JDK $j: --plan followed the lambda of a class whose bootstrap methods it cannot read safely"
    stop_jvm "$PID"
done
trace_done
