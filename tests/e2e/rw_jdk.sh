#!/bin/bash
# rw_jdk.sh — the rewriter on a whole JDK: every method of every class file
# of each test JDK's modules is rewritten; every output must parse, every
# rewritten method must decode and carry its catch-all and a StackMapTable
# that decodes (rwtool check). Prints the counts of rewritten and skipped
# methods by reason.
. "$MCT_SRCDIR/tests/setup"

RWTOOL=$MCT_BUILDDIR/tests/unit/rwtool
ran=0
for jdk in $MCT_TEST_JDKS; do
    jimage=$jdk/bin/jimage
    [ -x "$jimage" ] || jimage=$MCT_JDK_HOME/bin/jimage
    if [ ! -x "$jimage" ] || [ ! -f "$jdk/lib/modules" ]; then
        note "$jdk: no jimage or lib/modules, not checked"
        continue
    fi
    dir=$MCT_TMP/jdk-$(jdk_major "$jdk")
    mkdir -p "$dir"
    "$jimage" extract --dir "$dir" "$jdk/lib/modules" || fail "$jdk: jimage extract failed"
    note "rewriting every method of $jdk"
    if ! "$RWTOOL" check "$dir" >"$MCT_TMP/check.out" 2>"$MCT_TMP/check.err"; then
        cat "$MCT_TMP/check.out" >&2
        head -50 "$MCT_TMP/check.err" >&2
        fail "$jdk: the rewritten JDK has failures"
    fi
    cat "$MCT_TMP/check.out" >&2
    grep -Eq '^classes [1-9][0-9]*, methods [0-9]+: rewritten [1-9]' "$MCT_TMP/check.out" ||
        fail "$jdk: nothing was rewritten"
    rm -rf "$dir"
    ran=1
done
[ "$ran" = 1 ] || skip "no JDK with jimage and lib/modules"
exit 0
