#!/usr/bin/env bash
# Stops the ClickHouse server start.sh started: exactly the recorded pid, and only while it
# still runs the recorded program. TERM first, KILL after 20 s. Safe to call twice, or when
# nothing was started. The data stays in the state dir (start.sh starts from a fresh one).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
if pid_alive; then
  read -r pid _ <"$pid_file"
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 200); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    say "clickhouse-server (pid $pid) ignored TERM for 20s: killing it"
    kill -KILL "$pid" 2>/dev/null
  fi
  say "stopped clickhouse-server (pid $pid)"
fi
rm -f "$pid_file" "$state/env.sh"
exit 0
