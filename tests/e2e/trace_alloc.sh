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
# - --cpu --alloc together: both, on the same nodes.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'

# in_range VALUES LO HI WHAT: every value is in LO..HI.
in_range() {
    local v
    [ -n "$1" ] || { soft_fail "$4: no value"; return; }
    for v in $1; do
        [ "$v" -ge "$2" ] && [ "$v" -le "$3" ] || soft_fail "$4: $v is outside $2..$3"
    done
}

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
    stop_jvm "$PID"
done
trace_done
