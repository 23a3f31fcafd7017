#!/usr/bin/env bash
# --cpu: each node's CPU time (cpu_ns) and waiting (wait_ns = total_ns -
# cpu_ns), on every test JDK (scenario cpu: tgt.Cpu.run calls spin, which
# computes until its thread used 40 ms of CPU by the JVM's own clock, then
# nap, which sleeps 40 ms):
# - spin's cpu_ns is 40 ms within 10 %, nap's under 10 % of 40 ms and its
#   wait_ns over 36 ms; wait_ns is total_ns - cpu_ns on every node, and the
#   root's CPU time is at least its children's;
# - without --cpu no node has cpu_ns; -f tree shows cpu and wait columns,
#   -f chrome puts cpu_ns and wait_ns in a slice's args, -f folded
#   --folded-value cpu counts each stack's self CPU time; --folded-value cpu
#   without --cpu is a usage error;
# - --aggregate --cpu: the summary's spin has cpu_p50_ns, cpu_p90_ns and
#   cpu_entry_min_ns 40 ms within 10 % (its p99 and slowest call under
#   60 ms: one call in ten may overrun on a loaded machine),
#   nap's cpu_p50_ns under 10 % of it and its cpu_p99_ns under half of
#   it, cpu_ns and wait_ns summed over the
#   calls; mcalltree merge of the summary with itself doubles cpu_ns and
#   keeps its percentiles; -f tree shows cpu p50 and cpu p99 columns;
# - --budget CLASS.METHOD:cpu_p90=MS fails on spin and holds on nap (which
#   waits, not computes), over a summary and over per-call trees; without
#   --cpu it is a usage error;
# - JDK 21+: calls on virtual threads carry no CPU times nor allocations
#   (their carrier's clock and count also count the virtual threads it
#   carried meanwhile).
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" cpu
    j=$MAJOR

    note "JDK $j: --cpu tells computing from sleeping (tgt.Cpu.run)"
    trace "$j-cpu" --cpu -n 3 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "--cpu"
    check_calls "$OUT" 3 "--cpu" -D 2
    expect_outline "$OUT" "--cpu" <<'OUTLINE'
tgt.Cpu.run calls=1 throws=0
  tgt.Cpu.spin calls=1 throws=0
  tgt.Cpu.nap calls=1 throws=0
