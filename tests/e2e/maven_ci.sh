#!/usr/bin/env bash
# README's wrap recipe on a real build, on every test JDK: `mvn -o test` of
# tests/field/mvnproj (Debian's Maven and its maven-repo, offline; surefire
# runs the tests in a JVM of its own), wrapped by mcalltree with a call-count
# gate on rw.Checkout.run, its calls also written as JSON and compared with
# diff --fail-on-calls. Two builds of the same code pass both; a build with
# one more Repo.find per checkout (CI_EXTRA set) fails both, naming
# rw.calc.Repo.find.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"
need_root
# shellcheck source=scripts/deps
(. "$MCT_SRCDIR/scripts/deps" && mct_install_maven) || skip "Debian's Maven packages cannot be installed here"

PROJ=$MCT_TMP/mvnproj
# The local repository outlives the test: filled once from Debian's.
M2=$MCT_BUILDDIR/tests/field-m2
cp -r "$MCT_SRCDIR/tests/field/mvnproj" "$PROJ"
cat >"$PROJ/settings.xml" <<EOF
<settings><localRepository>$M2</localRepository>
  <mirrors><mirror><id>debian</id><mirrorOf>*</mirrorOf><url>file:///usr/share/maven-repo</url></mirror></mirrors>
</settings>
EOF
if [ ! -d "$M2/org/apache/maven/plugins/maven-surefire-plugin" ]; then
    (cd "$PROJ" && JAVA_HOME=$MCT_JDK_HOME mvn -q -s settings.xml test) >"$MCT_TMP/first.log" 2>&1 || {
        cat "$MCT_TMP/first.log" >&2
        fail "the project does not build from Debian's maven-repo"
    }
fi

# build JDK NAME [ENV...]: the wrapped build; sets RC and leaves its calls
# in $MCT_TMP/NAME.json, its stderr in $MCT_TMP/NAME.err.
build() {
    local jdk=$1 name=$2
    shift 2
    (cd "$PROJ" && env "$@" JAVA_HOME="$jdk" "$MCT" -f json -o "$MCT_TMP/$name.json" \
        --max-calls rw.calc.Repo.find=3 rw.calc.Checkout run 3 'rw\.calc\..*' \
        -- mvn -o -q -s settings.xml test) >"$MCT_TMP/$name.out" 2>"$MCT_TMP/$name.err"
    RC=$?
    note "$name: exit status $RC"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    note "JDK $j: two builds of the same code"
    build "$jdk" "$j-same1"
    [ "$RC" = 0 ] || { cat "$MCT_TMP/$j-same1.err" >&2; soft_fail "JDK $j: the first build exited $RC, want 0"; }
    build "$jdk" "$j-same2"
    [ "$RC" = 0 ] || { cat "$MCT_TMP/$j-same2.err" >&2; soft_fail "JDK $j: the second build exited $RC, want 0"; }
    check_calls "$MCT_TMP/$j-same1.json" +1 "JDK $j: the first build's calls"
    trace "$j-diff-same" diff --fail-on-calls "$MCT_TMP/$j-same1.json" "$MCT_TMP/$j-same2.json"
    [ "$RC" = 0 ] || { cat "$ERR" >&2; soft_fail "JDK $j: diff of two builds of the same code exited $RC, want 0"; }

    note "JDK $j: a build with one more Repo.find per checkout"
    build "$jdk" "$j-extra" CI_EXTRA=1
    [ "$RC" = 4 ] || { cat "$MCT_TMP/$j-extra.err" >&2; soft_fail "JDK $j: the build with one more call exited $RC, want 4"; }
    grep -q 'rw\.calc\.Repo\.find' "$MCT_TMP/$j-extra.err" ||
        soft_fail "JDK $j: the gate's failure does not name rw.calc.Repo.find"
    trace "$j-diff-extra" diff --fail-on-calls "$MCT_TMP/$j-same1.json" "$MCT_TMP/$j-extra.json"
    [ "$RC" = 4 ] || soft_fail "JDK $j: diff with one more call exited $RC, want 4"
    grep -q 'rw\.calc\.Repo\.find' "$ERR" || soft_fail "JDK $j: diff does not name rw.calc.Repo.find"
done
trace_done
