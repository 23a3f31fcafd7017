#!/usr/bin/env bash
# --alloc: the bytes each node allocated (alloc_bytes), read from the JVM's
# own per-thread count, on every test JDK (scenario alloc: tgt.Alloc.run
# calls big, which allocates a byte[1000000], 1,000,016 bytes with its
# header, and none, which allocates nothing):
# - big's alloc_bytes is 1,000,016 to within 64 bytes (the count is exact to
#   the object: the thread's retired TLABs plus its current TLAB's used
#   part), none's at most 64, run's at least its children's;
# - without --alloc no node has alloc_bytes; -f tree shows an alloc column,
#   -f chrome alloc_bytes in a slice's args, -f folded --folded-value alloc
#   each stack's self allocation; --folded-value alloc without --alloc is a
#   usage error;
# - --cpu --alloc together: both, on the same nodes;
# - --aggregate --alloc: the summary's big has alloc_p50_bytes (and p90,
#   p99, min, max per entry call) 1,000,016 to within 64 bytes, alloc_bytes
#   30 times that over 30 calls, none at most 64 a call; -f tree shows
#   alloc p50 and alloc p99 columns;
# - --max-alloc tgt.Alloc.big=1100000 holds, =900000 fails (exit status 4,
#   naming the node and its bytes), over a summary and over per-call trees;
#   --max-alloc without --alloc is a usage error;
# - mcalltree diff --fail-over-pct 50 of that summary against one of a JVM
#   whose big allocates 2,000,000 bytes (scenario alloc 2000000) fails on
#   big's alloc p50 (30 calls are enough to tell a median's change at the
#   diff's confidence, not a p99's), and -f json carries both runs' figures.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" alloc
    j=$MAJOR

    note "JDK $j: --alloc counts what each node allocated (tgt.Alloc.run)"
    trace "$j-alloc" --alloc -n 3 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--alloc"
    check_calls "$OUT" 3 "--alloc" -D 2
    expect_outline "$OUT" "--alloc" <<'OUTLINE'
tgt.Alloc.run calls=1 throws=0
  tgt.Alloc.big calls=1 throws=0
  tgt.Alloc.none calls=1 throws=0
