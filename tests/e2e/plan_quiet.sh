#!/usr/bin/env bash
# --plan leaves the JVM as it was, on every test JDK:
# planning reads class files from JVMTI and retransforms nothing, so no
# code C2 compiled is made not entrant (-XX:+PrintCompilation says when
# some is: on main, the capture retransformation discarded all of it) and
# no class is redefined (-Xlog:redefine+class+load says which are). A
# session then redefines only the class it instruments, and the same
# reading of the log must show that it made tgt.Quiet.work's C2 code not
# entrant: the positive control, without which a JDK that words its lines
# otherwise would pass the --plan check unseen.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# quiet LOG SEC LIMIT: waits until LOG has had no new line for SEC
# seconds (the JIT is done with what ran), at most LIMIT seconds.
quiet() {
    local log=$1 sec=$2 limit=$3 n last since=0 t
    last=$(wc -l <"$log")
    for ((t = 0; t < limit * 10; t++)); do
        sleep 0.1
        n=$(wc -l <"$log")
        if [ "$n" != "$last" ]; then
            last=$n
            since=0
        elif [ $((++since)) -ge $((sec * 10)) ]; then
            return 0
        fi
    done
    return 1
}

# since LINE LOG: the lines of LOG after its first LINE lines.
since() {
    tail -n +$(($1 + 1)) "$2"
}

# last_id LINE LOG: the highest compile id of PrintCompilation's lines
# ("TIME ID FLAGS LEVEL METHOD ...") among the first LINE lines of LOG.
last_id() {
    head -n "$1" "$2" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && $2 > m { m = $2 } END { print m + 0 }'
}

# discarded ID: the lines of stdin saying that code C2 compiled (level 4)
# as ID or before was made not entrant. Reading a class file for its
# bootstrap methods runs Java code (Class.getResourceAsStream): the JIT may
# move methods it runs to their next level, which makes their code of a
# lower level not entrant; the optimized code that ran before stays.
discarded() {
    awk -v id="$1" '/made not entrant/ && $2 ~ /^[0-9]+$/ && $2 <= id {
        for (i = 3; i <= NF; i++) if ($i ~ /^[0-4]$/) { if ($i == 4) print; break }
    }'
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    LOG=$MCT_TMP/jvm-$j-quiet.log
    MCT_JVM_OPTS=(-XX:+PrintCompilation -Xlog:redefine+class+load=info)
    start_target "$jdk" "$LOG" tgt.Quiet park
    unset MCT_JVM_OPTS
    PID=$TARGET_PID
    expect_grep 'tgt\.Quiet::work ' "$LOG" "JDK $j: tgt.Quiet.work was compiled"

    note "JDK $j: the agent is loaded (--info), the JIT falls quiet"
    quiet "$LOG" 3 90 || fail "JDK $j: the JIT did not fall quiet for 3 s within 90 s"
    trace "$j-info" --info "$PID"
    expect_rc 0 "--info"
    quiet "$LOG" 3 90 || fail "JDK $j: the JIT did not fall quiet after --info"
    expect_no_grep 'cannot give capability' "$LOG" "JDK $j: every capability the agent asks for"

    note "JDK $j: --plan makes no compiled method not entrant and redefines no class"
    before=$(wc -l <"$LOG")
    id=$(last_id "$before" "$LOG")
    [ "$id" -gt 0 ] || fail "JDK $j: no PrintCompilation line in $LOG"
    trace "$j-plan" --plan "$PID" tgt.Quiet work 3 'tgt\..*'
    expect_rc 0 "--plan"
    expect_grep '^ +planned +tgt\.Quiet\.step\(I\)J' "$OUT" "the callee"
    expect_grep '^ +planned +tgt\.Quiet\.lambda\$work\$0\(I\)I' "$OUT" "the lambda body"
    # What a retransformation would have done is done by the time it returns.
    quiet "$LOG" 1 30
    since "$before" "$LOG" >"$MCT_TMP/$j-after-plan"
    discarded "$id" <"$MCT_TMP/$j-after-plan" >"$MCT_TMP/$j-discarded"
    [ ! -s "$MCT_TMP/$j-discarded" ] || {
        cat "$MCT_TMP/$j-discarded" >&2
        fail "JDK $j: --plan made code C2 compiled before it not entrant (above)"
    }
    expect_no_grep 'redefined name=' "$MCT_TMP/$j-after-plan" "JDK $j: --plan redefined a class"

    note "JDK $j: a session redefines tgt.Quiet only (instrumenting, restoring)"
    before=$(wc -l <"$LOG")
    id=$(last_id "$before" "$LOG")
    trace "$j-session" -t 1 "$PID" tgt.Quiet work 3 'tgt\..*'
    expect_rc 0 "the session"
    quiet "$LOG" 1 30
    since "$before" "$LOG" | discarded "$id" >"$MCT_TMP/$j-session-discarded"
    expect_grep 'tgt\.Quiet::work ' "$MCT_TMP/$j-session-discarded" \
        "JDK $j: the session made tgt.Quiet.work's C2 code not entrant (the log's lines are read right)"
    since "$before" "$LOG" | sed -n 's/.*redefined name=\([^,]*\),.*/\1/p' | sort -u >"$MCT_TMP/$j-redefined"
    [ "$(cat "$MCT_TMP/$j-redefined")" = tgt.Quiet ] || {
        cat "$MCT_TMP/$j-redefined" >&2
        fail "JDK $j: the session redefined other classes than tgt.Quiet (above)"
    }
    expect_restored "$PID" "JDK $j: after the session"
    stop_jvm "$PID"
done
exit 0
