# helpers/clickhouse.sh — sourced by the ClickHouse tests (after
# tests/setup and scripts/deps): Debian's clickhouse-server run as a plain
# process on loopback with a scratch data directory, started and stopped
# by the test, and the table of README's "Many JVMs".
# shellcheck shell=bash

# ch_free_port: a TCP port nothing listens on now.
ch_free_port() {
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 12000))   # below Linux's ephemeral ports
        (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
    done
    return 1
}

# ch_start: installs clickhouse-server (or skips the test), starts it;
# sets CH_URL (its HTTP interface), CH_PORT (its native one), CH_PID.
ch_start() {
    local d=$MCT_TMP/clickhouse http
    mct_install_clickhouse || skip "clickhouse-server could not be installed (see above)"
    mkdir -p "$d/data" "$d/tmp" "$d/schemas"
    http=$(ch_free_port) && CH_PORT=$(ch_free_port) || fail "no free port for ClickHouse"
    cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/error.log</errorlog><console>0</console></logger>
  <http_port>$http</http_port>
  <tcp_port>$CH_PORT</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <format_schema_path>$d/schemas/</format_schema_path>
  <mark_cache_size>5368709120</mark_cache_size>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
</yandex>
XML
    cat >"$d/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default/></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default/></quotas>
</yandex>
XML
    (cd "$d" && exec clickhouse-server --config-file="$d/config.xml") >"$d/out.log" 2>&1 &
    CH_PID=$!
    MCT_PIDS="$MCT_PIDS $CH_PID"
    CH_URL=http://127.0.0.1:$http
    wait_until 60 ch_query 'SELECT 1' >/dev/null 2>&1 ||
        fail "clickhouse-server did not start: $(tail -5 "$d/error.log" "$d/out.log" 2>/dev/null)"
}

# ch_stop: ends the server; its ports are then closed (a server down).
ch_stop() {
    kill "$CH_PID" 2>/dev/null
    wait "$CH_PID" 2>/dev/null
}

# ch_query SQL: the result as tab-separated lines.
ch_query() {
    clickhouse-client --host 127.0.0.1 --port "$CH_PORT" --multiquery --query "$1"
}

# ch_readme_sql NAME: the SQL block of README.md marked <!-- mct:NAME -->
# (the table, the queries), so that the tests run what the README says.
ch_readme_sql() {
    awk -v m="<!-- mct:$1 -->" '$0 == m { on = 1; next } on && /^```sql/ { inb = 1; next }
        inb && /^```/ { exit } inb { print }' "$MCT_SRCDIR/README.md"
}
