#!/bin/bash
# The rewriter at scale: with the agent's diagnostic
# rewrite-all mode, every method of javac's own classes gets counting probes
# as it loads; javac then compiles the JDK's java.util sources (several
# hundred files) to class files byte-identical to an uninstrumented run,
# with no VerifyError under -Xverify:all, and every entry is matched by a
# return or an exceptional exit.
. "$MCT_SRCDIR/tests/setup"

ran=0
for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    srczip=$jdk/lib/src.zip
    if ! unzip -tq "$srczip" >/dev/null 2>&1; then
        note "JDK $major: no sources at $srczip (openjdk-$major-source), skipped"
        continue
    fi
    work=$MCT_TMP/jdk$major
    mkdir -p "$work"
    unzip -q "$srczip" 'java.base/java/util/*' -d "$work/src" || fail "cannot unpack $srczip"
    find "$work/src" -name '*.java' >"$work/files"
    nfiles=$(wc -l <"$work/files")
    [ "$nfiles" -ge 300 ] || fail "JDK $major: only $nfiles sources in $srczip"
    args=(-nowarn -XDignore.symbol.file --patch-module "java.base=$work/src/java.base" "@$work/files")

    note "JDK $major: compiling $nfiles files without the agent"
    "$jdk/bin/java" -Xmx1g -cp "$MCT_CLASSES" proof.Compile "${args[@]}" -d "$work/plain" \
        >"$work/plain.out" 2>"$work/plain.err" || fail "JDK $major: plain javac failed: $(tail -5 "$work/plain.err")"
    expect_grep '^javac exit 0$' "$work/plain.out" "JDK $major: plain javac"

    note "JDK $major: compiling again with every javac method instrumented"
    "$jdk/bin/java" -Xmx1g -Xverify:all \
        "-agentpath:$MCT_AGENT=rewrite-all=com\\.sun\\.tools\\.javac\\..*" \
        -cp "$MCT_CLASSES" proof.Compile "${args[@]}" -d "$work/probed" \
        >"$work/probed.out" 2>"$work/probed.err" ||
        fail "JDK $major: instrumented javac failed: $(tail -5 "$work/probed.err")"
    expect_grep '^javac exit 0$' "$work/probed.out" "JDK $major: instrumented javac"
    if grep -q 'VerifyError\|VerificationError' "$work/probed.err"; then
        cat "$work/probed.err" >&2
        fail "JDK $major: a rewritten class failed verification"
    fi
    diff -r "$work/plain" "$work/probed" >/dev/null ||
        fail "JDK $major: the class files differ with the instrumented javac"

    line=$(grep 'rewrite-all: classes=' "$work/probed.err") || {
        cat "$work/probed.err" >&2
        fail "JDK $major: the agent printed no totals"
    }
    note "JDK $major: $line"
    val() { echo "$line" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
    classes=$(val classes) methods=$(val methods) failed=$(val failed_classes)
    enters=$(val enters) exits=$(val exits) fails=$(val fails)
    [ "$classes" -ge 500 ] || fail "JDK $major: only $classes javac classes were rewritten"
    [ "$methods" -ge 5000 ] || fail "JDK $major: only $methods methods were rewritten"
    [ "$failed" = 0 ] || fail "JDK $major: $failed classes could not be rewritten"
    [ "$enters" -gt 1000000 ] || fail "JDK $major: only $enters probe entries"
    [ "$enters" = "$((exits + fails))" ] ||
        fail "JDK $major: $enters entries but $exits returns + $fails exceptional exits"
    [ "$fails" -gt 0 ] || fail "JDK $major: no exceptional exit was counted (javac throws internally)"
    ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || skip "no JDK with sources"
exit 0
