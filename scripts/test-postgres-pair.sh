#!/usr/bin/env bash
# A primary and a synchronous streaming standby, PostgreSQL 15 with PostGIS, for the failover
# test (`PostgresFailoverTests`), which runs it itself:
#
#   scripts/test-postgres-pair.sh start DIR PRIMARY_PORT STANDBY_PORT   # prints the 2-host URL
#   scripts/test-postgres-pair.sh promote DIR   # the primary killed (immediate), the standby promoted
#   scripts/test-postgres-pair.sh restart DIR   # the primary killed (immediate) and started again
#   scripts/test-postgres-pair.sh stop DIR      # both stopped, DIR removed
#
# DIR must be new and under /tmp (as root the clusters belong to the `postgres` user, who must
# reach it). A commit returns once the standby has flushed it (synchronous_standby_names), so
# the promoted standby holds every commit a client was told of. Trust authentication, on
# 127.0.0.1 only.
set -euo pipefail

pgbin=/usr/lib/postgresql/15/bin

# shellcheck source=postgres-owner.sh
source "$(dirname "${BASH_SOURCE[0]}")/postgres-owner.sh"

ctl() { as_owner timeout 90 "$pgbin/pg_ctl" "$@" </dev/null; }

case ${1:-} in
start)
  dir=$2 primary=$3 standby=$4
  mkdir -p "$dir/sock"
  [[ $(id -u) -ne 0 ]] || chown postgres: "$dir" "$dir/sock"
  chmod 700 "$dir" "$dir/sock"
  as_owner timeout 120 "$pgbin/initdb" -D "$dir/primary" -U postgres --auth=trust -E UTF8 \
    --locale=C.UTF-8 --no-sync --no-instructions >"$dir/initdb.log"
  cat >>"$dir/primary/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $primary
unix_socket_directories = '$dir/sock'
max_connections = 100
wal_level = replica
max_wal_senders = 5
synchronous_commit = on
CONF
  ctl -D "$dir/primary" -l "$dir/primary.log" -w -t 60 start >/dev/null
  psql_() { timeout 60 "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres "$@"; }
  psql_ -p "$primary" -d postgres -c 'CREATE DATABASE cardatlas'
  psql_ -p "$primary" -d cardatlas -c 'CREATE EXTENSION postgis'
  as_owner timeout 120 "$pgbin/pg_basebackup" -h 127.0.0.1 -p "$primary" -U postgres \
    -D "$dir/standby" -R -X stream -c fast
  # Once promoted it has no standby of its own: it must not wait for one.
  cat >>"$dir/standby/postgresql.conf" <<CONF
port = $standby
synchronous_standby_names = ''
CONF
  ctl -D "$dir/standby" -l "$dir/standby.log" -w -t 60 start >/dev/null
  # From now on a commit waits for the standby (set only now: CREATE DATABASE would have).
  psql_ -p "$primary" -d postgres -c "ALTER SYSTEM SET synchronous_standby_names = '*'"
  psql_ -p "$primary" -d postgres -Atc 'SELECT pg_reload_conf()' >/dev/null
  # Ready when the primary sees its standby streaming as its synchronous one (the reload takes
  # effect in the checkpointer a moment later: until then commits would not wait for it).
  for ((i = 0; i < 100; i++)); do
    state=$(psql_ -p "$primary" -d postgres -Atc \
      "SELECT state || ' ' || sync_state FROM pg_stat_replication")
    [[ $state == 'streaming sync' ]] && break
    sleep 0.1
  done
  echo "postgresql://postgres@127.0.0.1:$primary,127.0.0.1:$standby/cardatlas?sslmode=disable"
  ;;
promote)
  dir=$2
  ctl -D "$dir/primary" -m immediate -w stop >/dev/null
  ctl -D "$dir/standby" -w promote >/dev/null
  ;;
restart)
  dir=$2
  ctl -D "$dir/primary" -m immediate -w stop >/dev/null
  ctl -D "$dir/primary" -l "$dir/primary.log" -w -t 60 start >/dev/null
  ;;
stop)
  dir=$2
  for cluster in primary standby; do
    [[ -f $dir/$cluster/postmaster.pid ]] && ctl -D "$dir/$cluster" -m immediate -w stop >/dev/null 2>&1
  done
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start DIR PRIMARY_PORT STANDBY_PORT | promote DIR | restart DIR | stop DIR" >&2
  exit 64
  ;;
esac
