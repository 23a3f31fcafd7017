#!/usr/bin/env bash
# A startup trace whose file cannot take more lines, on every test JDK.
# Disk full: out= on a tmpfs of 256 KiB, nearly filled by another file;
# tgt.Start calls its entry method every 5 ms until the disk is full. The
# JVM's stderr says the write failed and that the trace ends; the JVM runs
# on; once the other file is removed and the JVM is stopped, every line of
# the file is a whole JSON object (no part line), a gap line counts the
# lines lost, and the end (reason stop, with its probe overhead) is last.
# Removed: the trace file of a running JVM is deleted; the agent says so on
# stderr and ends its session (--info: no session, no class instrumented).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

need_root
mnt=$MCT_TMP/small
mkdir "$mnt"
mount -t tmpfs -o size=256k,mode=700 mcttest "$mnt" 2>"$MCT_TMP/mount.err" ||
    skip "cannot mount a tmpfs here: $(cat "$MCT_TMP/mount.err")"
# mct_cleanup (tests/setup) removes $MCT_TMP: unmount first.
trap 'umount -l "$mnt" 2>/dev/null; mct_cleanup' EXIT

# whole_lines FILE WHAT: every line of FILE is one JSON object.
whole_lines() {
    python3 - "$1" "$2" <<'PY' || fail "$2: a line of $1 is not whole JSON"
import json, sys
with open(sys.argv[1], 'rb') as f:
    data = f.read()
if data and not data.endswith(b'\n'):
    sys.exit('the file ends in a part line')
for i, line in enumerate(data.split(b'\n')[:-1], 1):
    try:
        if not isinstance(json.loads(line), dict):
            raise ValueError('not an object')
    except ValueError as e:
        sys.exit('line %d: %s: %r' % (i, e, line[:80]))
PY
}

# ended: whether the JVM $TARGET_PID has no session and no class
# instrumented (--info, in $MCT_TMP/info.out).
ended() {
    run_mct "$MCT_TMP/info.out" "$MCT_TMP/info.err" --info "$TARGET_PID"
    [ "$RC" = 0 ] && [ "$(json_get "$MCT_TMP/info.out" session)" = null ] &&
        [ "$(json_get "$MCT_TMP/info.out" instrumented_classes)" = 0 ]
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")

    note "JDK $j: the disk fills during the trace"
    rm -f "$mnt"/*
    head -c 200000 /dev/zero >"$mnt/filler"
    f=$mnt/$j.ndjson
    LOG=$MCT_TMP/full-$j.log
    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=trace=tgt.StartEntry.run,depth=2,out=$f")
    start_target "$jdk" "$LOG" tgt.Start later 0
    unset MCT_JVM_OPTS
    wait_until 60 grep -q "writing the trace to $f: No space left on device; the trace ends" "$LOG" ||
        fail "no word on stderr of the full disk within 60 s: $(cat "$LOG")"
    alive "$TARGET_PID" || fail "the JVM did not run on"
    whole_lines "$f" "the disk full"
    rm -f "$mnt/filler"
    term_jvm "$TARGET_PID" || fail "the JVM did not exit on SIGTERM"
    whole_lines "$f" "space back"
    grep -q '^{"type":"gap","lines_lost":[1-9][0-9]*}$' "$f" || fail "no gap line counting the lines lost"
    tail -n 1 "$f" | grep -q '^{"type":"end","reason":"stop",.*"detail":"the trace file cannot be written","probe_ns":' ||
        fail "the last line is not the end of the stopped session: $(tail -n 1 "$f")"
    [ "$(grep -c '"type":"end"' "$f")" = 1 ] || fail "not one end line"

    note "JDK $j: the trace file is removed while the JVM runs"
    d=$MCT_TMP/removed-$j
    mkdir -m 700 "$d"
    LOG=$MCT_TMP/removed-$j.log
    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=trace=tgt.StartEntry.run,depth=2,verbose,out=$d/t.ndjson")
    start_target "$jdk" "$LOG" tgt.Start later 0
    unset MCT_JVM_OPTS
    wait_until 30 grep -q '"type":"call"' "$d/t.ndjson" || fail "no call within 30 s"
    ended && fail "--info sees no session before the file is removed"
    rm "$d/t.ndjson"
    wait_until 10 grep -q "the trace file $d/t.ndjson was removed: the trace ends" "$LOG" ||
        fail "the removal was not said within 10 s: $(cat "$LOG")"
    wait_until 10 ended || fail "the session did not end, or left classes instrumented: $(cat "$MCT_TMP/info.out")"
    alive "$TARGET_PID" || fail "the JVM did not run on"
    stop_jvm "$TARGET_PID"
done
echo PASS
