# shellcheck shell=bash
# Shared by start.sh and stop.sh (sourced, not run): where the server's state lives.
# Everything meant for a person goes to stderr: stdout carries only the `export` lines.
state=${NAO_CLICKHOUSE_STATE_DIR:-$HOME/.cache/nao-clickhouse}
pid_file=$state/clickhouse.pid
say() { printf 'clickhouse: %s\n' "$*" >&2; }

# pid_alive: whether the recorded server runs (its pid is alive and its command line still
# holds the marker recorded with it, so a reused pid is not taken for it).
pid_alive() {
  local pid marker
  [ -f "$pid_file" ] || return 1
  read -r pid marker <"$pid_file" || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$marker"
}
