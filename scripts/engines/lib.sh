# shellcheck shell=bash
# Shared by start.sh and start-spark.sh (sourced, not run): where things live, free ports,
# starting a server in the background with its pid recorded, and waiting for its port.
# Everything meant for a person goes to stderr: stdout carries only the `export` lines.

engines_home=${NAO_ENGINES_HOME:-$HOME/.cache/nao-engines}
# The state dir holds one NAME.pid and NAME.log per server, the demo data, the servers' working
# directories and env.sh (the exports, for another shell to source).
state=${NAO_ENGINES_STATE_DIR:-$engines_home/run}
# Address space cap per server, in KiB (ulimit -v); "unlimited" turns it off. A runaway query
# in Sail's local-cluster mode grows by about 50 MB/s: the cap makes that server abort
# ("memory allocation failed") instead of the machine's OOM killer choosing a victim.
vm_limit_kb=${NAO_ENGINES_VM_LIMIT_KB:-6291456}

say() { printf 'engines: %s\n' "$*" >&2; }

# free_ports N: prints N distinct free TCP ports on 127.0.0.1 (held open together while
# picked, so they differ; a server could still lose one to a race before it binds).
free_ports() {
  "$1" - "$2" <<'PY'
import socket, sys
held = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    held.append(s)
print(" ".join(str(s.getsockname()[1]) for s in held))
PY
}

# pid_alive NAME: whether the server recorded as NAME runs (its pid is alive and its command
# line still holds the marker recorded with it, so a reused pid is not taken for it).
pid_alive() {
  local file=$state/$1.pid pid marker
  [ -f "$file" ] || return 1
  read -r pid marker <"$file" || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "$marker"
}

# launch NAME DIR MARKER PROGRAM ARGS...: runs PROGRAM in DIR in the background, stdin closed,
# output to NAME.log, under the address space cap, and records "PID MARKER" in NAME.pid, MARKER
# being text that the process's command line holds for as long as it is this server.
launch() {
  local name=$1 dir=$2 marker=$3
  shift 3
  mkdir -p "$dir"
  (
    cd "$dir" || exit 1
    ulimit -v "$vm_limit_kb"
    exec "$@" </dev/null >"$state/$name.log" 2>&1
  ) &
  echo "$! $marker" >"$state/$name.pid"
}

# port_free PORT: fails, saying so, when something already listens on 127.0.0.1:PORT (a fixed
# port taken by another program would otherwise pass for the server's own).
port_free() {
  if (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; then
    say "127.0.0.1:$1 is already taken by another program"
    return 1
  fi
}

# log_tail NAME: the end of NAME.log, for a failure message.
log_tail() {
  say "last lines of $state/$1.log:"
  tail -n 30 "$state/$1.log" >&2 || true
}

# wait_port NAME PORT SECONDS: waits until PORT on 127.0.0.1 accepts connections, failing
# (with the log's tail) if the server exits first or SECONDS pass.
wait_port() {
  local name=$1 port=$2 seconds=$3 waited=0
  local pid
  read -r pid _ <"$state/$name.pid"
  while ! (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null; do
    # The pid alone, not pid_alive: until launch's subshell has exec'd the server, its
    # command line is this script's, without the server's marker (a race that failed starts).
    if ! kill -0 "$pid" 2>/dev/null; then
      say "$name exited before listening on 127.0.0.1:$port"
      log_tail "$name"
      return 1
    fi
    if [ "$waited" -ge $((seconds * 10)) ]; then
      say "$name did not listen on 127.0.0.1:$port within ${seconds}s"
      log_tail "$name"
      return 1
    fi
    sleep 0.1
    waited=$((waited + 1))
  done
}
