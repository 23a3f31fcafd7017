#!/usr/bin/env bash
# scripts/bench-server against a real server, on every test JDK: Debian's
# Tomcat 10.1 serving tests/field/webapp, rw.Shop.checkout traced in each
# mode with short windows (the figures themselves are not judged: no test
# is timed). Each mode must measure its windows and end with its session's
# classes restored; the every-call session must have traced calls; a
# "+skip" mode's session leaves trivial methods as they are; each window
# shows the JIT's CPU; JFR method timing runs where the JDK has it (25 and
# later); the server still serves afterwards. Bad arguments are refused
# with a clear error before anything is measured.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
need_root
# shellcheck source=scripts/deps
(. "$MCT_SRCDIR/scripts/deps" && mct_install_tomcat) || skip "Debian's tomcat10 cannot be installed here"
(. "$MCT_SRCDIR/scripts/deps" && mct_install_for_tests wrk) || skip "wrk cannot be installed here"
# shellcheck source=tests/e2e/helpers/tomcat.sh
. "$MCT_SRCDIR/tests/e2e/helpers/tomcat.sh"
tomcat_webapp

BS=$MCT_SRCDIR/scripts/bench-server
ENTRY=(rw.Shop checkout 3 'rw\..*')

# refused ARGS... WANT: bench-server exits 1 and says WANT.
refused() {
    local want=${*: -1} out rc
    out=$("$BS" --client "$MCT" "${@:1:$#-1}" 2>&1)
    rc=$?
    [ "$rc" = 1 ] || fail "bench-server ${*:1:$#-1}: exit $rc, want 1"
    grep -qF -- "$want" <<<"$out" || fail "bench-server ${*:1:$#-1}: no '$want' in: $out"
}
refused --modes "every bogus" http://127.0.0.1:1/ "$$" "${ENTRY[@]}" "unknown mode 'bogus'"
refused --window 0 http://127.0.0.1:1/ "$$" "${ENTRY[@]}" "must be a positive integer"
refused --delay-ms x http://127.0.0.1:1/ "$$" "${ENTRY[@]}" "--delay-ms wants a whole number"
refused --settle 30 --settle-max 20 http://127.0.0.1:1/ "$$" "${ENTRY[@]}" "--settle-max 20 is less than --settle 30"
refused --modes "jfr+skip" http://127.0.0.1:1/ "$$" "${ENTRY[@]}" "unknown mode 'jfr+skip'"
refused http://127.0.0.1:1/ 999999999 "${ENTRY[@]}" "no process 999999999"
refused http://127.0.0.1:1/ "$$" rw.Shop "URL PID CLASS METHOD"
refused --client "$MCT_TMP/none" http://127.0.0.1:1/ "$$" "${ENTRY[@]}" "no mcalltree at $MCT_TMP/none"

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    modes="sample100 every aggregate never every+skip"
    [ "$j" -ge 25 ] && modes="$modes jfr"
    start_tomcat "$jdk" "bs$j" false
    refused "http://127.0.0.1:$(free_port)/" "$TC_PID" "${ENTRY[@]}" "does not answer"

    note "JDK $j: $modes"
    "$BS" --client "$MCT" --modes "$modes" --window 1 --windows 1 --settle 2 --settle-max 2 --connections 2 --threads 1 \
        "$TC_URL?id=7" "$TC_PID" "${ENTRY[@]}" >"$MCT_TMP/bs$j.out" 2>"$MCT_TMP/bs$j.err"
    rc=$?
    [ "$rc" = 0 ] || { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: bench-server exited $rc"; }
    for m in $modes; do
        grep -Eq "^${m/+/\\+} +[0-9]+\.[0-9]+-[0-9]+\.[0-9]+ +-?[0-9]+\.[0-9]+--?[0-9]+\.[0-9]+" "$MCT_TMP/bs$j.out" ||
            { cat "$MCT_TMP/bs$j.out" "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: no figures for $m"; }
    done
    [ "$(grep -c 'untraced .* req/s' "$MCT_TMP/bs$j.err")" = "$(($(wc -w <<<"$modes") + 1))" ] ||
        { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: not one untraced window before and one after each mode"; }
    [ "$(grep -c 'session ended (stop): .* classes restored, 0 still instrumented' "$MCT_TMP/bs$j.err")" = \
        "$(wc -w <<<"${modes/ jfr/}")" ] ||
        { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: a session did not end with its classes restored"; }
    grep -Eq 'session ended \(stop\): [1-9][0-9]* calls completed, [1-9][0-9]* printed' "$MCT_TMP/bs$j.err" ||
        { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: the every-call session printed no call"; }
    [ "$(grep -Ec ' JIT +[0-9.]+ +client' "$MCT_TMP/bs$j.err")" = "$(($(wc -w <<<"$modes") * 2 + 1))" ] ||
        { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: not every window shows the JIT's CPU"; }
    grep -Eq '[1-9][0-9]* trivial ones? left as (it is|they are)' "$MCT_TMP/bs$j.err" ||
        { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: every+skip left no trivial method as it is"; }
    if [ "$j" -ge 25 ]; then
        grep -Eq 'jfr: method timing of [1-9][0-9]* classes' "$MCT_TMP/bs$j.err" ||
            { cat "$MCT_TMP/bs$j.err" >&2; fail "JDK $j: JFR method timing did not start"; }
    fi
    curl -sf -o /dev/null -m 5 "$TC_URL?id=3" || fail "JDK $j: Tomcat no longer serves"
    stop_tomcat
    note "JDK $j: every mode measured, every session's classes restored"
done
