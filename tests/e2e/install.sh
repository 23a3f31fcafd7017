#!/usr/bin/env bash
# make install (into a DESTDIR) puts the binary, the agent and the man page
# in place, and the installed binary finds the installed agent by default:
# the staged prefix is bind-mounted at the real one in a private mount
# namespace, where the client then attaches to a JVM outside it.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
need_root
command -v unshare >/dev/null || skip "no unshare"

dest=$MCT_TMP/dest
out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err
mkvar() {
    sed -n "s/^$1 = //p" "$MCT_BUILDDIR/Makefile"
}
prefix=$(mkvar prefix)
# A clean make: not the jobserver of the make check that runs this test.
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$MCT_BUILDDIR" install DESTDIR="$dest" \
    >"$out" 2>&1 || { cat "$out" >&2; fail "make install failed"; }

bin=$(find "$dest" -path '*/bin/mcalltree' -type f)
lib=$(find "$dest" -path '*/mcalltree/libmcalltree.so' -type f)
man=$(find "$dest" -path '*/man1/mcalltree.1' -type f)
[ -x "$bin" ] || fail "no installed mcalltree"
[ -f "$lib" ] || fail "no installed libmcalltree.so"
[ -f "$man" ] || fail "no installed man page"
grep -q '^\.TH MCALLTREE 1' "$man" || fail "the man page has no .TH line"
[ "$bin" = "$dest$prefix/bin/mcalltree" ] || fail "mcalltree installed at $bin"
case $lib in
"$dest$prefix"/*) ;;
*) fail "libmcalltree.so installed outside the prefix: $lib" ;;
esac
[ -d "$prefix" ] || skip "$prefix does not exist to mount on"

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    note "JDK $major: the installed client finds the installed agent"
    start_target "$jdk" "$MCT_TMP/target-$major.log" mcttest.Idle
    rc=0
    env -u MCALLTREE_AGENT unshare --mount --propagation private sh -c \
        'mount --bind "$1$2" "$2" && exec "$2/bin/mcalltree" -v --info "$3"' \
        sh "$dest" "$prefix" "$TARGET_PID" >"$out" 2>"$err" || rc=$?
    RC=$rc
    expect_rc 0 "installed mcalltree --info"
    expect_grep "agent library: ${lib#"$dest"} \(installed\)" "$err" "default agent path"
    expect_field "$out" pid "$TARGET_PID"
    stop_jvm "$TARGET_PID"
done
exit 0
