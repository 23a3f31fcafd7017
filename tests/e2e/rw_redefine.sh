#!/bin/bash
# rw_redefine.sh — the strongest check of the rewriter: every class of each
# test JDK's modules is rewritten (probes: java.lang.RwProbe, empty, patched
# into java.base so that every module can call it) and a Java agent
# redefines each loadable class with its rewritten bytes in a JVM run with
# -Xverify:all; a redefined class is always verified, so any frame, offset
# or handler the rewriter gets wrong fails here. Then a small workload runs
# on the instrumented JDK. The only redefinitions allowed to fail are the
# JFR event classes, whose loaded form JFR itself changes.
. "$MCT_SRCDIR/tests/setup"

RWTOOL=$MCT_BUILDDIR/tests/unit/rwtool
FX=$MCT_SRCDIR/tests/java/fixtures/rw
JDKBIN=$MCT_JDK_HOME/bin
mkdir -p "$MCT_TMP/patch" "$MCT_TMP/agent"
"$JDKBIN/javac" -nowarn -d "$MCT_TMP/patch" --patch-module "java.base=$FX/rwpatch" \
    "$FX/rwpatch/java/lang/RwProbe.java" || fail "cannot compile RwProbe"
"$JDKBIN/javac" -nowarn -d "$MCT_TMP/agent" "$FX/rwverify/Redefine.java" || fail "cannot compile Redefine"
printf 'Premain-Class: rwverify.Redefine\nCan-Redefine-Classes: true\n' >"$MCT_TMP/manifest"
"$JDKBIN/jar" cfm "$MCT_TMP/agent.jar" "$MCT_TMP/manifest" -C "$MCT_TMP/agent" . || fail "cannot build the agent jar"

ran=0
for jdk in $MCT_TEST_JDKS; do
    v=$(jdk_major "$jdk")
    jimage=$jdk/bin/jimage
    if [ ! -x "$jimage" ] || [ ! -f "$jdk/lib/modules" ]; then
        note "$jdk: no jimage or lib/modules, not checked"
        continue
    fi
    src=$MCT_TMP/jdk-$v rw=$MCT_TMP/rw-$v out=$MCT_TMP/redefine-$v.out
    "$jimage" extract --dir "$src" "$jdk/lib/modules" || fail "$jdk: jimage extract failed"
    "$RWTOOL" rewrite -p java/lang/RwProbe "$src" "$rw" >"$MCT_TMP/manifest-$v" ||
        fail "$jdk: rwtool rewrite failed"
    rm -rf "$src"
    note "redefining every class of $jdk with its rewritten bytes"
    "$jdk/bin/java" -Xshare:auto -Xverify:all --patch-module "java.base=$MCT_TMP/patch" --add-modules ALL-SYSTEM \
        -javaagent:"$MCT_TMP/agent.jar=$rw" -cp "$MCT_TMP/agent" rwverify.Redefine >"$out" 2>&1
    rc=$?
    grep -v '^FAIL' "$out" >&2
    if grep '^FAIL' "$out" | grep -Ev '^FAIL (jdk\.jfr\.|jdk\.internal\.event\.)[^:]*: .*attempted to change' >&2; then
        fail "$jdk: rewritten classes failed to redefine"
    fi
    [ "$rc" = 0 ] || fail "$jdk: the JVM with the rewritten JDK exited with $rc"
    grep -Eq '^REDEFINED [1-9][0-9]{3,} ' "$out" || fail "$jdk: too few classes were redefined"
    grep -q '^RUN ' "$out" || fail "$jdk: the workload did not run"
    rm -rf "$rw"
    ran=1
done
[ "$ran" = 1 ] || skip "no JDK with jimage and lib/modules"
exit 0
