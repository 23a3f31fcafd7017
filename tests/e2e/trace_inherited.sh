#!/usr/bin/env bash
# Entry methods the named class inherits, on every test JDK,
# with tgt.Inherit (A and B extend Base and inherit Base.handle(); A's
# handle() calls handle() on a B; Base.serve(Object) hands over to
# serve(String), which A and B declare), run only when the test asks
# (scenario inherit DIR: N rounds, each one call of handle() and of
# serve(Object) on A and two on B):
# - --plan says the inherited entry method is traced only when the receiver
#   is an instance of the class named (text and JSON);
# - "A handle": exactly one tree per call on an A (N rounds, N trees), rooted
#   at Base.handle (the method that runs) with A.kind below; the call on a
#   B inside it is an ordinary node (with B.kind below); no tree for a B;
# - "B handle": the calls on a B only: two per round and the one inside A's
#   call (the named class decides, not the class that declares handle);
# - "A serve" at depth 2 and 1: Base.serve(Object) -> A.serve(String), the
#   named class's own entry method called from the inherited one, costs no
#   level: A.step is there at depth 2; no tree for the calls on B;
# - "plug.Sub handle" (scenario subs: plug.Sub, which inherits
#   tgt.SubBase.handle, in a loader of its own per copy, two loaded before
#   the attach and one during the session; tgt.SubOther inherits it too):
#   one tree per call on each of the three copies, none for SubOther.
#   Before, only the copy the planner found was a receiver.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
REASON='entry method, inherited from a superclass: traced only when the receiver is an instance of the class named'

# rounds N: makes the target run N rounds, and waits until it has.
rounds() {
    rm -f "$DIR/done"
    # Renamed into place: the target must never read a go file half written.
    echo "$1" >"$DIR/go.tmp" && mv "$DIR/go.tmp" "$DIR/go"
    wait_until 30 test -e "$DIR/done" || fail "the target did not run $1 rounds within 30 s"
}

# seen NAME: the entry calls the session of NAME's -v stderr (ERR) saw, from
# its end line: those completed (printed or not), those left unsent at the
# end (the stop discards them), those not traced.
seen() {
    local line n total=0 what
    line=$(grep '^mcalltree: session ended' "$ERR") || { cat "$ERR" >&2; fail "$1: no end line"; }
    for what in 'calls\{0,1\} completed' 'left unsent at the end' 'not traced'; do
        n=$(sed -n "s/.* \([0-9][0-9]*\) $what[,;].*/\1/p" <<<"$line")
        [ -n "$n" ] || fail "$1: no count of \"$what\" in: $line"
        total=$((total + n))
    done
    echo "$total"
}

# traced NAME N TREES ARGS...: traces (mcalltree -v ARGS) while the target
# runs N rounds, waits for TREES trees, stops the client with SIGINT, and
# checks that the agent saw exactly TREES calls of the entry method (a call
# it should not have traced may be left unsent by the stop, but is counted);
# sets OUT and ERR. The command in BEFORE_ROUNDS, if any, runs once the
# session has started.
traced() {
    local name=$1 n=$2 trees=$3 calls
    shift 3
    background "$name" -v "$@"
    MCT_LAST_ERR=$BG_ERR
    wait_until 60 grep -q '^mcalltree: tracing' "$BG_ERR" || {
        cat "$BG_ERR" >&2
        fail "$name: the session did not start within 60 s"
    }
    ${BEFORE_ROUNDS:-}
    rounds "$n"
    wait_lines "$BG_OUT" "$trees" 30 || {
        cat "$BG_ERR" >&2
        fail "$name: $(wc -l <"$BG_OUT") trees within 30 s, want $trees"
    }
    kill -INT "$BG_PID"
    wait_exit "$BG_PID" 30 || fail "$name: the client did not stop within 30 s of SIGINT"
    [ "$WAIT_RC" = 0 ] || {
        cat "$BG_ERR" >&2
        fail "$name: exit status $WAIT_RC"
    }
    OUT=$BG_OUT
    ERR=$BG_ERR
    calls=$(seen "$name") || exit 1
    [ "$calls" = "$trees" ] || {
        grep '^mcalltree: session ended' "$ERR" >&2
        fail "$name: the agent saw $calls calls of the entry method, want $trees"
    }
}

