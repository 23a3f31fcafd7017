#!/usr/bin/env bash
# Rows (protocol/rows.c) through the export sink and queue (client/expsink.c,
# client/export.c; the URL is the server's, the sink adds the INSERT) into a
# real clickhouse-server (Debian's, a plain process on loopback with a
# scratch data directory; skips (77) only when it cannot be installed),
# into README's table; no JVM (tests/e2e/mct-export makes the calls):
# - 400 calls of 9 nodes inserted: per call path, the rows and the sum of
#   calls ClickHouse counts equal those of the calls sent; nothing dropped;
# - README's three queries run on what was inserted (a day ago and now):
#   p99 per node, the nodes that grew, the slowest calls and their nodes;
# - the server down: the exporter gives up within its bound, every row is
#   counted dropped, and the command ends.
. "$MCT_SRCDIR/tests/setup"
. "$MCT_SRCDIR/scripts/deps"
. "$MCT_SRCDIR/tests/e2e/helpers/clickhouse.sh"

EXPORT=$MCT_BUILDDIR/tests/e2e/mct-export
ch_start
ch_query "$(ch_readme_sql clickhouse-table)" || fail "README's table was refused"

note "rows of 400 calls inserted, counted per path"
"$EXPORT" rows -n 400 -k 9 -b 65536 -u "$CH_URL" -e "$MCT_TMP/expect.tsv" 2>"$MCT_TMP/rows.err" ||
    fail "mct-export rows: $(cat "$MCT_TMP/rows.err")"
grep -q '^clickhouse: 3600 rows sent, 0 rejected, 0 dropped' "$MCT_TMP/rows.err" || fail "rows not all sent: $(cat "$MCT_TMP/rows.err")"
ch_query 'SELECT path_hash, count(), sum(calls) FROM mcalltree.nodes GROUP BY path_hash ORDER BY path_hash' \
    >"$MCT_TMP/got.tsv" || fail "the count query failed"
[ -s "$MCT_TMP/expect.tsv" ] || fail "mct-export wrote no expectations"
diff "$MCT_TMP/expect.tsv" "$MCT_TMP/got.tsv" >&2 || fail "ClickHouse's counts per path differ from the calls sent"
[ "$(ch_query 'SELECT count() FROM mcalltree.nodes WHERE depth = 0')" = 400 ] || fail "not one root row per call"

note "README's queries"
"$EXPORT" rows -n 200 -k 9 -o 90000 -u "$CH_URL" 2>"$MCT_TMP/old.err" || fail "mct-export rows -o: $(cat "$MCT_TMP/old.err")"
p99=$(ch_query "$(ch_readme_sql clickhouse-p99)") || fail "README's p99 query failed"
[ "$(printf '%s\n' "$p99" | wc -l)" = 9 ] || fail "the p99 query gave not one line per node: $p99"
# every node ran in 400 entry calls within the hour
[ "$(printf '%s\n' "$p99" | cut -f2 | sort -u)" = 400 ] || fail "the p99 query's entry calls: $p99"
grew=$(ch_query "$(ch_readme_sql clickhouse-grew)") || fail "README's growth query failed"
[ "$(printf '%s\n' "$grew" | wc -l)" = 9 ] || fail "the growth query gave not one line per node: $grew"
slow=$(ch_query "$(ch_readme_sql clickhouse-slowest)") || fail "README's slowest query failed"
[ "$(printf '%s\n' "$slow" | wc -l)" = 90 ] || fail "the slowest query gave not 10 calls of 9 nodes: $slow"

note "ClickHouse down: rows dropped and counted, the command ends"
ch_stop
timeout 60 "$EXPORT" rows -n 300 -k 9 -b 8192 -s 500 -u "$CH_URL" 2>"$MCT_TMP/down.err"
rc=$?
[ "$rc" = 0 ] || fail "mct-export against a server down: status $rc: $(cat "$MCT_TMP/down.err")"
grep -q '^clickhouse: 0 rows sent, 0 rejected, 2700 dropped' "$MCT_TMP/down.err" || fail "drops not counted: $(cat "$MCT_TMP/down.err")"
exit 0
