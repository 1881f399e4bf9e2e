#!/usr/bin/env bash
# The card page goals over HTTP (docs/BENCHMARKS.md, "Web pages"): starts `serve --demo
# --http-port` on a fresh store, makes one card with every field (as a signed-in client would,
# over RESP), prints the bytes of its page and of a demo card's page, then runs wrk at 50
# connections against each for the median latency and the pages per second. Stops the server.
# Usage: scripts/bench-web.sh [seconds per run=20] [connections=50] [RESP port=7914] [HTTP port=8094]
set -euo pipefail
seconds=${1:-20}
connections=${2:-50}
port=${3:-7914}
http=${4:-8094}
bin=${CARDATLAS:-.build/release/cardatlas}
origin="http://127.0.0.1:$http"
data=$(mktemp -d /tmp/cardatlas-bench-web.XXXXXX)
timeout 900 "$bin" serve --demo --port "$port" --http-port "$http" --data "$data" \
  --public-url "$origin" --code-reads-per-address 0 --log-level warning &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$data"' EXIT
for _ in $(seq 600); do
  curl -fs -o /dev/null "$origin/" && break
  sleep 0.1
done
cli() { timeout 10 redis-cli -p "$port" "$@"; }
cli ACCOUNT.CREATE bench@example.org secret123 >/dev/null
user=(--user bench@example.org --pass secret123 --no-auth-warning)
username=$(cli "${user[@]}" WHOAMI | grep -o '"username":"[a-z0-9]*"' | cut -d'"' -f4)
cli "${user[@]}" CARD.CREATE '{"prefix":"Dr.","firstName":"Zoë","middleName":"Ana",
 "lastName":"Łukasiewicz-Núñez","credentials":"PhD","pronouns":"she/her",
 "jobTitle":"Cartographer","company":"Atlas & Sons","description":"Maps of the world",
 "phoneNumber":"+33 6 12 34 56 78","secondaryPhone":"(555) 123-4567","email":"zoe@example.org",
 "aboutMe":"I draw maps for a living, mostly of cities, and sometimes of places that are not there.",
 "customMessageHeader":"Thanks!","customMessage":"Thanks for scanning my card.",
 "address":{"street":"12 Große Straße","city":"München","postcode":"80331","country":"Germany"},
 "linkedIn":"zoe-maps","twitter":"@zoe_maps","instagramUrl":"https://instagram.com/zoe",
 "youtubeUrl":"https://youtube.com/@zoe","webLinks":[{"url":"https://zoe.example/portfolio",
 "displayText":"Portfolio"},{"url":"https://zoe.example/blog","displayText":"Blog"}]}' >/dev/null
full="$origin/c/$username"
# A demo card near Paris: the URL in its CARD.SEARCH summary.
demo=$(cli "${user[@]}" CARD.SEARCH FROMLONLAT 2.35 48.85 BYRADIUS 50 km COUNT 1 2>/dev/null |
  grep -o '"url":"[^"]*"' | head -1 | cut -d'"' -f4 || true)
for url in "$full" ${demo:+"$demo"}; do
  echo "page $url: $(curl -fs -o /dev/null -w '%{size_download}' "$url") bytes," \
    "$(curl -fs --compressed -o /dev/null -w '%{size_download}' "$url") bytes as sent with gzip"
done
for url in "$full" ${demo:+"$demo"}; do
  echo "== wrk -t2 -c$connections -d${seconds}s --latency $url"
  timeout $((seconds + 30)) wrk -t2 -c"$connections" -d"${seconds}s" --latency "$url"
done