# load_copy: makes the subs target define plug.Sub in one more loader.
load_copy() {
    : >"$DIR/load"
    wait_until 30 test -e "$DIR/loaded" || fail "the target did not load one more copy within 30 s"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    DIR=$MCT_TMP/inherit-$j
    mkdir -p "$DIR"
    scenario "$jdk" inherit "$DIR"

    note "JDK $j: --plan says which calls of the inherited entry method are traced"
    trace "$j-plan" --plan "$PID" 'tgt.Inherit$A' handle 3 "$RX"
    expect_rc 0 "--plan"
    expect_grep "^  planned +tgt\.Inherit\\\$Base\.handle\(\)J  -- $REASON\$" "$OUT" "--plan: Base.handle"
    trace "$j-plan-json" --plan -f json "$PID" 'tgt.Inherit$A' handle 3 "$RX"
    expect_rc 0 "--plan -f json"
    expect_grep "\"class\":\"tgt\.Inherit\\\$Base\",\"method\":\"handle\",\"desc\":\"\(\)J\",\"level\":1,\"status\":\"planned\",\"root\":true,\"reason\":\"$REASON\"" \
        "$OUT" "--plan -f json: Base.handle"

    note "JDK $j: A handle: one tree per call on an A"
    traced "$j-a-handle" 5 5 "$PID" 'tgt.Inherit$A' handle 3 "$RX"
    check_calls "$OUT" 5 "A handle: 5 rounds" -D 3
    expect_outline "$OUT" "A handle" <<'EOF'
tgt.Inherit$Base.handle calls=1 throws=0
  tgt.Inherit$A.kind calls=1 throws=0
  tgt.Inherit$Base.work calls=1 throws=0
  tgt.Inherit$Base.handle calls=1 throws=0
    tgt.Inherit$B.kind calls=1 throws=0
    tgt.Inherit$Base.work calls=1 throws=0
EOF
    expect_restored "$PID" "after A handle"

    note "JDK $j: B handle: the calls on a B, inside A's call too"
    traced "$j-b-handle" 4 12 "$PID" 'tgt.Inherit$B' handle 3 "$RX"
    check_calls "$OUT" 12 "B handle: 4 rounds" -D 3
    expect_outline "$OUT" "B handle" <<'EOF'
tgt.Inherit$Base.handle calls=1 throws=0
  tgt.Inherit$B.kind calls=1 throws=0
  tgt.Inherit$Base.work calls=1 throws=0
EOF
    expect_restored "$PID" "after B handle"

    note "JDK $j: A serve: the named class's own entry method costs no level"
    traced "$j-a-serve" 3 3 "$PID" 'tgt.Inherit$A' serve 2 "$RX"
    check_calls "$OUT" 3 "A serve, depth 2" -D 3
    expect_outline "$OUT" "A serve, depth 2" <<'EOF'
tgt.Inherit$Base.serve calls=1 throws=0
  tgt.Inherit$A.serve calls=1 throws=0
    tgt.Inherit$A.step calls=1 throws=0
EOF
    expect_restored "$PID" "after A serve, depth 2"
    traced "$j-a-serve1" 2 2 "$PID" 'tgt.Inherit$A' serve 1 "$RX"
    check_calls "$OUT" 2 "A serve, depth 1" -D 2
    expect_outline "$OUT" "A serve, depth 1" <<'EOF'
tgt.Inherit$Base.serve calls=1 throws=0
  tgt.Inherit$A.serve calls=1 throws=0
EOF
    expect_restored "$PID" "after A serve, depth 1"
    stop_jvm "$PID"

    note "JDK $j: plug.Sub handle: the copies of three loaders, one loaded during the session"
    DIR=$MCT_TMP/subs-$j
    mkdir -p "$DIR"
    scenario "$jdk" subs "$DIR"
    BEFORE_ROUNDS=load_copy
    traced "$j-subs" 3 9 "$PID" plug.Sub handle 2 'tgt\..*|plug\..*'
    BEFORE_ROUNDS=
    check_calls "$OUT" 9 "plug.Sub handle: 3 rounds on 3 copies" -D 2
    expect_outline "$OUT" "plug.Sub handle" <<'EOF'
tgt.SubBase.handle calls=1 throws=0
  plug.Sub.kind calls=1 throws=0
EOF
    expect_restored "$PID" "after plug.Sub handle"
    stop_jvm "$PID"
done
trace_done
