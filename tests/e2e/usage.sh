#!/usr/bin/env bash
# The command line as a user meets it: usage errors exit 1 with one line on
# stderr that says what is wrong, --help and --version print on stdout.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

out=$MCT_TMP/out
err=$MCT_TMP/err
MCT_LAST_ERR=$err

# expect_usage_error PATTERN ARGS...
expect_usage_error() {
    local pattern=$1
    shift
    run_mct "$out" "$err" "$@"
    expect_rc 1 "mcalltree $*"
    [ "$(wc -l <"$err")" = 1 ] || fail "mcalltree $*: not one line on stderr"
    expect_grep "^mcalltree: .*$pattern.*; try 'mcalltree --help'$" "$err" "mcalltree $*"
    [ -s "$out" ] && fail "mcalltree $*: something on stdout"
    return 0
}

expect_usage_error "missing arguments"
expect_usage_error "depth must be an integer from 1 to 64, got '65'" 1 a.B m 65 x
expect_usage_error "regex must not be empty" 1 a.B m 3 ''
expect_usage_error "is not a JVM method descriptor" 1 a.B 'get(I' 3 x
expect_usage_error "unknown option --nope" --nope
expect_usage_error "unknown format 'xml'" -f xml 1 a.B m 3 x
expect_usage_error "--count cannot be used with --info" --info 1 -n 2

run_mct "$out" "$err" --help
expect_rc 0 "--help"
expect_grep '^Usage: mcalltree \[OPTIONS\] <pid> <class> <method> <depth> <regex>' "$out" "--help"
[ -s "$err" ] && fail "--help wrote to stderr"

run_mct "$out" "$err" --version
expect_rc 0 "--version"
[ "$(cat "$out")" = "mcalltree 0.1.0" ] || fail "--version printed '$(cat "$out")'"
exit 0
