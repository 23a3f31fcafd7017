#!/usr/bin/env bash
# The agent refuses a peer whose uid is neither the JVM's nor root, even one
# that gets past the 0700 socket directory (CAP_DAC_OVERRIDE): SO_PEERCRED
# decides, the peer gets a "denied" error, the agent goes on serving.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
need_root
command -v setpriv >/dev/null || skip "no setpriv"

make_kit
out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err
intruder=(setpriv --reuid=65534 --regid=65534 --clear-groups
    --inh-caps=+dac_override --ambient-caps=+dac_override)

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    note "JDK $major"
    start_target "$jdk" "$MCT_TMP/target-$major.log" mcttest.Idle
    pid=$TARGET_PID
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info"
    sock=$(agent_sock "$pid")

    rc=0
    "${intruder[@]}" "$KIT/mct-peer" hello "$sock" >"$out" 2>"$err" || rc=$?
    [ "$rc" = 0 ] || { cat "$err" >&2; fail "the intruder got no reply (status $rc)"; }
    expect_field "$out" type error
    expect_field "$out" code denied
    expect_grep 'uid 65534 may not use the mcalltree agent of this JVM' "$out" "denied"

    # Root (the JVM's user here) is still served.
    "$PEER" hello "$sock" >"$out" || fail "no hello after the refusal"
    expect_field "$out" type hello
    stop_jvm "$pid"
done
exit 0
