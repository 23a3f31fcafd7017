#!/usr/bin/env bash
# Tracing the known call graph of tgt.Shape on every test JDK:
# - -o FILE that cannot be created: exit 1 before the JVM is touched;
# - -v on the first session: the attach steps, the plan with the methods
#   instrumented, the end of the session;
# - the exact tree of every call at depth 4 (children in the order of their
#   first call, calls of a method merged, the constructor, the callee in
#   another package), SPEC 3's invariants on every node, --count (exactly N
#   lines, seq 1..N), the one-line summary on stderr;
# - --skip-trivial: the leaves that only compute (leafA, leafC, deep,
#   Util.twice) left as they are, listed in the plan as trivial with the
#   reason and counted on the summary line; the tree keeps the others;
# - the depth limit (2: no grandchildren; 1: the root alone) and the regex
#   ('tgt\.[A-Z].*' leaves tgt.other.Util out; a regex matching nothing
#   still traces the entry method);
# - --plan as text, to -o FILE, and as JSON (-f json), instrumenting nothing;
# - every output format: -f tree, -o FILE, -f chrome -o FILE (one JSON
#   document whose events nest), -f folded;
# - --timeout ending the session near its time (3 s of calls: every tree
#   exact, every node keeping the invariants once the JIT has compiled the
#   methods and durations are a few ns), and -v's progress saying why
#   nothing is printed (every call under --min-ms);
# - a reader closing the pipe (| head -n 2): the client stops quietly with
#   exit 0 and nothing stays instrumented;
# - after every session the JVM alive, answering --info, no class left
#   instrumented.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" shape
    j=$MAJOR

    note "JDK $j: -o FILE that cannot be created: a usage error before attaching"
    trace "$j-bad-o" -o "$MCT_TMP/no/such/dir/out" "$PID" tgt.Shape run 4 "$RX"
    expect_rc 1 "-o in a missing directory"
    expect_grep "cannot write $MCT_TMP/no/such/dir/out: No such file or directory" "$ERR" "-o bad"
    [ -e "/tmp/.mcalltree-$PID" ] && fail "-o bad: the agent was loaded"

    note "JDK $j: -v on the first session: attach steps, the plan, the end"
    trace "$j-verbose" -v -n 2 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-v -n 2"
    check_calls "$OUT" 2 "-v -n 2" -D 4
    expect_grep 'no agent in JVM [0-9]+ yet; loading it' "$ERR" "-v: the attach"
    expect_grep 'the agent is loaded' "$ERR" "-v: the attach"
    expect_grep '^level 1' "$ERR" "-v: the plan"
    expect_grep '^level 4' "$ERR" "-v: the plan"
    for m in 'tgt\.Shape\.run\(\)J' 'tgt\.Shape\.leafA\(I\)J' 'tgt\.Shape\.<init>\(\)V' \
        'tgt\.Shape\.mid\(\)J' 'tgt\.Shape\.leafB\(\)J' 'tgt\.Shape\.leafC\(\)J' \
        'tgt\.Shape\.deep\(\)J' 'tgt\.other\.Util\.twice\(J\)J'; do
        expect_grep "^ +instrumented +$m" "$ERR" "-v: the plan"
    done
    expect_grep '^ +excluded +java\.lang\.Object\.<init>\(\)V' "$ERR" "-v: the plan"
    expect_grep 'session ended.*2 printed' "$ERR" "-v: the end"
    expect_restored "$PID" "after -v"

    note "JDK $j: the exact tree of every call, --count 3"
    trace "$j-exact" -n 3 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-n 3"
    check_calls "$OUT" 3 "-n 3" -D 4
    expect_outline "$OUT" "depth 4" -d <"$OUTLINES/shape-4"
    [ "$("$TREE" call "$OUT" seq | tr '\n' ' ')" = "1 2 3 " ] || fail "-n 3: seq is not 1 2 3"
    expect_all "$("$TREE" call "$OUT" thread.name)" main "-n 3: the thread"
    # (and, when a node was within twice the probe cost, the line saying
    # such durations are not trustworthy; the line counting warm-up calls:
    # the first calls after instrumenting are marked)
    [ "$(grep -v -e 'are not trustworthy' -e 'warm-up calls\? (begun' "$ERR" | wc -l)" = 1 ] || {
        cat "$ERR" >&2
        fail "-n 3: stderr is not one summary line"
    }
    expect_grep '^mcalltree: tracing tgt\.Shape\.run' "$ERR" "-n 3: the summary"
    expect_restored "$PID" "after -n 3"

    note "JDK $j: --skip-trivial: the leaves that only compute are left as they are"
    trace "$j-skip" -v -n 3 --skip-trivial "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "--skip-trivial"
    check_calls "$OUT" 3 "--skip-trivial" -D 4
    expect_outline "$OUT" "--skip-trivial" -d <"$OUTLINES/shape-4-skip"
    for m in 'tgt\.Shape\.leafA\(I\)J' 'tgt\.Shape\.leafC\(\)J' 'tgt\.Shape\.deep\(\)J' \
        'tgt\.other\.Util\.twice\(J\)J'; do
        expect_grep "^ +trivial +$m +-- a short leaf that calls, loops, allocates and locks nothing" "$ERR" \
            "--skip-trivial: the plan"
    done
    for m in 'tgt\.Shape\.run\(\)J' 'tgt\.Shape\.<init>\(\)V' 'tgt\.Shape\.mid\(\)J' 'tgt\.Shape\.leafB\(\)J'; do
        expect_grep "^ +instrumented +$m" "$ERR" "--skip-trivial: the plan"
    done
    expect_grep '^mcalltree: tracing tgt\.Shape\.run.*: 4 methods instrumented, .*4 trivial ones left as they are' \
        "$ERR" "--skip-trivial: the summary"
    expect_restored "$PID" "after --skip-trivial"

    note "JDK $j: depth 2, depth 1"
    trace "$j-depth2" -n 2 "$PID" tgt.Shape run 2 "$RX"
    expect_rc 0 "depth 2"
    check_calls "$OUT" 2 "depth 2" -D 2
    expect_outline "$OUT" "depth 2" <"$OUTLINES/shape-2"
    expect_restored "$PID" "after depth 2"
    trace "$j-depth1" -n 2 "$PID" tgt.Shape run 1 "$RX"
    expect_rc 0 "depth 1"
    check_calls "$OUT" 2 "depth 1" -D 1
    expect_outline "$OUT" "depth 1" <<'EOF'
