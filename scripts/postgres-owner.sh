# Sourced by the test PostgreSQL scripts: `as_owner CMD...` runs CMD as the clusters' owner,
# the `postgres` system user when run as root (initdb and postgres refuse root), else as is.
as_owner() {
  if [[ $(id -u) -ne 0 ]]; then
    "$@"
  elif command -v runuser >/dev/null 2>&1; then
    (cd / && runuser -u postgres -- "$@")
  else
    (cd / && su -s /bin/sh postgres -c "$(printf '%q ' "$@")")
  fi
}
