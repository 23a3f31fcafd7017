#!/usr/bin/env bash
# A startup trace's verdict no other user can write, on every test JDK.
# The attack: in a directory every user can write to (mode 1777, as
# /var/tmp), nobody creates the out= file of root's coming JVM first, with a
# forged passing gate and end. root's JVM, whose gate fails, then runs
# untraced (its stderr says it could not create the file, and warns about
# the directory), and a `grep '"passed":true'` of the file passes; `mcalltree
# verdict` must fail it, naming the owner. In a private directory: a passed
# gate exits 0 (--pid the JVM's: 0; another pid: 5), a failed one 4 with the
# message; a file cut short (no end), one others can write to, a symbolic
# link, a file with no gate line, and one whose trace ended before the JVM
# (reason stop: a full disk, a removed file): 5.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"

command -v setpriv >/dev/null || skip "no setpriv"
need_root
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# run_java JDK NAME OPTIONS: tgt.Start now 3 with the agent and OPTIONS;
# stderr in $MCT_TMP/NAME.err; sets RC.
run_java() {
    RC=0
    timeout 60 "$1/bin/java" -Xshare:auto "-agentpath:$MCT_AGENT=$3" -cp "$MCT_CLASSES" tgt.Start now 3 \
        >"$MCT_TMP/$2.out" 2>"$MCT_TMP/$2.err" || RC=$?
}

# verdict NAME ARGS...: mcalltree verdict ARGS, stderr in $MCT_TMP/NAME.verr; sets RC.
verdict() {
    local name=$1
    shift
    MCT_LAST_ERR=$MCT_TMP/$name.verr
    run_mct "$MCT_TMP/$name.vout" "$MCT_LAST_ERR" verdict "$@"
}

gate_ok=max-calls=tgt.StartEntry.twice=1
gate_bad=max-calls=tgt.StartEntry.run=0
chmod 711 "$MCT_TMP"
for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")

    note "JDK $j: nobody forges the verdict of root's JVM in a shared directory"
    shared=$MCT_TMP/shared-$j
    mkdir "$shared"
    chmod 1777 "$shared"
    "${as_nobody[@]}" sh -c "printf '%s\n' '{\"type\":\"start\",\"pid\":1}' \
        '{\"type\":\"gate\",\"passed\":true,\"failures\":[]}' '{\"type\":\"end\",\"reason\":\"jvm_exit\"}' \
        >$shared/app.ndjson" || fail "nobody cannot write to the shared directory"
    run_java "$jdk" "$j-forged" "trace=tgt.StartEntry.run,depth=2,$gate_bad,out=$shared/app.ndjson"
    expect_rc 0 "root's JVM"
    expect_grep "cannot create the trace file $shared/app.ndjson: File exists" "$MCT_TMP/$j-forged.err" \
        "the agent's refusal"
    expect_grep "WARNING: the trace file's directory $shared is writable by other users" \
        "$MCT_TMP/$j-forged.err" "the warning about the shared directory"
    grep -q '"passed":true' "$shared/app.ndjson" || fail "the forged file lost its verdict"
    verdict "$j-forged" "$shared/app.ndjson"
    expect_rc 5 "verdict of the forged file"
    expect_grep "belongs to uid 65534, not to uid 0: not the JVM's own file" "$MCT_TMP/$j-forged.verr" \
        "verdict of the forged file"

    note "JDK $j: a private directory: passed, failed, another pid"
    d=$MCT_TMP/private-$j
    mkdir -m 700 "$d"
    run_java "$jdk" "$j-ok" "trace=tgt.StartEntry.run,depth=2,$gate_ok,out=$d/ok-{pid}.ndjson"
    expect_rc 0 "the JVM whose gate passes"
    ok=$(find "$d" -name 'ok-*')
    [ -f "$ok" ] || fail "no trace file in $d"
    expect_no_grep "WARNING" "$MCT_TMP/$j-ok.err" "a private directory"
    verdict "$j-ok" "$ok"
    expect_rc 0 "verdict of a passed gate"
    pid=${ok##*/ok-}
    pid=${pid%.ndjson}
    verdict "$j-okpid" "$ok" --pid "$pid" --user root
    expect_rc 0 "verdict of a passed gate with its pid and user"
    verdict "$j-otherpid" "$ok" --pid $((pid + 1))
    expect_rc 5 "verdict with another pid"
    expect_grep "is the trace of pid $pid, not of pid $((pid + 1))" "$MCT_TMP/$j-otherpid.verr" "another pid"
    verdict "$j-nobody" "$ok" --user nobody
    expect_rc 5 "verdict expecting another user"

    run_java "$jdk" "$j-bad" "trace=tgt.StartEntry.run,depth=2,$gate_bad,out=$d/bad.ndjson"
    expect_rc 0 "the JVM whose gate fails"
    verdict "$j-bad" "$d/bad.ndjson"
    expect_rc 4 "verdict of a failed gate"
    expect_grep "max-calls tgt.StartEntry.run=0" "$MCT_TMP/$j-bad.verr" "the failure's message"

    note "JDK $j: a file cut short, one others can write to, a link, no gate"
    head -n -1 "$ok" >"$d/cut.ndjson"
    chmod 600 "$d/cut.ndjson"
    verdict "$j-cut" "$d/cut.ndjson"
    expect_rc 5 "verdict of a file with no end"
    expect_grep "is not the end line" "$MCT_TMP/$j-cut.verr" "a file with no end"
    cp -p "$ok" "$d/open.ndjson"
    chmod 622 "$d/open.ndjson"
    verdict "$j-open" "$d/open.ndjson"
    expect_rc 5 "verdict of a file others can write to"
    ln -s "$ok" "$d/link.ndjson"
    verdict "$j-link" "$d/link.ndjson"
    expect_rc 5 "verdict through a symbolic link"
    sed '$s/"reason":"jvm_exit"/"reason":"stop","detail":"the trace file cannot be written"/' "$ok" >"$d/stop.ndjson"
    chmod 600 "$d/stop.ndjson"
    verdict "$j-stop" "$d/stop.ndjson"
    expect_rc 5 "verdict of a trace that ended early"
    expect_grep "ended before the JVM did \(the trace file cannot be written\)" "$MCT_TMP/$j-stop.verr" "ended early"
    run_java "$jdk" "$j-nogate" "trace=tgt.StartEntry.run,depth=2,out=$d/nogate.ndjson"
    verdict "$j-nogate" "$d/nogate.ndjson"
    expect_rc 5 "verdict of a trace with no gate"
    expect_grep "has no gate line" "$MCT_TMP/$j-nogate.verr" "no gate"
done
echo PASS
