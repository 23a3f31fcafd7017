#!/usr/bin/env bash
# --args: the entry method's arguments on each call printed or kept, on
# every test JDK (scenario args: tgt.Args.call(boolean, byte, char, short,
# int, long, float, double, String, String, Object, Color, Object, int[]) called
# with true, -7, 'q', -300, 123456789, -9876543210, 1.5f, -2.25, a String
# of 100 digits, "héllo ✓ 😀" (10 UTF-16 units, one beyond the BMP), null,
# Color.GREEN, a Bomb, every method of which prints "BOMB TOUCHED", and an
# int[]):
# - -n 3: each call's root holds them all, typed, the long String cut to 64
#   characters (its length 100 kept), the enum by name, the Bomb as its
#   class and identity hash (System.identityHashCode's, as the target
#   printed it, in every call), and the Bomb is
#   never touched (no toString, hashCode or equals ran);
# - --args-len 5 cuts both Strings to 5 characters;
# - without --args no call has "args";
# - --aggregate --slowest 2: the kept calls hold them;
# - -f tree shows them on a line under the call's title, -f chrome on the
#   entry method's slice;
# - the wrap form (the agent's option string, calls read back from JSON
#   lines) carries them too;
# - --args-len 0, 1025, and without --args are usage errors.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"

RX='tgt\..*'
D64=0123456789012345678901234567890123456789012345678901234567890123
HEAD='"args":\[\{"type":"boolean","value":true\},\{"type":"byte","value":-7\},\{"type":"char","value":"q"\},'
HEAD+='\{"type":"short","value":-300\},\{"type":"int","value":123456789\},\{"type":"long","value":-9876543210\},'
HEAD+='\{"type":"float","value":1\.5\},\{"type":"double","value":-2\.25\},'
TAIL='\{"type":"null"\},\{"type":"enum","value":"GREEN"\},\{"type":"object","class":"tgt\.Args\$Bomb","hash":-?[0-9]+\},'
TAIL+='\{"type":"object","class":"\[I","hash":-?[0-9]+\}\]'
ALL="$HEAD"'\{"type":"String","value":"'$D64'","length":100\},\{"type":"String","value":"héllo ✓ 😀","length":10\},'"$TAIL"
CUT="$HEAD"'\{"type":"String","value":"01234","length":100\},\{"type":"String","value":"héllo","length":10\},'"$TAIL"

# lines_match FILE PATTERN WANT WHAT: WANT lines of FILE match PATTERN (ERE).
lines_match() {
    local n
    n=$(grep -cE -- "$2" "$1")
    [ "$n" = "$3" ] || soft_fail "$4: $n lines match, want $3 (first line: $(head -c 1500 "$1"))"
}

for jdk in $MCT_TEST_JDKS; do
    scenario "$jdk" args
    j=$MAJOR

    note "JDK $j: --args -n 3"
    trace "$j-args" --args -n 3 "$PID" tgt.Args call 1 "$RX"
    expect_rc 0 "--args"
    check_calls "$OUT" 3 "--args" -D 1
    lines_match "$OUT" "$ALL" 3 "--args: every argument"
    hashes=$(grep -oE 'Bomb","hash":-?[0-9]+' "$OUT" | sort -u | sed 's/^Bomb",//')
    want=$(sed -n 's/^BOMB identityHashCode //p' "$LOG")
    [ "$hashes" = "\"hash\":$want" ] ||
        soft_fail "--args: the Bomb's hash is '$hashes' in the calls, System.identityHashCode says '$want'"

    note "JDK $j: --args-len 5"
    trace "$j-len" --args --args-len 5 -n 2 "$PID" tgt.Args call 1 "$RX"
    expect_rc 0 "--args-len 5"
    lines_match "$OUT" "$CUT" 2 "--args-len 5"

    note "JDK $j: no args without --args"
    trace "$j-none" -n 1 "$PID" tgt.Args call 1 "$RX"
    expect_rc 0 "without --args"
    expect_no_grep '"args"' "$OUT" "without --args"

    note "JDK $j: --aggregate --slowest 2 keeps them"
    trace "$j-agg" --args --aggregate --include-warmup --slowest 2 -t 2 "$PID" tgt.Args call 1 "$RX"
    expect_rc 0 "--args --aggregate"
    tail -1 "$OUT" >"$OUT.final"
    n=$(grep -oE "$ALL" "$OUT.final" | wc -l)
    [ "$n" = 2 ] || soft_fail "--args --aggregate --slowest 2: $n kept calls with their arguments, want 2"

    note "JDK $j: -f tree and -f chrome show them"
    trace "$j-tree" --args -f tree -n 1 "$PID" tgt.Args call 1 "$RX"
    expect_rc 0 "--args -f tree"
    expect_grep '^   args: true, \(byte\) -7, '"'q'"', \(short\) -300, 123456789, -9876543210L, 1\.5f, -2\.25, "'$D64'"… \(100 chars\), "héllo ✓ 😀", null, GREEN, tgt\.Args\$Bomb@[0-9a-f]+, \[I@[0-9a-f]+$' \
        "$OUT" "--args -f tree"
    trace "$j-chrome" --args -f chrome -n 1 "$PID" tgt.Args call 1 "$RX"
    expect_rc 0 "--args -f chrome"
    expect_grep '"args": *\[\{"type": *"boolean", *"value": *true\}' "$OUT" "--args -f chrome"

    expect_no_grep 'BOMB TOUCHED' "$LOG" "--args called a method of an argument"
    expect_restored "$PID" "after --args"
    stop_jvm "$PID"

    note "JDK $j: the wrap form (a trace from the JVM's start: calls as JSON lines)"
    trace "$j-wrap" --args --args-len 5 -n 2 tgt.Args call 1 "$RX" -- "$jdk/bin/java" -cp "$MCT_CLASSES" tgt.Args 5
    expect_rc 0 "--args in the wrap form"
    lines_match "$OUT" "$CUT" 2 "--args in the wrap form"
    expect_no_grep 'BOMB TOUCHED' "$OUT" "--args in the wrap form called a method of an argument"
    want=$(sed -n 's/^BOMB identityHashCode //p' "$OUT")
    hashes=$(grep -oE 'Bomb","hash":-?[0-9]+' "$OUT" | sort -u | sed 's/^Bomb",//')
    [ "$hashes" = "\"hash\":$want" ] ||
        soft_fail "--args in the wrap form: the Bomb's hash is '$hashes', System.identityHashCode says '$want'"
done

note "usage errors"
trace "len0" --args --args-len 0 1 a.B m 1 x
expect_rc 1 "--args-len 0"
expect_grep "^mcalltree: --args-len must be an integer from 1 to 1024, got '0'" "$ERR" "--args-len 0"
trace "len-big" --args --args-len 1025 1 a.B m 1 x
expect_rc 1 "--args-len 1025"
expect_grep "^mcalltree: --args-len must be an integer from 1 to 1024, got '1025'" "$ERR" "--args-len 1025"
trace "len-alone" --args-len 5 1 a.B m 1 x
expect_rc 1 "--args-len without --args"
expect_grep "^mcalltree: --args-len needs --args" "$ERR" "--args-len without --args"
trace_done
