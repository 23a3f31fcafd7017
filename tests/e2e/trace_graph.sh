#!/usr/bin/env bash
# Call graphs beyond plain static calls, on every test JDK, each tree exact
# and keeping SPEC 3's invariants:
# - interface and abstract calls reach their implementations (tgt.Poly):
#   run -> Base.price (-> base, Cheap.extra), Dear.price (-> Base.price ->
#   base, Dear.extra), Flat.price; a nested class's override as the entry
#   (Poly$Dear.price); an interface method as the entry (Poly$Pricer.price:
#   a tree per outermost call of any implementation);
# - lambdas and method references under the method that created them
#   (tgt.Lambdas): run -> twice x5, lambda$run$0 x5 -> isSmall x5, with no
#   JDK stream frame planned or traced in between;
# - constructors (tgt.Ctor): value -> <init>()V -> <init>(I)V -> prepare
#   (called before super(...)), CtorBase.<init>; <init>(I)V as the entry
#   (one overload by its descriptor) and <init> (every overload: a tree
#   per outermost constructor call);
# - recursion (tgt.Rec): run at depth 4 -> fact -> fact -> fact, cut by the
#   depth; fact as the entry: nested facts, one tree per outermost call,
#   five levels with depth 64, three with depth 3.
# Where the entry method calls itself (Pricer.price, Rec.fact) the first
# tree may have begun inside a running call (see after_first): the later
# ones are checked.
# After every session the JVM is alive with no class left instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" poly
    j=$MAJOR
    note "JDK $j: interface and abstract calls (tgt.Poly.run)"
    trace "$j-poly" -n 3 "$PID" tgt.Poly run 4 "$RX"
    expect_rc 0 "Poly.run"
    check_calls "$OUT" 3 "Poly.run" -D 4
    expect_outline "$OUT" "Poly.run" <<'EOF'
tgt.Poly.run calls=1 throws=0
  tgt.Poly$Base.price calls=1 throws=0
    tgt.Poly$Base.base calls=1 throws=0
    tgt.Poly$Cheap.extra calls=1 throws=0
  tgt.Poly$Dear.price calls=1 throws=0
    tgt.Poly$Base.price calls=1 throws=0
      tgt.Poly$Base.base calls=1 throws=0
      tgt.Poly$Dear.extra calls=1 throws=0
  tgt.Poly$Flat.price calls=1 throws=0
EOF
    expect_restored "$PID" "after Poly.run"

    note "JDK $j: a nested class's override as the entry (tgt.Poly\$Dear.price)"
    trace "$j-dear" -n 3 "$PID" 'tgt.Poly$Dear' price 4 "$RX"
    expect_rc 0 "Poly\$Dear.price"
    check_calls "$OUT" 3 "Poly\$Dear.price" -D 4
    expect_outline "$OUT" "Poly\$Dear.price" <<'EOF'
tgt.Poly$Dear.price calls=1 throws=0
  tgt.Poly$Base.price calls=1 throws=0
    tgt.Poly$Base.base calls=1 throws=0
    tgt.Poly$Dear.extra calls=1 throws=0
EOF
    expect_restored "$PID" "after Poly\$Dear.price"

    note "JDK $j: an interface method as the entry: its implementations are the entries"
    trace "$j-pricer" -n 7 "$PID" 'tgt.Poly$Pricer' price 4 "$RX"
    expect_rc 0 "Poly\$Pricer.price"
    check_calls "$OUT" 7 "Poly\$Pricer.price" -D 4
    expect_outline_set "$(after_first "$OUT")" "Poly\$Pricer.price" <<'EOF'
tgt.Poly$Base.price calls=1 throws=0
  tgt.Poly$Base.base calls=1 throws=0
  tgt.Poly$Cheap.extra calls=1 throws=0
--
tgt.Poly$Dear.price calls=1 throws=0
  tgt.Poly$Base.price calls=1 throws=0
    tgt.Poly$Base.base calls=1 throws=0
    tgt.Poly$Dear.extra calls=1 throws=0
--
tgt.Poly$Flat.price calls=1 throws=0
EOF
    expect_restored "$PID" "after Poly\$Pricer.price"
    stop_jvm "$PID"

    scenario "$jdk" lambdas
    note "JDK $j: lambdas and method references (tgt.Lambdas.run)"
    trace "$j-lambdas-plan" -f json --plan "$PID" tgt.Lambdas run 4 "$RX"
    expect_rc 0 "Lambdas.run --plan"
    "$TREE" plan "$OUT" >"$MCT_TMP/$j-lambdas.plan" || fail "Lambdas.run: not a plan"
    expect_grep '^2 planned tgt\.Lambdas\.twice \(I\)I$' "$MCT_TMP/$j-lambdas.plan" "Lambdas plan"
    expect_grep '^2 planned tgt\.Lambdas\.lambda\$run\$0 \(I\)Z$' "$MCT_TMP/$j-lambdas.plan" "Lambdas plan"
    expect_grep '^3 planned tgt\.Lambdas\.isSmall \(I\)Z$' "$MCT_TMP/$j-lambdas.plan" "Lambdas plan"
    expect_no_grep '^[0-9]+ planned java\.' "$MCT_TMP/$j-lambdas.plan" "Lambdas plan: a JDK method planned"
    trace "$j-lambdas" -n 3 "$PID" tgt.Lambdas run 4 "$RX"
    expect_rc 0 "Lambdas.run"
    check_calls "$OUT" 3 "Lambdas.run" -D 4
    expect_outline "$OUT" "Lambdas.run" -d <<'EOF'
