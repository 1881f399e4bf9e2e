#!/usr/bin/env bash
# The real Nominatim the geocoder clients' tests ask (docs/GEOCODING-HTTP.md), for `make test`:
#
#   scripts/test-nominatim.sh begin   # start it in the background (while the project builds)
#   scripts/test-nominatim.sh url     # wait for it; print its URL, or nothing if it did not start
#   scripts/test-nominatim.sh end     # stop it, if `begin` started it
#
# It is ../shared/nominatim/setup-nominatim.sh over the extract beside it, on 127.0.0.1:8088: a
# first start installs PostgreSQL/PostGIS and Nominatim and imports the extract (minutes, root);
# later starts take seconds. Without that script, or with CARDATLAS_NOMINATIM_URL already set,
# it does nothing, and the tests that need Nominatim skip, saying so.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
setup=../shared/nominatim/setup-nominatim.sh
extract=../shared/nominatim/liechtenstein-autauga.osm.pbf
port=8088
state=.build/nominatim
mkdir -p "$state"

case ${1:-} in
begin)
  [[ -x $setup && -z ${CARDATLAS_NOMINATIM_URL:-} ]] || exit 0
  rm -f "$state/status"
  (
    status=0
    timeout 1800 "$setup" start "$extract" "$port" </dev/null >"$state/log" 2>&1 || status=$?
    echo "$status" >"$state/status"
  ) &
  echo $! >"$state/pid"
  ;;
url)
  if [[ -n ${CARDATLAS_NOMINATIM_URL:-} ]]; then
    echo "$CARDATLAS_NOMINATIM_URL"
    exit 0
  fi
  [[ -f $state/pid ]] || exit 0
  while [[ ! -f $state/status ]]; do sleep 2; done
  if [[ $(cat "$state/status") == 0 ]]; then
    echo "http://127.0.0.1:$port"
  else
    echo "Nominatim did not start; its tests will skip. The end of its log:" >&2
    tail -20 "$state/log" >&2 || true
  fi
  ;;
end)
  [[ -f $state/pid ]] || exit 0
  rm -f "$state/pid"
  "$setup" stop >/dev/null 2>&1 || true
  ;;
*)
  echo "usage: $0 begin|url|end" >&2
  exit 64
  ;;
esac
