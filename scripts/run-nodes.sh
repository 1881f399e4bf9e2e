#!/usr/bin/env bash
# `make nodes`: three CardAtlas nodes on one PostgreSQL + PostGIS, on 127.0.0.1:7878, 7879 and
# 7880. With CARDATLAS_STORE (a postgresql:// URL) they use that database; otherwise a throwaway
# PostgreSQL of their own (scripts/test-postgres.sh, on 127.0.0.1:54330, made afresh each time).
# Ctrl-C or SIGTERM stops the nodes, then that PostgreSQL.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ports=(7878 7879 7880)
if [[ -n ${CARDATLAS_STORE:-} ]]; then
  url=$CARDATLAS_STORE
else
  unset CARDATLAS_POSTGRES_URL
  export CARDATLAS_POSTGRES_STATE=$PWD/.build/postgres-nodes CARDATLAS_POSTGRES_PORT=54330
  scripts/test-postgres.sh begin
  trap 'scripts/test-postgres.sh end' EXIT
  url=$(scripts/test-postgres.sh url)
  [[ -n $url ]] || exit 1
fi
pids=()
for port in "${ports[@]}"; do
  # Each node's pages and API 200 ports up: 8078, 8079, 8080.
  .build/release/cardatlas serve --port "$port" --http-port $((port + 200)) \
    --data "var/node-$port" --store "$url" &
  pids+=($!)
done
trap 'kill -TERM "${pids[@]}" 2>/dev/null || true' INT TERM
echo "nodes on ports ${ports[*]} (HTTP 8078-8080) over $url; Ctrl-C stops them"
wait "${pids[@]}" || true
