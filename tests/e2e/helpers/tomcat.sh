# tests/e2e/helpers/tomcat.sh — Debian's Tomcat 10.1 for the tests on a
# real server (tomcat_ci.sh, bench_server.sh): the field webapp compiled,
# and a fresh Tomcat started as a plain process with its own CATALINA_BASE
# in the test's scratch directory. Sourced after tests/setup and lib.sh,
# once mct_install_tomcat installed it.
# shellcheck shell=bash

TC_HOME=/usr/share/tomcat10
APP=$MCT_TMP/app

# tomcat_webapp: compiles tests/field/webapp into APP.
tomcat_webapp() {
    mkdir -p "$APP/WEB-INF/classes"
    cp "$MCT_SRCDIR/tests/field/webapp/WEB-INF/web.xml" "$APP/WEB-INF/"
    "$MCT_JDK_HOME/bin/javac" -nowarn --release 11 -cp "$TC_HOME/lib/servlet-api.jar" \
        -d "$APP/WEB-INF/classes" "$MCT_SRCDIR"/tests/field/webapp/rw/*.java || fail "the webapp does not compile"
}

# start_tomcat JDK NAME EXTRA: a fresh Tomcat on a free port serving the
# webapp at /ci, -Dci.extra=EXTRA; sets TC_PID and TC_URL. A port taken
# between the choice and Tomcat's bind (by another test) is chosen again.
start_tomcat() {
    local jdk=$1 name=$2 extra=$3 base=$MCT_TMP/tc-$2 port i pid
    for _ in 1 2 3; do
        rm -rf "$base"
        mkdir -p "$base"/{conf,logs,work,temp,webapps}
        cp -r /etc/tomcat10/* "$base/conf/"
        port=$(free_port) || fail "no free port"
        # the HTTP port, no shutdown port, no AJP
        sed -i -e "s/port=\"8080\"/port=\"$port\"/" -e 's/<Server port="8005"/<Server port="-1"/' \
            "$base/conf/server.xml"
        cp -r "$APP" "$base/webapps/ci"
        CATALINA_HOME=$TC_HOME CATALINA_BASE=$base JAVA_HOME=$jdk \
            JAVA_OPTS="-XX:+EnableDynamicAgentLoading -Dci.extra=$extra" \
            "$TC_HOME/bin/catalina.sh" run >"$base/logs/stdout.log" 2>&1 &
        pid=$!
        MCT_PIDS="$MCT_PIDS $pid"
        TC_URL=http://127.0.0.1:$port/ci/checkout
        for ((i = 0; i < 600; i++)); do
            curl -sf -o /dev/null -m 2 "$TC_URL?id=1" && break
            grep -q 'BindException: Address already in use' "$base/logs/stdout.log" && break
            sleep 0.1
        done
        grep -q 'BindException: Address already in use' "$base/logs/stdout.log" || break
        note "$name: port $port was taken before Tomcat bound it: another port"
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    curl -sf -o /dev/null -m 2 "$TC_URL?id=1" || { cat "$base/logs/stdout.log" >&2; fail "$name: Tomcat did not serve"; }
    TC_PID=$(pgrep -f "catalina.base=$base " | head -n 1)
    [ -n "$TC_PID" ] || fail "$name: no Tomcat process"
}

# stop_tomcat: TC_PID ended, killed if it does not stop within 30 s.
stop_tomcat() {
    kill -TERM "$TC_PID" 2>/dev/null
    wait_until 30 eval '! alive "$TC_PID"' || kill -9 "$TC_PID" 2>/dev/null
}

# free_port: a TCP port nothing listens on.
free_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 12000))   # below Linux's ephemeral ports
        ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
    done
    return 1
}
