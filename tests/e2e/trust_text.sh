#!/usr/bin/env bash
# Text from the JVM never drives the terminal: a method whose name
# holds ESC, BEL, DEL and the C1 control CSI (mcttest.Ctl, its class file
# patched after javac, which drops such characters) is shown with '?' in
# their place by --plan, by -v's plan and by the agent's "no such method"
# message, the raw bytes never; in JSON (the default format, --plan -f json,
# -f chrome) it is escaped (\u001B, \u0007, \u007F, \u009B), so that the
# output still parses and means the same, and holds no raw control byte.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
command -v perl >/dev/null || skip "no perl"

out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err

mkdir -p "$MCT_TMP/ctl/mcttest"
perl -0777 -pe 's/evXilYxZZ/ev\x1bil\x07\x7f\xc2\x9b/g' "$MCT_CLASSES/mcttest/Ctl.class" \
    >"$MCT_TMP/ctl/mcttest/Ctl.class"
LC_ALL=C grep -q $'ev\x1bil\x07\x7f' "$MCT_TMP/ctl/mcttest/Ctl.class" || fail "the class was not patched"
MCT_CLASSES=$MCT_TMP/ctl
shown='ev\?il\?\?\?'
escaped='ev\u001Bil\u0007\u007F\u009B'

# expect_clean FILE WHAT: fails if FILE holds ESC, BEL, DEL or CSI.
expect_clean() {
    if LC_ALL=C grep -q $'\x1b\|\x07\|\x7f\|\xc2\x9b' "$1"; then
        od -c "$1" >&2
        fail "$2: a control character of the JVM's reached the terminal"
    fi
    return 0
}

# expect_json_clean FILE WHAT: FILE, JSON, holds no raw control byte (C0
# but newlines, DEL, C1), parses, and has the method's name escaped.
expect_json_clean() {
    if LC_ALL=C grep -qP '[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"; then
        od -c "$1" >&2
        fail "$2: a raw control byte in the JSON"
    fi
    "$PEER" get "$1" "" >/dev/null || fail "$2: the output does not parse as JSON"
    grep -qF -- "$escaped" "$1" || { cat "$1" >&2; fail "$2: the method's name is not escaped as $escaped"; }
}

for jdk in $MCT_TEST_JDKS; do
    major=$(jdk_major "$jdk")
    note "JDK $major"
    start_target "$jdk" "$MCT_TMP/ctl-$major.log" mcttest.Ctl
    pid=$TARGET_PID

    run_mct "$out" "$err" --plan "$pid" mcttest.Ctl run 2 'mcttest\..*'
    expect_rc 0 "--plan"
    expect_grep "mcttest\.Ctl\.$shown\(\)I" "$out" "--plan"
    expect_clean "$out" "--plan"

    run_mct "$out" "$err" --plan -f json "$pid" mcttest.Ctl run 2 'mcttest\..*'
    expect_rc 0 "--plan -f json"
    expect_field "$out" type plan
    expect_json_clean "$out" "--plan -f json"

    run_mct "$out" "$err" -v -n 1 "$pid" mcttest.Ctl run 2 'mcttest\..*'
    expect_rc 0 "-v"
    expect_grep "^  instrumented +mcttest\.Ctl\.$shown\(\)I" "$err" "-v's plan"
    expect_clean "$err" "-v"
    expect_field "$out" type call
    expect_json_clean "$out" "the default format (json)"

    run_mct "$out" "$err" -n 1 -f chrome "$pid" mcttest.Ctl run 2 'mcttest\..*'
    expect_rc 0 "-f chrome"
    expect_json_clean "$out" "-f chrome"

    run_mct "$out" "$err" "$pid" mcttest.Ctl nosuch 2 'mcttest\..*'
    expect_rc 3 "no such method"
    expect_grep "has no method nosuch.*Its methods: .*$shown" "$err" "no such method"
    expect_clean "$err" "no such method"
    stop_jvm "$pid"
done
exit 0
