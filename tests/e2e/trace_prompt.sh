#!/usr/bin/env bash
# Batched output that stays prompt, on every test JDK:
# the client writes calls to -o FILE many at a time, flushing as soon as no
# message of the agent waits, so that the tree of a rarely called method
# (tgt.Sleepy.nap, about 18 calls a second, a few KiB a second: a buffer of
# 256 KiB would take a minute to fill) is in the file within seconds, in
# -f json and -f tree; and SIGINT loses nothing: the file then holds
# exactly the calls the client counted as printed, every line whole.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# printed ERR: the calls the client printed, from its -v line at the end.
printed() {
    sed -n 's/.*session ended (stop): [0-9]* calls\{0,1\} completed, \([0-9]*\) printed.*/\1/p' "$1"
}

# titles FILE: the calls of a -f tree file (their title lines).
titles() {
    grep -c '^#[0-9]' "$1"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" sleepy
    j=$MAJOR

    for fmt in json tree; do
        file=$MCT_TMP/$j-prompt.$fmt
        note "JDK $j: tgt.Sleepy.nap to -f $fmt -o FILE: a call in the file while the session runs"
        background "$j-prompt-$fmt" -v -f "$fmt" -o "$file" "$PID" tgt.Sleepy nap 1 "$RX"
        if [ "$fmt" = json ]; then
            wait_lines "$file" 1 20 || { cat "$BG_ERR" >&2; fail "-f json: no call in $file within 20 s"; }
        else
            wait_until 20 grep -qs '^#1 ' "$file" || { cat "$BG_ERR" >&2; fail "-f tree: no call in $file within 20 s"; }
        fi
        sleep 1 # more calls, some on their way when the signal comes
        kill -INT "$BG_PID"
        RC=0
        wait "$BG_PID" || RC=$?
        MCT_LAST_ERR=$BG_ERR
        expect_rc 0 "-f $fmt, SIGINT"
        n=$(printed "$BG_ERR")
        [ -n "$n" ] && [ "$n" -ge 1 ] || { cat "$BG_ERR" >&2; fail "-f $fmt: no count of printed calls"; }
        if [ "$fmt" = json ]; then
            check_calls "$file" "$n" "-f json after SIGINT"
        else
            [ "$(titles "$file")" = "$n" ] || fail "-f tree: $(titles "$file") calls in $file, the client printed $n"
        fi
        note "JDK $j: -f $fmt: $n calls, all in the file"
    done
    expect_restored "$PID" "after the sessions"
    stop_jvm "$PID"
done
trace_done
