#!/usr/bin/env bash
# Planning's bounds, on every test JDK: a regex that
# backtracks exponentially is refused at the first class name it stalls on
# (limit: regex work per name); a regex that takes thousands of steps on
# every name is refused once its work over the plan is spent (limit: regex
# work over the plan); both exit 3 with the limit named. A client killed
# while the agent plans, or interrupted (Ctrl-C: exit 0, nothing traced),
# stops the planning (the agent, loaded with its verbose option, says so)
# and the next client gets its session.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

# About 70,000 steps on each name tgt.WdNNNNN before the second branch
# matches it: planning the 16383 classes of scenario wide would take
# 1,100 million steps.
HEAVY='(.+)+(.+)+(.?)[A-Z]|tgt\..*'

STOPPED='mcalltree agent: planning stopped at level [0-9]* of 64: the client went away'

# planning PID: the agent of PID has a session of depth 64 (it plans).
planning() {
    run_mct "$MCT_TMP/info.out" "$MCT_TMP/info.err" --info "$1" &&
        [ "$(json_get "$MCT_TMP/info.out" session.depth 2>/dev/null)" = 64 ]
}

# stopped_more N: the JVM's log says more than N times that planning stopped.
stopped_more() {
    [ "$(grep -c "$STOPPED" "$LOG")" -gt "$1" ]
}

# gone_while_planning NAME SIG: a client asks for the costly plan and gets
# SIGSIG (KILL, or INT: it must exit 0 saying nothing was traced) while the
# agent plans; the agent must stop planning because the client went away.
# Planning takes about a second: the JVM is stopped (SIGSTOP) from the
# moment it is seen planning until the client is gone, so that planning
# cannot end meanwhile. Should it have ended just before (the client is gone
# already, or the agent does not say it stopped), the attempt is made once
# more.
gone_while_planning() {
    local name=$1 sig=$2 attempt before
    for attempt in 1 2; do
        before=$(grep -c "$STOPPED" "$LOG")
        background "$name-$attempt" --plan "$PID" tgt.Wd00000 m 64 "$HEAVY"
        wait_until 30 planning "$PID" || {
            cat "$BG_ERR" >&2
            fail "$name: no session in the agent while it plans"
        }
        kill -STOP "$PID"
        if alive "$BG_PID"; then
            kill -"$sig" "$BG_PID"
            wait_exit "$BG_PID" 30 || { kill -CONT "$PID"; fail "$name: the client still runs 30 s after SIG$sig"; }
            kill -CONT "$PID"
            if [ "$sig" = INT ]; then
                RC=$WAIT_RC
                MCT_LAST_ERR=$BG_ERR
                expect_rc 0 "$name: SIGINT while the agent plans"
                expect_grep "^mcalltree: waiting for the agent's plan: interrupted; nothing was traced$" \
                    "$BG_ERR" "$name"
            fi
            wait_until 20 stopped_more "$before" && return 0
        else
            kill -CONT "$PID"
            wait_exit "$BG_PID" 30
        fi
        note "$name: planning ended before the client went away (attempt $attempt)"
    done
    tail -5 "$LOG" >&2
    fail "$name: the agent did not stop planning when its client went away"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" maps
    j=$MAJOR

    note "JDK $j: a regex that backtracks exponentially"
    trace "$j-name" --plan "$PID" tgt.Maps run 64 '(.+)+[0-9]' --include-jdk
    expect_rc 3 "--plan with (.+)+[0-9]"
    expect_grep 'plan_limit: the regex took more than 100000 steps to match the class name [a-z]+\.[^ ]+ \(limit: regex work per name\): .*simplify the regex' \
        "$ERR" "--plan with (.+)+[0-9]"
    trace "$j-name-trace" -n 1 "$PID" tgt.Maps run 64 '(.+)+[0-9]' --include-jdk
    expect_rc 3 "tracing with (.+)+[0-9]"
    expect_grep '\(limit: regex work per name\)' "$ERR" "tracing with (.+)+[0-9]"
    expect_restored "$PID" "after the refusals"
    stop_jvm "$PID"

    MCT_JVM_OPTS=("-agentpath:$MCT_AGENT=verbose")
    scenario "$jdk" wide
    unset MCT_JVM_OPTS

    note "JDK $j: a regex whose work over the plan is too much"
    trace "$j-plan" --plan "$PID" tgt.Wd00000 m 64 "$HEAVY"
    expect_rc 3 "--plan with a costly regex"
    expect_grep 'plan_limit: the regex took more than 50000000 steps over the [0-9]+ class names .*\(limit: regex work over the plan\): simplify the regex, or lower the depth' \
        "$ERR" "--plan with a costly regex"

    note "JDK $j: the client is killed while the agent plans"
    gone_while_planning "$j-killed" KILL
    note "JDK $j: the client is interrupted while the agent plans"
    gone_while_planning "$j-interrupted" INT
    trace "$j-next" --plan "$PID" tgt.Wd00000 m 2 'tgt\..*'
    expect_rc 0 "a new client once the first went away"
    expect_grep '^  planned +tgt\.Wd00001\.m\(J\)J$' "$OUT" "a new client once the first went away"
    expect_restored "$PID" "at the end"
    stop_jvm "$PID"
done
trace_done
