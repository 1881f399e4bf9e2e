#!/usr/bin/env bash
# A throwaway PostgreSQL 15 with PostGIS 3 for `make test`:
#
#   scripts/test-postgres.sh begin   # start it in the background (while the project builds)
#   scripts/test-postgres.sh url     # wait for it (at most 120 s); print its URL, or nothing if it
#                                    # did not start (the reason and its log's tail on stderr)
#   scripts/test-postgres.sh end     # stop it, if `begin` started it (a second `end` does nothing)
#
# A cluster of its own, made afresh by every `begin` (the last one's stopped and removed): data,
# unix socket and log in .build/postgres, on 127.0.0.1:54329 only (CARDATLAS_POSTGRES_PORT
# changes the port), trust authentication for local connections, the superuser `postgres`, and a
# database `cardatlas`. PostGIS is in `cardatlas` and in template1, so the databases tests create
# have it too. Durability is real (fsync and synchronous_commit on, data checksums), and
# wal_level=logical with 10 WAL senders and replication slots, for standby and failover tests.
# As root (initdb refuses root) the cluster belongs to the `postgres` system user; run by another
# user it is theirs. CARDATLAS_POSTGRES_STATE moves .build/postgres (`make nodes` keeps its
# own). The binaries are /usr/lib/postgresql/15/bin (scripts/install-deps.sh). With
# CARDATLAS_POSTGRES_URL already set it does nothing, and `url` prints that.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
pgbin=/usr/lib/postgresql/15/bin
port=${CARDATLAS_POSTGRES_PORT:-54329}
url="postgresql://postgres@127.0.0.1:$port/cardatlas?sslmode=disable"
state=${CARDATLAS_POSTGRES_STATE:-$PWD/.build/postgres}

# Where the cluster lives: .build/postgres, unless the `postgres` user cannot reach it (a checkout
# under a home directory of mode 700) or its socket's path would be too long for a unix socket
# (107 bytes); then a directory under /tmp, named in .build/postgres/home.
home() { if [[ -f $state/home ]]; then cat "$state/home"; else echo "$state"; fi; }

# shellcheck source=scripts/postgres-owner.sh
source scripts/postgres-owner.sh

# Stops the server whose data directory is under $1, if one runs there.
stop_server() {
  if [[ -f $1/data/postmaster.pid ]]; then
    as_owner timeout 90 "$pgbin/pg_ctl" -D "$1/data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
  fi
}

psql_() {
  timeout 120 "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"
}

# Runs in the background: initdb, start, PostGIS, the database.
start() {
  local home=$1 listening=0
  timeout 5 "$pgbin/pg_isready" -q -h 127.0.0.1 -p "$port" || listening=$?
  if [[ $listening -eq 0 || $listening -eq 1 ]]; then
    echo "something already listens on 127.0.0.1:$port (another checkout's test PostgreSQL?)"
    return 1
  fi
  echo "$(date +%T) initdb $home/data"
  mkdir -p "$home/sock"
  if [[ $(id -u) -eq 0 ]]; then
    id postgres >/dev/null 2>&1 || {
      echo "running as root, and there is no postgres user to run PostgreSQL as (scripts/install-deps.sh)"
      return 1
    }
    chown postgres: "$home" "$home/sock"
  fi
  chmod 700 "$home" "$home/sock"
  # --no-sync: only initdb skips its fsyncs (the server never does); a crashed OS needs a new begin.
  as_owner timeout 120 "$pgbin/initdb" -D "$home/data" -U postgres --auth=trust -E UTF8 \
    --locale=C.UTF-8 --data-checksums --no-sync --no-instructions
  cat >>"$home/data/postgresql.conf" <<EOF

# --- scripts/test-postgres.sh: a throwaway cluster for the tests, durability left real ---
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$home/sock'
# The domain suites over PostgreSQL run a node per test, dozens at once (TestDaemon).
max_connections = 1000
shared_buffers = 128MB
fsync = on
synchronous_commit = on
full_page_writes = on
wal_level = logical
max_wal_senders = 10
max_replication_slots = 10
EOF
  echo "$(date +%T) starting PostgreSQL on 127.0.0.1:$port"
  # The port on its command line too, so that `pgrep -af 54329` finds it.
  as_owner timeout 90 "$pgbin/pg_ctl" -D "$home/data" -l "$home/postgres.log" -o "-p $port" -w -t 60 start
  echo "$(date +%T) CREATE EXTENSION postgis in template1; CREATE DATABASE cardatlas"
  psql_ -d template1 -c 'CREATE EXTENSION postgis'
  psql_ -d postgres -c 'CREATE DATABASE cardatlas'
  psql_ -d cardatlas -Atc 'SELECT postgis_version()'
  echo "$(date +%T) ready: $url"
}

case ${1:-} in
begin)
  [[ -z ${CARDATLAS_POSTGRES_URL:-} ]] || exit 0
  # The last run's server, if its `end` never came, then everything it left.
  old=$(home)
  stop_server "$old"
  if [[ $old == /tmp/cardatlas-postgres.* ]]; then rm -rf "$old"; fi
  rm -rf "$state"
  mkdir -p "$state"
  home=$state
  if [[ $(id -u) -eq 0 ]] && id postgres >/dev/null 2>&1 && ! as_owner test -x "$state"; then
    home=$(mktemp -d /tmp/cardatlas-postgres.XXXXXX)
  elif ((${#state} + 20 > 107)); then
    home=$(mktemp -d /tmp/cardatlas-postgres.XXXXXX)
  fi
  [[ $home == "$state" ]] || echo "$home" >"$state/home"
  (
    set +e
    (set -e; start "$home")
    echo $? >"$state/status.new"
    mv "$state/status.new" "$state/status"
  ) </dev/null >"$state/begin.log" 2>&1 &
  echo $! >"$state/pid"
  ;;
url)
  if [[ -n ${CARDATLAS_POSTGRES_URL:-} ]]; then
    echo "$CARDATLAS_POSTGRES_URL"
    exit 0
  fi
  [[ -f $state/pid ]] || exit 0
  pid=$(cat "$state/pid")
  # Its status is written before it exits: gone without one, it was killed.
  for ((i = 0; i < 600; i++)); do
    [[ ! -f $state/status ]] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  if [[ -f $state/status && $(cat "$state/status") == 0 ]]; then
    echo "$url"
  else
    if [[ -f $state/status ]] || ! kill -0 "$pid" 2>/dev/null; then
      echo "The test PostgreSQL did not start; its tests will skip. The end of its logs:" >&2
    else
      echo "The test PostgreSQL was not ready after 120 s; its tests will skip. Its logs' end:" >&2
    fi
    tail -20 "$state/begin.log" >&2 || true
    tail -20 "$(home)/postgres.log" >&2 2>/dev/null || true
  fi
  ;;
end)
  [[ -f $state/pid ]] || exit 0
  pid=$(cat "$state/pid")
  rm -f "$state/pid"
  # A `begin` still under way (the build failed before `url`) would start the server after this.
  for ((i = 0; i < 600; i++)); do
    [[ ! -f $state/status ]] && kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  [[ -f $state/status ]] || kill "$pid" 2>/dev/null || true
  stop_server "$(home)"
  ;;
*)
  echo "usage: $0 begin|url|end" >&2
  exit 64
  ;;
esac
