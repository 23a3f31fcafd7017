#!/usr/bin/env bash
# One class in many class loaders, on every test JDK:
# plug.Impl is defined by two URLClassLoaders before the attach and by a
# new one for every call of the entry method (scenario loaders); every copy
# is instrumented, those loaded before through the snapshot and the new
# ones as they load, so each tree holds the three calls; the plan lists the
# class once; every copy is restored. Before, only the copy of one loader
# was traced. And a class with a lambda in a loader of the application's
# own (scenario spied) has its lambda planned and traced, read from its
# code source, a directory, a jar or a directory in a jar (jar:file:...!/
# DIR/ as Spring Boot 2 writes it, jar:nested:.../!DIR/!/ as 3.2 does),
# without ever running that loader's resource lookup; defined from bytes
# in memory (no code source) or from a jar inside a jar, the plan says its
# lambdas are not followed, and why.
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
    # session or do anything else; the lambda's bootstrap method is read
    # from the class's code source: the test classes' directory, a jar, or
    # a directory in a jar (with a space in its path, which the URL encodes).
    jar=$MCT_TMP/plug-$j.jar
    "$jdk/bin/jar" cf "$jar" -C "$MCT_CLASSES" plug/Lam.class || fail "JDK $j: jar could not build $jar"
    mkdir -p "$MCT_TMP/in jar/BOOT-INF/classes/plug"
    cp "$MCT_CLASSES/plug/Lam.class" "$MCT_TMP/in jar/BOOT-INF/classes/plug/"
    boot="$MCT_TMP/in jar/boot-$j.jar"
    "$jdk/bin/jar" cf "$boot" -C "$MCT_TMP/in jar" BOOT-INF || fail "JDK $j: jar could not build $boot"
    nested="jar:nested:${boot// /%20}/!BOOT-INF"
    for where in dir "$jar" "jar:file:${boot// /%20}!/BOOT-INF/classes/" "define:$nested/classes/!/"; do
        if [ "$where" = dir ]; then scenario "$jdk" spied; else scenario "$jdk" spied "$where"; fi
        case $where in
        dir) what="JDK $j, plug.Lam from a directory" ;;
        jar:*) what="JDK $j, plug.Lam from a directory in a jar" ;;
        define:*) what="JDK $j, plug.Lam from a directory in a jar (Spring Boot's nested: URL)" ;;
        *) what="JDK $j, plug.Lam from a jar" ;;
        esac
        note "$what: its lambda is followed, and none of its loader's code runs"
        before=$(grep -c '^spied ' "$LOG" || true)
        trace "$j-spied-plan" --plan "$PID" plug.Lam applyAsLong 3 'plug\..*'
        expect_rc 0 "$what: --plan plug.Lam.applyAsLong"
        expect_grep '^  planned +plug\.Lam\.lambda\$applyAsLong\$0\(J\)J$' "$OUT" "$what: --plan: the lambda"
        expect_grep '^  planned +plug\.Lam\.twice\(J\)J$' "$OUT" "$what: --plan: the method the lambda calls"
        ! grep -q 'not followed' "$OUT" || fail "$what: --plan says a lambda is not followed: $(cat "$OUT")"
        trace "$j-spied-calls" -n 3 "$PID" plug.Lam applyAsLong 3 'plug\..*'
        expect_rc 0 "$what: tracing plug.Lam.applyAsLong"
        check_calls "$OUT" 3 "$what: plug.Lam.applyAsLong"
        expect_outline "$(after_first "$OUT")" "$what: the lambda in the tree" <<'OUTLINE'
plug.Lam.applyAsLong calls=1 throws=0
  plug.Lam.lambda$applyAsLong$0 calls=1 throws=0
    plug.Lam.twice calls=1 throws=0
OUTLINE
        [ "$(grep -c '^spied ' "$LOG" || true)" = "$before" ] ||
            fail "$what: planning ran the loader's resource lookup: $(grep '^spied ' "$LOG" | head -3)"
        expect_restored "$PID" "$what: after the session"
        stop_jvm "$PID"
    done

    # Defined from bytes in memory, plug.Lam has no code source; with a jar
    # inside a jar as its code source, it cannot be read: its lambda is not
    # followed, and the plan (and -v's on stderr) says so and why.
    for where in memory "define:$nested/lib/plug.jar!/"; do
        if [ "$where" = memory ]; then
            what="JDK $j, plug.Lam without a code source" why='has no location'
        else
            what="JDK $j, plug.Lam from a jar inside a jar" why='is a jar inside a jar'
        fi
        scenario "$jdk" spied "$where"
        note "$what: the plan says its lambdas are not followed"
        trace "$j-spied-unread" --plan "$PID" plug.Lam applyAsLong 3 'plug\..*'
        expect_rc 0 "$what: --plan plug.Lam.applyAsLong"
        ! grep -q 'lambda\$applyAsLong' "$OUT" ||
            fail "$what: --plan followed a lambda whose bootstrap methods it cannot read"
        expect_grep "plug\\.Lam\\.applyAsLong\\(J\\)J  -- lambdas and method references of plug\\.Lam not followed: .*$why" \
            "$OUT" "$what: --plan: why the lambda is not followed"
        trace "$j-spied-unread-v" -v -n 1 "$PID" plug.Lam applyAsLong 3 'plug\..*'
        expect_rc 0 "$what: tracing plug.Lam.applyAsLong"
        expect_grep "lambdas and method references of plug\\.Lam not followed: .*$why" "$ERR" "$what: -v: why on stderr"
        stop_jvm "$PID"
    done
done
trace_done
