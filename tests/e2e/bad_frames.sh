#!/usr/bin/env bash
# Malformed, oversized and silent connections to a live agent each get a
# "protocol" error and never harm it: it still answers hello afterwards. A
# `stop` on its own connection gets "bad_request".
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    note "JDK $major"
    start_target "$jdk" "$MCT_TMP/target-$major.log" mcttest.Idle
    pid=$TARGET_PID
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info"
    sock=$(agent_sock "$pid")

    while read -r kind pattern; do
        "$PEER" raw "$sock" "$kind" >"$out" 2>"$err" || { cat "$err" >&2; fail "$kind: no reply"; }
        expect_field "$out" type error
        expect_field "$out" code protocol
        expect_grep "$pattern" "$out" "$kind"
    done <<'KINDS'
garbage bad magic
badjson invalid JSON
badversion protocol version 9
oversized exceeds the 65536-byte cap
unknown-key unknown key
truncated truncated header: 5 of 8
silent timed out
KINDS
    "$PEER" raw "$sock" stop >"$out" 2>"$err" || { cat "$err" >&2; fail "stop: no reply"; }
    expect_field "$out" code bad_request
    expect_grep 'a session is stopped on its own connection' "$out" "stop"

    "$PEER" hello "$sock" >"$out" || fail "no hello after the bad frames"
    expect_field "$out" type hello
    expect_field "$out" pid "$pid"
    run_mct "$out" "$err" --info "$pid"
    expect_rc 0 "--info after the bad frames"
    alive "$pid" || fail "the JVM died"
    stop_jvm "$pid"
done
exit 0
