#!/usr/bin/env bash
# Filtered card search against PostGIS on the same database (docs/BENCHMARKS.md, "Filtered card
# search against PostGIS"): starts a node on URL (an empty database), lets `cardatlas-bench load`
# make N located cards through it and time CARD.SEARCH … FILTER company Acme (50 clients,
# pipelined 16), stops the node, then times the same query as SQL with pgbench, 50 clients, one
# query at a time and 16 in a pipeline: within 1 km of a centre, company Acme (case-insensitive),
# shown on the map, primary or its owner Pro, nearest 10, on a GiST index of the geography. (An
# index on the lowered company made it slower: the planner ANDed its 125,000 rows with the GiST
# scan's dozen, 385 queries/s.) The centres are 65,536 of the cards' own points (the load's are
# drawn like the points).
# Usage: scripts/bench-postgis.sh URL [N=1000000] [seconds=15] [port=7921]
set -euo pipefail
url=$1
n=${2:-1000000}
seconds=${3:-15}
port=${4:-7921}
bin=${CARDATLAS:-.build/release/cardatlas}
bench=${CARDATLAS_BENCH:-.build/release/cardatlas-bench}
data=$(mktemp -d /tmp/cardatlas-bench-postgis.XXXXXX)
"$bin" serve --port "$port" --data "$data" --store "$url" --pro-card-limit 1000 \
  --signups-per-address 0 --log-level warning &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 100); do
  redis-cli -p "$port" PING >/dev/null 2>&1 && break
  sleep 0.1
done
"$bench" load --target "127.0.0.1:$port" --workload cards --company Acme --points "$n" \
  --clients 50 --pipeline 16 --duration "$seconds" --timeout 120
kill $server
wait $server 2>/dev/null || true
# psql and pgbench take the URL without CardAtlas's own parameters.
sql_url=${url%%\?*}
psql -q "$sql_url" <<'SQL'
CREATE INDEX IF NOT EXISTS bench_cards_geography ON cards USING gist ((geom::geography));
DROP TABLE IF EXISTS bench_centres;
CREATE TABLE bench_centres AS
  SELECT row_number() OVER () AS i, geom::geography AS centre
  FROM (SELECT geom FROM cards WHERE geom IS NOT NULL ORDER BY random() LIMIT 65536) p;
CREATE UNIQUE INDEX ON bench_centres (i);
ANALYZE;
SQL
script=$(mktemp /tmp/bench-postgis.XXXXXX.sql)
cat > "$script" <<'SQL'
\set i random(1, 65536)
SELECT c.id, c.fields, ST_Distance(c.geom::geography, b.centre) AS metres
FROM bench_centres b, cards c JOIN accounts a ON a.id = c.owner_id
WHERE b.i = :i AND ST_DWithin(c.geom::geography, b.centre, 1000)
  AND lower(c.fields->>'company') = 'acme' AND (c.fields->>'showOnMap')::boolean
  AND (c.is_primary OR a.is_pro)
ORDER BY metres LIMIT 10;
SQL
psql -q "$sql_url" -c "EXPLAIN ANALYZE $(sed -e '1d' -e 's/:i/1/' "$script")" | tail -n 25
pgbench -n -M prepared -c 50 -j 2 -T "$seconds" -f "$script" "$sql_url"
# The same 16 at a time in a pipeline, as the load sends CARD.SEARCH: queries/s = tps × 16.
pipelined=$(mktemp /tmp/bench-postgis.XXXXXX.sql)
{
  echo '\startpipeline'
  for _ in $(seq 16); do cat "$script"; done
  echo '\endpipeline'
} > "$pipelined"
pgbench -n -M prepared -c 50 -j 2 -T "$seconds" -f "$pipelined" "$sql_url"
rm -f "$script" "$pipelined"
