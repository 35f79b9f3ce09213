#!/usr/bin/env bash
# A throwaway PostgreSQL 15 + pgvector cluster on loopback, for the Postgres test tier and benches.
#
#   scripts/postgres.sh install          installs what is missing (apt; pgvector from Debian's source)
#   scripts/postgres.sh start            install, then start a cluster; prints `export PG_ADMIN_URL=…`
#   scripts/postgres.sh stop [dir]       stops the cluster `start` made (or the one in dir) and removes it
#   scripts/postgres.sh run -- cmd…      start, run cmd with PG_ADMIN_URL set, stop (whatever cmd returns)
#
# Idempotent: every step is skipped when its result is already there. Debian 12 ships Postgres 15 but
# no pgvector package; pgvector (0.8.x) builds from Debian 13's source package against Postgres 15's
# headers in about a minute. Postgres refuses to run as root: the cluster runs as the `postgres` user,
# in a temporary directory it owns. fsync, synchronous_commit and full_page_writes are off: fine for a
# cluster thrown away after the run, never for a deployment.
set -euo pipefail

PG_BIN=/usr/lib/postgresql/15/bin
VECTOR_SO=/usr/lib/postgresql/15/lib/vector.so
STATE_FILE=${PG_STATE_FILE:-${TMPDIR:-/tmp}/marketplace-postgres.dir}
# one installer at a time on a shared machine (apt's own lock makes a second one fail, not wait)
INSTALL_LOCK=/var/lock/marketplace-postgres-install.lock

log() { echo "postgres.sh: $*" >&2; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

apt_get() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=600 "$@"
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

install() {
  exec 9>"$INSTALL_LOCK"
  flock 9
  local missing=()
  for pkg in postgresql-15 postgresql-server-dev-15 dpkg-dev; do
    installed "$pkg" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    apt_get update
    apt_get install -y --no-install-recommends "${missing[@]}"
  fi
  if [ ! -f "$VECTOR_SO" ]; then
    add_trixie_sources
    local build
    build=$(mktemp -d)
    log "building pgvector from Debian's source package in $build (about a minute)"
    (
      cd "$build"
      apt-get source -q pgvector 2>&1 | grep -v '^W: Download is performed unsandboxed' >&2 || true
      cd pgvector-*/
      # OPTFLAGS="" drops -march=native: the build runs on any x86-64 machine
      make -s PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" >&2
      as_root make -s PG_CONFIG="$PG_BIN/pg_config" OPTFLAGS="" install >&2
    )
    rm -rf "$build"
    [ -f "$VECTOR_SO" ] || { log "pgvector did not install"; exit 1; }
  fi
  flock -u 9
}

# deb-src for trixie/main from the machine's main Debian archive, only if no such entry exists yet.
add_trixie_sources() {
  apt-cache showsrc pgvector 2>/dev/null | grep -q '^Package: pgvector' && return
  local has_entry=
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*; do
    [ -f "$f" ] && grep -qE '(^Types:.*deb-src|^deb-src )' "$f" && grep -q trixie "$f" && has_entry=1
  done
  if [ -z "$has_entry" ]; then
    local uri
    uri=$(grep -m1 -E '^URIs:' /etc/apt/sources.list.d/debian.sources 2>/dev/null | awk '{print $2}')
    uri=${uri:-http://deb.debian.org/debian}
    log "adding a deb-src entry for trixie/main ($uri)"
    as_root tee /etc/apt/sources.list.d/trixie-src.sources >/dev/null <<EOF2
Types: deb-src
URIs: $uri
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF2
  fi
  apt_get update
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

start() {
  # start's stdout is the one `export` line that `run` evaluates: what installing prints
  # (apt-get update/install) goes to stderr, or a first run on a clean machine evaluated it
  install >&2
  local dir port
  dir=$(mktemp -d "${TMPDIR:-/tmp}/marketplace-pg.XXXXXX")
  chmod 755 "$dir"
  chown postgres:postgres "$dir"
  port=$(free_port)
  as_postgres "$PG_BIN/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >/dev/null
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -l "$dir/log" -w -o "-p $port -k $dir \
    -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
    -c max_connections=400 -c shared_buffers=128MB" start >/dev/null
  echo "$dir" >"$STATE_FILE"
  echo "$port" >"$dir/port"
  log "cluster in $dir on 127.0.0.1:$port"
  echo "export PG_ADMIN_URL=postgres://postgres@127.0.0.1:$port/postgres"
}

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else as_root runuser -u postgres -- "$@"; fi
}

stop() {
  local dir=${1:-}
  [ -n "$dir" ] || dir=$(cat "$STATE_FILE" 2>/dev/null || true)
  [ -n "$dir" ] && [ -d "$dir/data" ] || { log "no cluster to stop"; return 0; }
  as_postgres "$PG_BIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null || true
  rm -rf "$dir"
  [ "$(cat "$STATE_FILE" 2>/dev/null)" = "$dir" ] && rm -f "$STATE_FILE"
  log "stopped and removed $dir"
}

run() {
  [ "${1:-}" = -- ] && shift
  local line dir
  line=$(start)
  eval "$line"
  export PG_ADMIN_URL
  dir=$(cat "$STATE_FILE")
  # stop this cluster (not whatever the state file names later) however the command ends
  trap "stop '$dir'" EXIT
  trap 'exit 130' INT TERM
  "$@"
}

case "${1:-start}" in
install) install ;;
start) start ;;
stop) stop "${2:-}" ;;
run)
  shift
  run "$@"
  ;;
*)
  echo "usage: $0 install|start|stop [dir]|run -- command…" >&2
  exit 2
  ;;
esac