OUTLINE
    note "JDK $j: big alloc_bytes $(field "$OUT" run/big alloc_bytes | tr '\n' ' '), none $(field "$OUT" run/none alloc_bytes | tr '\n' ' ')"
    in_range "$(field "$OUT" run/big alloc_bytes)" 1000016 1000080 "big's alloc_bytes"
    in_range "$(field "$OUT" run/none alloc_bytes)" 0 64 "none's alloc_bytes"
    paste <(field "$OUT" run alloc_bytes) <(field "$OUT" run/big alloc_bytes) <(field "$OUT" run/none alloc_bytes) |
        awk '$1 < $2 + $3 { bad = 1 } END { exit bad }' || soft_fail "run's alloc_bytes is under its children's"
    expect_restored "$PID" "after --alloc"

    note "JDK $j: no alloc_bytes without --alloc"
    trace "$j-noalloc" -n 1 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "without --alloc"
    expect_no_grep '"alloc_bytes"' "$OUT" "without --alloc"

    note "JDK $j: -f tree, chrome and folded show them"
    trace "$j-tree" --alloc -f tree -n 1 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--alloc -f tree"
    expect_grep 'total +% +self +alloc +calls +method' "$OUT" "--alloc -f tree: the column"
    expect_grep '977 KiB .*Alloc\.big' "$OUT" "--alloc -f tree: big's bytes"
    trace "$j-chrome" --alloc -f chrome -n 1 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--alloc -f chrome"
    expect_grep '"alloc_bytes": *1000[0-9][0-9][0-9]' "$OUT" "--alloc -f chrome: alloc_bytes"
    trace "$j-folded" --alloc -f folded --folded-value alloc -n 1 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--folded-value alloc"
    in_range "$(awk '$1 ~ /Alloc\.big$/ { print $2 }' "$OUT")" 1000016 1000080 "--folded-value alloc: big"
    trace "$j-fv" -f folded --folded-value alloc -n 1 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 1 "--folded-value alloc without --alloc"
    expect_grep 'folded-value alloc needs --alloc' "$ERR" "--folded-value alloc without --alloc"

    note "JDK $j: --cpu --alloc"
    trace "$j-both" --cpu --alloc -n 1 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--cpu --alloc"
    in_range "$(field "$OUT" run/big alloc_bytes)" 1000016 1000080 "--cpu --alloc: big's alloc_bytes"
    [ -n "$(field "$OUT" run/none cpu_ns)" ] || soft_fail "--cpu --alloc: no cpu_ns"
    expect_restored "$PID" "after the formats"

    note "JDK $j: --aggregate --alloc"
    trace "$j-agg" --alloc --aggregate -n 30 -t 120 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--alloc --aggregate"
    [ "$("$TREE" call "$OUT" calls)" = 30 ] || fail "--alloc --aggregate -n 30: calls is not 30"
    note "JDK $j: summary big alloc_p50_bytes $(field "$OUT" run/big alloc_p50_bytes), alloc_bytes $(field "$OUT" run/big alloc_bytes)"
    for k in alloc_p50_bytes alloc_p90_bytes alloc_p99_bytes alloc_entry_min_bytes alloc_entry_max_bytes; do
        in_range "$(field "$OUT" run/big $k)" 1000016 1000080 "summary: big's $k"
        in_range "$(field "$OUT" run/none $k)" 0 64 "summary: none's $k"
    done
    in_range "$(field "$OUT" run/big alloc_bytes)" 30000480 30002400 "summary: big's alloc_bytes over 30 calls"
    BASE=$OUT
    trace "$j-aggtree" --alloc --aggregate -f tree -n 2 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--alloc --aggregate -f tree"
    expect_grep 'p99 +alloc p50 +alloc p99 +self/call' "$OUT" "--alloc --aggregate -f tree: the columns"
    expect_grep '977 KiB +977 KiB .*Alloc\.big' "$OUT" "--alloc --aggregate -f tree: big's bytes"

    note "JDK $j: --max-alloc"
    trace "$j-maxok" --alloc --aggregate -n 3 --max-alloc tgt.Alloc.big=1100000 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--max-alloc over the limit's bytes"
    trace "$j-maxbad" --alloc --aggregate -n 3 --max-alloc tgt.Alloc.big=900000 \
        --max-alloc tgt.Alloc.none=64 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 4 "--max-alloc under big's bytes"
    expect_grep '^mcalltree: --max-alloc tgt.Alloc.big=900000: tgt.Alloc.run\(\)J > tgt.Alloc.big\(\)V: 10000[0-9][0-9] bytes allocated within one entry call, over the limit of 900000 \(exit status 4\)$' \
        "$ERR" "--max-alloc under big's bytes"
    expect_no_grep 'Alloc.none=64:' "$ERR" "--max-alloc on none"
    trace "$j-maxcalls" --alloc -n 3 --max-alloc tgt.Alloc.big=900000 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 4 "--max-alloc over per-call trees"
    expect_grep 'max-alloc tgt.Alloc.big=900000: .*10000[0-9][0-9] bytes allocated' "$ERR" "--max-alloc, per call"
    trace "$j-maxnoalloc" -n 3 --max-alloc tgt.Alloc.big=900000 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 1 "--max-alloc without --alloc"
    expect_grep 'max-alloc tgt.Alloc.big=900000 needs --alloc' "$ERR" "--max-alloc without --alloc"
    trace "$j-maxbadarg" --alloc -n 3 --max-alloc tgt.Alloc.big=lots "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 1 "--max-alloc with a bad number"
    expect_grep "max-alloc tgt.Alloc.big=lots: BYTES must be an integer >= 0" "$ERR" "--max-alloc with a bad number"
    expect_restored "$PID" "after --max-alloc"
    stop_jvm "$PID"

    note "JDK $j: diff flags a grown allocation"
    scenario "$jdk" alloc 2000000
    trace "$j-agg2" --alloc --aggregate -n 30 -t 120 "$PID" tgt.Alloc run 2 "$RX"
    expect_rc 0 "--alloc --aggregate, 2,000,000 bytes"
    NEW=$OUT
    trace "$j-diff" diff --fail-over-pct 50 "$BASE" "$NEW"
    expect_rc 4 "diff of a grown allocation"
    expect_grep '^mcalltree diff: --fail-over-pct 50: alloc p50 of tgt\.Alloc\.run\(\)J > tgt\.Alloc\.big\(\)V grew from 977 KiB to 1\.91 MiB \(\+100\.0%' \
        "$ERR" "diff: big's alloc p50"
    expect_no_grep 'alloc p50 of tgt\.Alloc\.run\(\)J > tgt\.Alloc\.none' "$ERR" "diff: none's allocation"
    trace "$j-diffsame" diff --fail-over-pct 50 "$BASE" "$BASE"
    expect_rc 0 "diff of a run with itself"
    trace "$j-diffjson" diff -f json "$BASE" "$NEW"
    expect_rc 0 "diff -f json"
    expect_grep '"alloc_p50_bytes": *\{[^}]*"base": *10000[0-9][0-9],[^}]*"new": *20000[0-9][0-9]' "$OUT" "diff -f json: big's alloc p50"
    stop_jvm "$PID"
done
trace_done