tgt.Shape.run calls=1 throws=0
EOF
    expect_restored "$PID" "after depth 1"

    note "JDK $j: the regex"
    trace "$j-regex" -n 2 "$PID" tgt.Shape run 4 'tgt\.[A-Z].*'
    expect_rc 0 "regex tgt\\.[A-Z].*"
    check_calls "$OUT" 2 "regex tgt\\.[A-Z].*" -D 4
    expect_outline "$OUT" "regex tgt\\.[A-Z].*" <<'EOF'
tgt.Shape.run calls=1 throws=0
  tgt.Shape.leafA calls=4 throws=0
  tgt.Shape.<init> calls=1 throws=0
  tgt.Shape.mid calls=1 throws=0
    tgt.Shape.leafB calls=2 throws=0
      tgt.Shape.deep calls=2 throws=0
    tgt.Shape.leafC calls=1 throws=0
EOF
    expect_restored "$PID" "after the regex"
    trace "$j-regex-none" -n 2 "$PID" tgt.Shape run 4 'nothing\.matches'
    expect_rc 0 "a regex matching no callee"
    check_calls "$OUT" 2 "a regex matching no callee"
    expect_outline "$OUT" "a regex matching no callee" <<'EOF'
tgt.Shape.run calls=1 throws=0
EOF
    expect_restored "$PID" "after a regex matching no callee"

    note "JDK $j: --plan, as text and as JSON"
    trace "$j-plan" --plan "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "--plan"
    expect_grep '^plan for tgt\.Shape\.run' "$OUT" "--plan"
    expect_grep '^level 3' "$OUT" "--plan"
    expect_grep '^ +planned +tgt\.Shape\.deep\(\)J' "$OUT" "--plan"
    expect_grep '^ +excluded +java\.lang\.Object\.<init>\(\)V' "$OUT" "--plan"
    expect_no_grep 'instrumented' "$OUT" "--plan instruments nothing"
    expect_restored "$PID" "after --plan"
    trace "$j-plan-o" --plan -o "$MCT_TMP/$j-plan.txt" "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "--plan -o FILE"
    [ -s "$OUT" ] && fail "--plan -o FILE: something on stdout"
    expect_grep '^ +planned +tgt\.Shape\.deep\(\)J' "$MCT_TMP/$j-plan.txt" "--plan -o FILE"
    trace "$j-plan-json" -f json --plan "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-f json --plan"
    [ "$(wc -l <"$OUT")" = 1 ] || fail "-f json --plan: not one line"
    expect_field "$OUT" type plan
    got=$(set -o pipefail; "$TREE" plan "$OUT" | sort) || fail "-f json --plan: not a plan"
    want=$(sort <<'EOF'
1 planned tgt.Shape.run ()J
2 planned tgt.Shape.leafA (I)J
2 planned tgt.Shape.<init> ()V
2 planned tgt.Shape.mid ()J
2 planned tgt.other.Util.twice (J)J
3 excluded java.lang.Object.<init> ()V
3 planned tgt.Shape.leafB ()J
3 planned tgt.Shape.leafC ()J
4 planned tgt.Shape.deep ()J
EOF
)
    [ "$got" = "$want" ] || {
        echo "--- want:" >&2
        echo "$want" >&2
        echo "--- got:" >&2
        echo "$got" >&2
        fail "-f json --plan: the plan differs"
    }
    expect_restored "$PID" "after -f json --plan"

    note "JDK $j: -f tree"
    trace "$j-tree" -f tree -n 2 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-f tree"
    [ "$(grep -c 'tgt\.Shape\.run()$' "$OUT")" = 2 ] || fail "-f tree: not two trees of run"
    for m in 'leafA\(int\)' '<init>\(\)' 'mid\(\)' 'leafB\(\)' 'deep\(\)' 'leafC\(\)'; do
        [ "$(grep -Ec "tgt\\.Shape\\.$m" "$OUT")" = 2 ] || fail "-f tree: $m not in each tree"
    done
    [ "$(grep -c 'tgt\.other\.Util\.twice(long)' "$OUT")" = 2 ] || fail "-f tree: Util.twice not in each tree"
    expect_grep '4× .*tgt\.Shape\.leafA' "$OUT" "-f tree: leafA's 4 calls"
    # deep is below leafB, which is below mid: indented deeper than both.
    indent() { grep -m1 "$1" "$OUT" | sed 's/tgt\..*//' | wc -m; }
    if [ "$(indent 'Shape\.mid')" -ge "$(indent 'Shape\.leafB')" ] ||
        [ "$(indent 'Shape\.leafB')" -ge "$(indent 'Shape\.deep')" ]; then
        fail "-f tree: deep is not nested below leafB below mid"
    fi
    if grep -q $'\033' "$OUT"; then fail "-f tree: colours on a file"; fi
    expect_restored "$PID" "after -f tree"

    note "JDK $j: -o FILE, -f chrome -o FILE"
    trace "$j-ofile" -n 2 -o "$MCT_TMP/$j-calls.json" "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-o FILE"
    [ -s "$OUT" ] && fail "-o FILE: something on stdout"
    check_calls "$MCT_TMP/$j-calls.json" 2 "-o FILE" -D 4
    trace "$j-chrome" -f chrome -n 2 -o "$MCT_TMP/$j-chrome.json" "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-f chrome"
    [ -s "$OUT" ] && fail "-f chrome -o FILE: something on stdout"
    n=$("$TREE" chrome "$MCT_TMP/$j-chrome.json") || fail "-f chrome: not a valid, nested trace"
    [ "$n" = 2 ] || fail "-f chrome: $n calls, want 2"
    for m in run leafA '<init>' mid leafB deep leafC; do
        [ "$(grep -c "\"name\":\"tgt\\.Shape\\.$m\"" "$MCT_TMP/$j-chrome.json")" = 2 ] ||
            fail "-f chrome: not two events of tgt.Shape.$m"
    done
    expect_restored "$PID" "after -f chrome"

    note "JDK $j: -f folded"
    trace "$j-folded" -f folded -n 2 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-f folded"
    bad=$(grep -Ev '^tgt\.Shape\.run(;[^; ]+)* [0-9]+$' "$OUT" | head -1)
    [ -z "$bad" ] || fail "-f folded: a line is not 'frame;frame... N': $bad"
    got=$(sed 's/ [0-9]*$//' "$OUT" | sort -u)
    want=$(sort <<'EOF'
tgt.Shape.run
tgt.Shape.run;tgt.Shape.leafA
tgt.Shape.run;tgt.Shape.<init>
tgt.Shape.run;tgt.Shape.mid
tgt.Shape.run;tgt.Shape.mid;tgt.Shape.leafB
tgt.Shape.run;tgt.Shape.mid;tgt.Shape.leafB;tgt.Shape.deep
tgt.Shape.run;tgt.Shape.mid;tgt.Shape.leafC
tgt.Shape.run;tgt.other.Util.twice
EOF
)
    [ "$got" = "$want" ] || {
        echo "--- got:" >&2
        echo "$got" >&2
        fail "-f folded: the stacks differ"
    }
    expect_restored "$PID" "after -f folded"

    note "JDK $j: --timeout 3, every call exact and keeping the invariants"
    t0=$(now_ms)
    trace "$j-timeout" --timeout 3 "$PID" tgt.Shape run 4 "$RX"
    took=$(($(now_ms) - t0))
    expect_rc 0 "--timeout 3"
    note "JDK $j: --timeout 3 ended after $took ms"
    [ "$took" -ge 2900 ] || fail "--timeout 3 ended after $took ms"
    [ "$took" -le 10000 ] || fail "--timeout 3 ended only after $took ms"
    check_calls "$OUT" +100 "--timeout 3" -D 4
    expect_outline "$OUT" "--timeout 3" <<'EOF'
