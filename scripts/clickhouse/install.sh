#!/usr/bin/env bash
# Installs the ClickHouse server the live ClickHouse tests run against: Debian's
# clickhouse-server (18.16.1 on bookworm) with apt. Idempotent: when it is installed it only says
# so. Needs root (or sudo). Debian's package starts no service here (no systemd in CI
# containers); start.sh runs the server itself, with a config of its own.
set -euo pipefail
say() { printf 'clickhouse: %s\n' "$*" >&2; }
if command -v clickhouse-server >/dev/null 2>&1 || [ -x /usr/sbin/clickhouse-server ]; then
  say "clickhouse-server is installed: $(dpkg-query -W -f='${Version}' clickhouse-server 2>/dev/null || echo unknown)"
  exit 0
fi
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq clickhouse-server >&2
say "installed clickhouse-server $(dpkg-query -W -f='${Version}' clickhouse-server)"
