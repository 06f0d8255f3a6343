#!/usr/bin/env bash
# Install the PostgreSQL server the tests start throwaway clusters of (tests/support/postgres.py).
# Idempotent: does nothing when initdb and pg_ctl are already there. Needs root (or password-less
# sudo) to install; without it, says why and exits 0: the PostgreSQL tests then skip, naming this.
set -euo pipefail

found() {
  [ -n "${TOOLKIT_PG_BIN:-}" ] && [ -x "$TOOLKIT_PG_BIN/initdb" ] && return 0
  command -v initdb >/dev/null 2>&1 && return 0
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null
}

if found; then
  echo "PostgreSQL server ready for the tests"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "PostgreSQL tests will skip: no PostgreSQL server, and installing one needs root" \
       "(run: sudo apt-get install -y postgresql-15)" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "PostgreSQL tests will skip: no apt-get here; install the PostgreSQL server and set" \
       "TOOLKIT_PG_BIN to the folder holding initdb and pg_ctl" >&2
  exit 0
fi

# The tests make their own clusters: the package's default cluster (a server on port 5432
# started at install) is not wanted, unless this machine already says otherwise.
conf=/etc/postgresql-common/createcluster.conf
if [ ! -e "$conf" ]; then
  "${as_root[@]}" mkdir -p /etc/postgresql-common
  echo "create_main_cluster = false" | "${as_root[@]}" tee "$conf" >/dev/null
fi
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends postgresql-15 \
  || "${as_root[@]}" apt-get install -y -qq --no-install-recommends postgresql
found && echo "PostgreSQL server installed for the tests"
