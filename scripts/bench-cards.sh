#!/usr/bin/env bash
# The card goals over the wire (docs/BENCHMARKS.md, "Cards on the map"): starts a fresh server
# (fsync always, Pro accounts of up to 1000 cards), lets `cardatlas-bench load` make N located
# cards through the protocol (the CARD.CREATE rate is printed) and GEOADD the same points, then
# runs CARD.SEARCH against GEOSEARCH in the same run. Prints the server's RSS before and after.
# Usage: scripts/bench-cards.sh [N=200000] [seconds per workload=20] [port=7911]
set -euo pipefail
n=${1:-200000}
seconds=${2:-20}
port=${3:-7911}
bin=${CARDATLAS:-.build/release/cardatlas}
bench=${CARDATLAS_BENCH:-.build/release/cardatlas-bench}
data=$(mktemp -d /tmp/cardatlas-bench-cards.XXXXXX)
"$bin" serve --port "$port" --data "$data" --fsync always --pro-card-limit 1000 --signups-per-address 0 \
  --log-level warning &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 50); do
  redis-cli -p "$port" PING >/dev/null 2>&1 && break
  sleep 0.1
done
rss() { awk '/VmRSS/ {print $2 * 1024}' "/proc/$server/status"; }
echo "server RSS before: $(rss) bytes"
"$bench" load --target "127.0.0.1:$port" --workload cards --baseline radius \
  --points "$n" --clients 50 --pipeline 16 --duration "$seconds" --rounds 2
echo "server RSS after: $(rss) bytes"