tgt.Lambdas.run()J calls=1 throws=0
  tgt.Lambdas.twice(I)I calls=5 throws=0
  tgt.Lambdas.lambda$run$0(I)Z calls=5 throws=0
    tgt.Lambdas.isSmall(I)Z calls=5 throws=0
EOF
    expect_restored "$PID" "after Lambdas.run"
    stop_jvm "$PID"

    scenario "$jdk" ctor
    note "JDK $j: constructors (tgt.Ctor.value)"
    trace "$j-ctor" -n 3 "$PID" tgt.Ctor value 4 "$RX"
    expect_rc 0 "Ctor.value"
    check_calls "$OUT" 3 "Ctor.value" -D 4
    expect_outline "$OUT" "Ctor.value" -d <<'EOF'
tgt.Ctor.value()J calls=1 throws=0
  tgt.Ctor.<init>()V calls=1 throws=0
    tgt.Ctor.<init>(I)V calls=1 throws=0
      tgt.Ctor.prepare(I)I calls=1 throws=0
      tgt.CtorBase.<init>(I)V calls=1 throws=0
EOF
    expect_all "$(field "$OUT" 'value/<init>()V/<init>(I)V/prepare' calls)" 1 "Ctor.value: prepare under <init>(I)V"
    expect_restored "$PID" "after Ctor.value"

    note "JDK $j: a constructor as the entry, one overload by its descriptor"
    trace "$j-ctor-init1" -n 3 "$PID" tgt.Ctor '<init>(I)V' 2 "$RX"
    expect_rc 0 "Ctor.<init>(I)V"
    check_calls "$OUT" 3 "Ctor.<init>(I)V" -D 2
    expect_outline "$OUT" "Ctor.<init>(I)V" -d <<'EOF'
tgt.Ctor.<init>(I)V calls=1 throws=0
  tgt.Ctor.prepare(I)I calls=1 throws=0
  tgt.CtorBase.<init>(I)V calls=1 throws=0
EOF
    expect_restored "$PID" "after Ctor.<init>(I)V"

    note "JDK $j: every constructor as the entry"
    trace "$j-ctor-init" -n 4 "$PID" tgt.Ctor '<init>' 4 "$RX"
    expect_rc 0 "Ctor.<init>"
    check_calls "$OUT" 4 "Ctor.<init>" -D 4
    expect_outline_set "$OUT" "Ctor.<init>: a tree of each outermost constructor" -d <<'EOF'
tgt.Ctor.<init>(I)V calls=1 throws=0
  tgt.Ctor.prepare(I)I calls=1 throws=0
  tgt.CtorBase.<init>(I)V calls=1 throws=0
--
tgt.Ctor.<init>()V calls=1 throws=0
  tgt.Ctor.<init>(I)V calls=1 throws=0
    tgt.Ctor.prepare(I)I calls=1 throws=0
    tgt.CtorBase.<init>(I)V calls=1 throws=0
EOF
    expect_restored "$PID" "after Ctor.<init>"
    stop_jvm "$PID"

    scenario "$jdk" rec
    note "JDK $j: recursion below the entry, cut by the depth (tgt.Rec.run, depth 4)"
    trace "$j-rec-run" -n 3 "$PID" tgt.Rec run 4 "$RX"
    expect_rc 0 "Rec.run"
    check_calls "$OUT" 3 "Rec.run" -D 4
    expect_outline "$OUT" "Rec.run" <<'EOF'
tgt.Rec.run calls=1 throws=0
  tgt.Rec.fact calls=1 throws=0
    tgt.Rec.fact calls=1 throws=0
      tgt.Rec.fact calls=1 throws=0
EOF
    expect_restored "$PID" "after Rec.run"

    note "JDK $j: a recursive entry method (tgt.Rec.fact): one tree per outermost call"
    trace "$j-rec-fact" -n 4 "$PID" tgt.Rec fact 64 "$RX"
    expect_rc 0 "Rec.fact"
    check_calls "$OUT" 4 "Rec.fact" -D 5
    expect_outline "$(after_first "$OUT")" "Rec.fact" <<'EOF'
tgt.Rec.fact calls=1 throws=0
  tgt.Rec.fact calls=1 throws=0
    tgt.Rec.fact calls=1 throws=0
      tgt.Rec.fact calls=1 throws=0
        tgt.Rec.fact calls=1 throws=0
EOF
    expect_restored "$PID" "after Rec.fact"
    trace "$j-rec-fact3" -n 3 "$PID" tgt.Rec fact 3 "$RX"
    expect_rc 0 "Rec.fact depth 3"
    check_calls "$OUT" 3 "Rec.fact depth 3" -D 3
    expect_outline "$(after_first "$OUT")" "Rec.fact depth 3" <<'EOF'
tgt.Rec.fact calls=1 throws=0
  tgt.Rec.fact calls=1 throws=0
    tgt.Rec.fact calls=1 throws=0
EOF
    expect_restored "$PID" "after Rec.fact depth 3"
    stop_jvm "$PID"
done
trace_done
