#!/usr/bin/env bash
# Stops the engines start.sh and start-spark.sh started: exactly the pids recorded in the state
# dir, and only while each still runs its recorded program. TERM first, KILL after 10 s. Safe to
# call twice, or when nothing was started.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
[ -d "$state" ] || exit 0
# gone PID: the process has exited (a zombie counts: it runs nothing).
gone() {
  ! kill -0 "$1" 2>/dev/null || [ -z "$(tr -d '\0' 2>/dev/null <"/proc/$1/cmdline")" ]
}
for file in "$state"/*.pid; do
  [ -e "$file" ] || continue
  name=$(basename "$file" .pid)
  if pid_alive "$name"; then
    read -r pid _ <"$file"
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 100); do
      gone "$pid" && break
      sleep 0.1
    done
    if ! gone "$pid"; then
      say "$name (pid $pid) ignored TERM for 10s: killing it"
      kill -KILL "$pid" 2>/dev/null
    fi
    say "stopped $name (pid $pid)"
  fi
  rm -f "$file"
done
rm -f "$state/env.sh"
exit 0
