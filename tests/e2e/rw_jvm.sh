#!/bin/bash
# rw_jvm.sh — every method of the rewriter's fixtures (tests/java/fixtures/rw,
# the generated rwbig.Big, rwold.Old7 built with --release 7, and the
# hand-assembled Old49, Old50 and Jsr49 of rwtool gen) is rewritten with the
# probes of rwprobe.Probe; original and rewritten run on every test JDK with
# -Xverify:all and must print the same, with no VerifyError, every entry
# matched by an exit or a fail, and fails where the fixtures throw.
. "$MCT_SRCDIR/tests/setup"

RWTOOL=$MCT_BUILDDIR/tests/unit/rwtool
ORIG=$MCT_TMP/orig
RW=$MCT_TMP/rw
mkdir -p "$ORIG/gen" "$RW"

# name  original class path  main class  want fails>0
cases="fixtures:$MCT_CLASSES:rwfx.Main:yes
big:$MCT_BUILDDIR/tests/java/rwbig/classes:rwbig.Big:no
old7:$MCT_BUILDDIR/tests/java/rwold:rwold.Old7:yes
old49:$ORIG/gen:Old49:yes
old50:$ORIG/gen:Old50:yes
jsr49:$ORIG/gen:Jsr49:no"

"$RWTOOL" gen "$ORIG/gen" || fail "rwtool gen failed"

# rewrite: the packages of each case into $RW/<name>
rewrite() {
    local name=$1 cp=$2 main=$3 pkg
    mkdir -p "$RW/$name"
    case $main in
        *.*) pkg=${main%%.*}
             "$RWTOOL" rewrite "$cp/$pkg" "$RW/$name/$pkg" >"$MCT_TMP/$name.manifest" ||
                 fail "$name: rwtool rewrite failed" ;;
        *) "$RWTOOL" rewrite "$cp" "$RW/$name" >"$MCT_TMP/$name.manifest" ||
               fail "$name: rwtool rewrite failed" ;;
    esac
}

while IFS=: read -r name cp main want_fails; do
    rewrite "$name" "$cp" "$main"
done <<<"$cases"

# Only methods without code are left alone, except the jsr/ret subroutine.
if grep '^skip' "$MCT_TMP"/*.manifest | grep -v -e 'abstract method has no code' -e 'native method has no code' |
    grep -v 'Jsr49 fin (I)I: uses jsr/ret subroutines' >"$MCT_TMP/skips"; then
    cat "$MCT_TMP/skips" >&2
    fail "methods were skipped"
fi
grep -q 'Jsr49 fin (I)I: uses jsr/ret subroutines' "$MCT_TMP/jsr49.manifest" || fail "Jsr49.fin was not skipped for jsr/ret"
for m in bigIf bigLoop bigDo; do
    grep -Eq " rwbig/Big $m \(I\)I widened=[1-9]" "$MCT_TMP/big.manifest" || fail "Big.$m needed no widening"
done
grep -Eq '^[0-9]{5} ' "$MCT_TMP/fixtures.manifest" || fail "no fixture got an id above 32767"

# run JDK NAME CP MAIN OUT: runs MAIN with -Xverify:all
run() {
    local jdk=$1 cp=$2 main=$3 out=$4
    "$jdk/bin/java" -Xshare:auto -Xverify:all -cp "$cp" "$main" >"$out.out" 2>"$out.err"
    echo $? >"$out.rc"
}

for jdk in $MCT_TEST_JDKS; do
    v=$(jdk_major "$jdk")
    while IFS=: read -r name cp main want_fails; do
        o=$MCT_TMP/$name-$v-orig r=$MCT_TMP/$name-$v-rw
        run "$jdk" "$cp:$MCT_CLASSES" "$main" "$o"
        run "$jdk" "$RW/$name:$cp:$MCT_CLASSES" "$main" "$r"
        if [ "$(cat "$o.rc")" != 0 ]; then
            cat "$o.err" >&2
            fail "$name on $v: the original fails"
        fi
        if [ "$(cat "$r.rc")" != 0 ] || grep -q 'VerifyError' "$r.err"; then
            cat "$r.err" >&2
            fail "$name on $v: the rewritten classes fail"
        fi
        if ! cmp -s "$o.out" "$r.out"; then
            diff "$o.out" "$r.out" >&2
            fail "$name on $v: the rewritten classes print something else"
        fi
        if grep -q '^PROBE unbalanced' "$r.err"; then
            grep '^PROBE' "$r.err" >&2
            fail "$name on $v: entries without an exit or a fail"
        fi
        totals=$(grep '^PROBE enters=' "$r.err") || { cat "$r.err" >&2; fail "$name on $v: no probe totals"; }
        set -- $(echo "$totals" | sed 's/[^0-9 ]//g')
        [ "$1" -gt 0 ] || fail "$name on $v: no probe ran ($totals)"
        [ "$1" = $(($2 + $3)) ] || fail "$name on $v: enters != exits + fails ($totals)"
        if [ "$want_fails" = yes ] && [ "$3" = 0 ]; then
            fail "$name on $v: no exceptional exit was seen ($totals)"
        fi
        note "$name on $v: same output, $totals"
    done <<<"$cases"
done
exit 0