OUTLINE
    note "JDK $j: spin cpu_ns $(field "$OUT" run/spin cpu_ns | tr '\n' ' '), nap cpu_ns $(field "$OUT" run/nap cpu_ns | tr '\n' ' ')"
    in_range "$(field "$OUT" run/spin cpu_ns)" 36000000 44000000 "spin's cpu_ns"
    in_range "$(field "$OUT" run/nap cpu_ns)" 0 4000000 "nap's cpu_ns"
    expect_all_ge "$(field "$OUT" run/nap wait_ns)" 36000000 "nap's wait_ns"
    for p in run run/spin run/nap; do
        paste <(field "$OUT" $p total_ns) <(field "$OUT" $p cpu_ns) <(field "$OUT" $p wait_ns) |
            awk -v p="$p" '$1 != $2 + $3 { print "FAIL: " p ": total " $1 " != cpu " $2 " + wait " $3; bad = 1 }
                           END { exit bad }' >&2 || soft_fail "wait_ns is not total_ns - cpu_ns"
    done
    paste <(field "$OUT" run cpu_ns) <(field "$OUT" run/spin cpu_ns) <(field "$OUT" run/nap cpu_ns) |
        awk '$1 < $2 + $3 { bad = 1 } END { exit bad }' || soft_fail "run's cpu_ns is under its children's"
    expect_restored "$PID" "after --cpu"

    note "JDK $j: no cpu_ns without --cpu"
    trace "$j-nocpu" -n 1 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "without --cpu"
    expect_no_grep '"cpu_ns"' "$OUT" "without --cpu"

    note "JDK $j: -f tree and -f chrome show them"
    trace "$j-tree" --cpu -f tree -n 1 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "--cpu -f tree"
    expect_grep 'total +% +self +cpu +wait +calls +method' "$OUT" "--cpu -f tree: the columns"
    trace "$j-chrome" --cpu -f chrome -n 1 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "--cpu -f chrome"
    expect_grep '"cpu_ns": *[0-9]+' "$OUT" "--cpu -f chrome: cpu_ns"
    expect_grep '"wait_ns": *[0-9]+' "$OUT" "--cpu -f chrome: wait_ns"
    trace "$j-folded" --cpu -f folded --folded-value cpu -n 1 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "--folded-value cpu"
    in_range "$(awk '$1 ~ /Cpu\.spin$/ { print $2 }' "$OUT")" 36000000 44000000 "--folded-value cpu: spin"
    nap=$(awk '$1 ~ /Cpu\.nap$/ { print $2 }' "$OUT")
    in_range "${nap:-0}" 0 4000000 "--folded-value cpu: nap"
    expect_restored "$PID" "after -f tree, chrome and folded"

    note "JDK $j: what --cpu does not go with"
    trace "$j-fv" -f folded --folded-value cpu -n 1 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 1 "--folded-value cpu without --cpu"
    expect_grep 'folded-value cpu needs --cpu' "$ERR" "--folded-value cpu without --cpu"
    trace "$j-nobudget" --budget tgt.Cpu.spin:cpu_p90=20 -n 10 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 1 "a cpu budget without --cpu"
    expect_grep 'budget tgt.Cpu.spin:cpu_p90=20 needs --cpu' "$ERR" "a cpu budget without --cpu"

    note "JDK $j: --aggregate --cpu: CPU and waiting in the summary"
    trace "$j-agg" --cpu --aggregate -n 10 -t 120 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "--cpu --aggregate"
    [ "$("$TREE" call "$OUT" calls)" = 10 ] || fail "--cpu --aggregate -n 10: calls is not 10"
    note "JDK $j: summary spin cpu_p50_ns $(field "$OUT" run/spin cpu_p50_ns), nap cpu_p99_ns $(field "$OUT" run/nap cpu_p99_ns), wait_ns $(field "$OUT" run/nap wait_ns)"
    for k in cpu_p50_ns cpu_p90_ns cpu_entry_min_ns; do
        in_range "$(field "$OUT" run/spin $k)" 36000000 44000000 "summary: spin's $k"
    done
    # One call in ten may overrun on a loaded machine (a CI run saw one of
    # 44.6 ms): p99 and the slowest call are that call. Under 60 ms still
    # tells spin's CPU from its call's 80 ms with nap's sleep.
    for k in cpu_p99_ns cpu_entry_max_ns; do
        in_range "$(field "$OUT" run/spin $k)" 36000000 60000000 "summary: spin's $k"
    done
    in_range "$(field "$OUT" run/spin cpu_ns)" 360000000 440000000 "summary: spin's cpu_ns over 10 calls"
    # nap's p99 is its slowest of ten calls, and a loaded machine can
    # charge one call some ms (a CI run saw 9.1 ms on JDK 17): its median
    # stays under 10 % of the sleep, its p99 under half of spin's CPU.
    in_range "$(field "$OUT" run/nap cpu_p50_ns)" 0 4000000 "summary: nap's cpu_p50_ns"
    in_range "$(field "$OUT" run/nap cpu_p99_ns)" 0 20000000 "summary: nap's cpu_p99_ns"
    expect_all_ge "$(field "$OUT" run/nap wait_ns)" 360000000 "summary: nap's wait_ns over 10 calls"
    paste <(field "$OUT" run total_ns) <(field "$OUT" run cpu_ns) <(field "$OUT" run wait_ns) |
        awk '$1 != $2 + $3 { bad = 1 } END { exit bad }' || soft_fail "summary: wait_ns is not total_ns - cpu_ns"
    AGG=$OUT
    trace "$j-merge" merge "$AGG" "$AGG"
    expect_rc 0 "merge of --cpu summaries"
    [ "$(field "$OUT" run/spin cpu_ns)" = $(($(field "$AGG" run/spin cpu_ns) * 2)) ] ||
        soft_fail "merge: spin's cpu_ns is not twice the summary's"
    for k in cpu_p50_ns cpu_p99_ns cpu_entry_max_ns; do
        [ "$(field "$OUT" run/spin $k)" = "$(field "$AGG" run/spin $k)" ] || soft_fail "merge: spin's $k changed"
    done
    trace "$j-aggtree" --cpu --aggregate -f tree -n 2 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 0 "--cpu --aggregate -f tree"
    expect_grep 'p99 +cpu p50 +cpu p99 +self/call' "$OUT" "--cpu --aggregate -f tree: the columns"

    note "JDK $j: --budget on CPU time: spin computes, nap waits"
    trace "$j-cpubudget" --cpu --aggregate -n 10 -t 120 --budget tgt.Cpu.spin:cpu_p90=20 \
        --budget tgt.Cpu.nap:cpu_p90=20 --budget tgt.Cpu.nap:p90=20 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 4 "a cpu budget over the summary"
    expect_grep 'budget tgt.Cpu.spin:cpu_p90=20: tgt.Cpu.run\(\)J > tgt.Cpu.spin\(\)V: cpu_p90 [0-9.]+ ms within one entry call, over the budget of 20 ms' "$ERR" "spin's cpu budget"
    expect_grep 'budget tgt.Cpu.nap:p90=20: .*: p90 [0-9.]+ ms' "$ERR" "nap's wall-time budget"
    expect_no_grep 'nap:cpu_p90' "$ERR" "nap's cpu budget"
    trace "$j-cpubudget-calls" --cpu -n 10 -t 120 --budget tgt.Cpu.spin:cpu_p90=20 \
        --budget tgt.Cpu.nap:cpu_p90=20 "$PID" tgt.Cpu run 2 "$RX"
    expect_rc 4 "a cpu budget over per-call trees"
    expect_grep 'budget tgt.Cpu.spin:cpu_p90=20: .*cpu_p90 [0-9.]+ ms' "$ERR" "spin's cpu budget, per call"
    expect_no_grep 'nap:cpu_p90' "$ERR" "nap's cpu budget, per call"
    expect_restored "$PID" "after --cpu --aggregate"
    stop_jvm "$PID"

    if [ "$j" -ge 21 ]; then
        scenario "$jdk" vthreads
        note "JDK $j: calls on virtual threads carry no CPU times nor allocations"
        trace "$j-vt" --cpu --alloc -n 10 -t 60 "$PID" tgt.VWork job 3 "$RX"
        expect_rc 0 "--cpu --alloc on virtual threads"
        check_calls "$OUT" 10 "--cpu --alloc on virtual threads" -D 3
        expect_no_grep '"cpu_ns"' "$OUT" "--cpu on virtual threads"
        expect_no_grep '"alloc_bytes"' "$OUT" "--alloc on virtual threads"
        expect_restored "$PID" "after --cpu on virtual threads"
        stop_jvm "$PID"
    fi
done
trace_done
