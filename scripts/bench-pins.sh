#!/usr/bin/env bash
# The PIN.AT goal over the wire (docs/BENCHMARKS.md, "Photo pins"): starts a fresh server (fsync
# always), lets `cardatlas-bench load` make N photo pins through the protocol (pipelined PIN.ADD
# from accounts of 10,000 pins each; viewing radii 10 m to 1 km; the PIN.ADD rate is printed)
# and GEOADD the same points, then runs PIN.AT against GEOSEARCH 1 km in the same run. Prints
# the server's RSS before and after.
# Usage: scripts/bench-pins.sh [N=1000000] [seconds per workload=10] [port=7912]
set -euo pipefail
n=${1:-1000000}
seconds=${2:-10}
port=${3:-7912}
bin=${CARDATLAS:-.build/release/cardatlas}
bench=${CARDATLAS_BENCH:-.build/release/cardatlas-bench}
data=$(mktemp -d /tmp/cardatlas-bench-pins.XXXXXX)
"$bin" serve --port "$port" --data "$data" --fsync always --signups-per-address 0 --pins-per-hour 0 \
  --log-level warning &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 50); do
  redis-cli -p "$port" PING >/dev/null 2>&1 && break
  sleep 0.1
done
rss() { awk '/VmRSS/ {print $2 * 1024}' "/proc/$server/status"; }
echo "server RSS before: $(rss) bytes"
"$bench" load --target "127.0.0.1:$port" --workload pins --baseline radius \
  --points "$n" --cards-per-account 10000 --clients 50 --pipeline 16 --duration "$seconds" \
  --rounds 2
echo "server RSS after: $(rss) bytes"
