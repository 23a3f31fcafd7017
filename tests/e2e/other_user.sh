#!/usr/bin/env bash
# A JVM running as another user (nobody): root attaches acting as that user
# (the agent's socket directory and every file belong to nobody), nobody
# itself attaches to its own JVM, and nobody is told it may not attach to a
# JVM of root.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
need_root
command -v setpriv >/dev/null || skip "no setpriv"

make_kit
MCT_CLASSES=$KIT/classes
nobody=65534
as_nobody=(setpriv --reuid=$nobody --regid=$nobody --clear-groups)
out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err
chmod 777 "$MCT_TMP"

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")

    note "JDK $major: root attaches to a JVM of nobody"
    MCT_RUN_AS=$nobody
    start_target "$jdk" "$MCT_TMP/nobody-$major.log" mcttest.Idle
    unset MCT_RUN_AS
    pid=$TARGET_PID
    run_mct "$out" "$err" -v --info "$pid"
    expect_rc 0 "root --info of a JVM of nobody"
    expect_grep "acting as uid $nobody, gid $nobody" "$err" "root --info"
    expect_field "$out" pid "$pid"
    [ "$(stat -c %u "/tmp/.mcalltree-$pid")" = $nobody ] || fail "socket directory not nobody's"
    [ "$(stat -c %u "/tmp/.mcalltree-$pid/agent.sock")" = $nobody ] || fail "socket not nobody's"
    ls -A /tmp | grep -q "^\.mcalltree-agent-$pid-" && fail "a copy of the agent was left behind"

    note "JDK $major: nobody attaches to its own JVM"
    rc=0
    "${as_nobody[@]}" "$KIT/mcalltree" --agent "$KIT/libmcalltree.so" --info "$pid" \
        >"$out" 2>"$err" || rc=$?
    RC=$rc
    expect_rc 0 "nobody --info of its own JVM"
    expect_field "$out" loads 1
    stop_jvm "$pid"

    note "JDK $major: nobody may not attach to a JVM of root"
    start_target "$jdk" "$MCT_TMP/root-$major.log" mcttest.Idle
    rc=0
    "${as_nobody[@]}" "$KIT/mcalltree" --agent "$KIT/libmcalltree.so" --info "$TARGET_PID" \
        >"$out" 2>"$err" || rc=$?
    RC=$rc
    expect_rc 2 "nobody --info of a JVM of root"
    expect_grep "process $TARGET_PID belongs to uid 0: run mcalltree as that user or as root" \
        "$err" "permission"
    stop_jvm "$TARGET_PID"
done
exit 0
