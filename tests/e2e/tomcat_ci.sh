#!/usr/bin/env bash
# README's CI recipe on a real server, on every test JDK: Debian's Tomcat
# 10.1, started here as a plain process (its own CATALINA_BASE in the test's
# scratch directory) and stopped, serving tests/field/webapp (a checkout: one
# Repo.find, a price per line through a lambda, an audit on a third of the
# requests) while curl loops drive it. Each run starts a fresh Tomcat, as a
# CI job would, and runs the recipe's three steps against rw.Shop.checkout:
#   1. --max-calls rw.Repo.find=1 and 'rw.Price.of(J)J=4' over 100 calls;
#   2. --percentile 99 --fail-over-ms 250 and --budget rw.Repo.find:p90=20;
#   3. 100 calls as JSON, then diff --fail-on-calls against the first run's.
# Two runs of the same build pass every step; a build with one more
# Repo.find per checkout (-Dci.extra=true) fails steps 1 and 3, naming
# rw.Repo.find. The lambda of rw.Shop (a class of the webapp's loader) is
# planned and traced. With --follow-async, the asynchronous servlet's
# checkout (AsyncContext.start, run by Tomcat's executor after doGet
# returned) is under doGet, async, on one of Tomcat's threads.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/tests/e2e/lib.sh"
. "$MCT_SRCDIR/tests/e2e/trace_lib.sh"
need_root
# shellcheck source=scripts/deps
(. "$MCT_SRCDIR/scripts/deps" && mct_install_tomcat) || skip "Debian's tomcat10 cannot be installed here"

# shellcheck source=tests/e2e/helpers/tomcat.sh
. "$MCT_SRCDIR/tests/e2e/helpers/tomcat.sh"
RX='rw\..*'
ENTRY=(rw.Shop checkout 3)
tomcat_webapp

# drive: two curl loops over ids 1..60 against TC_URL, in the background;
# sets DRIVERS.
drive() {
    local k
    DRIVERS=
    for k in 1 2; do
        (for ((n = k; ; n++)); do curl -s -o /dev/null -m 5 "$TC_URL?id=$((n % 60 + 1))"; done) &
        DRIVERS="$DRIVERS $!"
        MCT_PIDS="$MCT_PIDS $!"
    done
}

stop_all() {
    local p
    for p in $DRIVERS; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    stop_tomcat
}

# recipe JDK NAME EXTRA: one CI job; sets R1, R2, R3, R4 (the steps' exit
# statuses) and leaves their output in $MCT_TMP/NAME-*.
recipe() {
    local jdk=$1 name=$2 extra=$3
    start_tomcat "$jdk" "$name" "$extra"
    drive
    trace "$name-1" -n 100 -t 120 -o /dev/null --max-calls rw.Repo.find=1 \
        --max-calls 'rw.Price.of(J)J=4' "$TC_PID" "${ENTRY[@]}" "$RX"
    R1=$RC
    trace "$name-2" -n 100 -t 120 -o /dev/null --percentile 99 --fail-over-ms 250 \
        --budget rw.Repo.find:p90=20 "$TC_PID" "${ENTRY[@]}" "$RX"
    R2=$RC
    trace "$name-3" -n 100 -t 120 -f json "$TC_PID" "${ENTRY[@]}" "$RX"
    R3=$RC
    [ -f "$BASELINE" ] || cp "$OUT" "$BASELINE"
    trace "$name-diff" diff --fail-on-calls "$BASELINE" "$MCT_TMP/$name-3.out"
    R4=$RC
    stop_all
    note "$name: step 1 $R1, step 2 $R2, step 3 $R3, diff $R4"
}

for jdk in $MCT_TEST_JDKS; do
    j=$(jdk_major "$jdk")
    BASELINE=$MCT_TMP/baseline-$j.json

    for run in 1 2; do
        note "JDK $j: the recipe on a freshly started Tomcat, unchanged build, run $run"
        recipe "$jdk" "$j-same$run" false
        for step in 1 2 3 4; do
            rc=R$step
            [ "${!rc}" = 0 ] || {
                cat "$MCT_TMP/$j-same$run-"*.err >&2
                soft_fail "JDK $j run $run, unchanged build: step $step exited ${!rc}, want 0"
            }
        done
        check_calls "$MCT_TMP/$j-same$run-3.out" 100 "JDK $j run $run: the traced calls"
        # the webapp's lambda (a class of its own loader) is in the trees
        grep -q 'lambda\$checkout\$' "$MCT_TMP/$j-same$run-3.out" ||
            soft_fail "JDK $j run $run: rw.Shop's lambda is not in the traced calls"
    done

    note "JDK $j: --follow-async: the asynchronous servlet's work under its doGet"
    start_tomcat "$jdk" "$j-async" false
    TC_URL=${TC_URL%/checkout}/checkout-async
    drive
    trace "$j-async" --follow-async -n 20 -t 120 "$TC_PID" rw.AsyncCheckoutServlet doGet 4 "$RX"
    stop_all
    expect_rc 0 "JDK $j: --follow-async"
    check_calls "$OUT" 20 "JDK $j: --follow-async"
    expect_outline "$OUT" "JDK $j: --follow-async" <<'OUTLINE'
rw.AsyncCheckoutServlet.doGet calls=1 throws=0
  java.lang.Runnable.run calls=1 throws=0 async
    rw.AsyncCheckoutServlet.lambda$doGet$0 calls=1 throws=0
      rw.Shop.checkout calls=1 throws=0
OUTLINE
    bad=$("$TREE" field "$OUT" doGet/Runnable.run thread | grep -v '^http-nio-' | head -1)
    [ -z "$bad" ] || soft_fail "JDK $j: --follow-async: the checkout ran on '$bad', not a Tomcat thread"

    note "JDK $j: the recipe with one more rw.Repo.find per checkout"
    recipe "$jdk" "$j-extra" true
    [ "$R1" = 4 ] || soft_fail "JDK $j, one more call: step 1 exited $R1, want 4"
    grep -q 'rw\.Repo\.find' "$MCT_TMP/$j-extra-1.err" ||
        soft_fail "JDK $j, one more call: step 1 does not name rw.Repo.find"
    [ "$R2" = 0 ] || soft_fail "JDK $j, one more call: step 2 (times) exited $R2, want 0"
    [ "$R4" = 4 ] || soft_fail "JDK $j, one more call: diff --fail-on-calls exited $R4, want 4"
    grep -q 'rw\.Repo\.find' "$MCT_TMP/$j-extra-diff.err" ||
        soft_fail "JDK $j, one more call: diff does not name rw.Repo.find"
done
trace_done