tgt.Shape.run calls=1 throws=0
  tgt.Shape.leafA calls=4 throws=0
  tgt.Shape.<init> calls=1 throws=0
  tgt.Shape.mid calls=1 throws=0
    tgt.Shape.leafB calls=2 throws=0
      tgt.Shape.deep calls=2 throws=0
    tgt.Shape.leafC calls=1 throws=0
  tgt.other.Util.twice calls=1 throws=0
EOF
    expect_restored "$PID" "after --timeout 3"

    note "JDK $j: a reader that closes the pipe early (| head -n 2)"
    timeout 60 "$MCT" "$PID" tgt.Shape run 4 "$RX" 2>"$MCT_TMP/$j-pipe.err" | head -n 2 >"$MCT_TMP/$j-pipe.out"
    rc=${PIPESTATUS[0]}
    [ "$rc" != 124 ] || fail "| head -n 2: the client went on after its reader left"
    check_calls "$MCT_TMP/$j-pipe.out" 2 "| head -n 2" -D 4
    if [ "$rc" != 0 ] || grep -q 'cannot write' "$MCT_TMP/$j-pipe.err"; then
        cat "$MCT_TMP/$j-pipe.err" >&2
        soft_fail "| head -n 2: exit status $rc and an error, want 0 and a quiet stop"
    fi
    expect_restored "$PID" "after | head -n 2"

    note "JDK $j: -v's progress while every call is under --min-ms"
    trace "$j-progress" -v --timeout 2 --min-ms 60000 "$PID" tgt.Shape run 4 "$RX"
    expect_rc 0 "-v --min-ms 60000"
    [ -s "$OUT" ] && fail "-v --min-ms 60000: a call was printed"
    grep -v 'session ended' "$ERR" >"$MCT_TMP/$j-progress.lines"
    expect_grep '[1-9][0-9]* calls? completed, 0 printed, [1-9][0-9]* under --min-ms' \
        "$MCT_TMP/$j-progress.lines" "-v: progress before the end"
    expect_grep 'session ended' "$ERR" "-v --min-ms 60000"
    expect_restored "$PID" "after -v --min-ms"

    stop_jvm "$PID"
done
trace_done
