#!/usr/bin/env python3
"""Resident memory of the `nao-mcp` binary before, during and after HTTP session eviction.

Starts each given binary as `nao-mcp --demo --http 127.0.0.1:0` with a short
`--session-idle-timeout`, then for each round: opens `--sessions` sessions with `initialize`
(one request per connection, `--concurrency` at a time), waits until the server logs that the
idle ones were closed (`live=0`), and reads VmRSS from /proc/PID/status before the round, after
the initializes, right after the eviction and `--settle` seconds later. Prints one table per
binary and a side-by-side summary; it checks nothing (no thresholds), it only prints numbers.

Traffic goes to 127.0.0.1 only. Standard library only; Linux only (/proc).

    cargo build --release -p nao-mcp --no-default-features --features sqlite,http
    cp "$CARGO_TARGET_DIR/release/nao-mcp" /tmp/nao-mcp-system
    cargo build --release -p nao-mcp
    crates/nao-mcp/benches/session_memory.py /tmp/nao-mcp-system=glibc \\
        "$CARGO_TARGET_DIR/release/nao-mcp"=jemalloc

A `BINARY=LABEL` argument names the column; `ENV=VALUE` pairs after a comma set the server's
environment, e.g. `/tmp/nao-mcp=jemalloc-bg,_RJEM_MALLOC_CONF=background_thread:true`.
"""

import argparse
import http.client
import json
import os
import re
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

PROTOCOL = "2025-06-18"
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "session-memory", "version": "0"},
        },
    }
)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Server:
    """The binary serving the demo database over HTTP, its stderr followed for session logs."""

    def __init__(self, binary, env, args):
        self.proc = subprocess.Popen(
            [binary, "--demo", "--http", "127.0.0.1:0", "--log-level", "info",
             "--max-sessions", str(args.max_sessions),
             "--session-idle-timeout", str(args.idle_timeout)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env},
        )
        self.live = None
        self.evictions = 0
        self.changed = threading.Condition()
        listening = threading.Event()
        self.port = None

        def follow():
            for line in self.proc.stderr:
                found = re.search(r"serving streamable HTTP on http://127\.0\.0\.1:(\d+)", line)
                if found:
                    self.port = int(found.group(1))
                    listening.set()
                live = re.search(r"closed idle sessions.*live=(\d+)", line)
                if live:
                    with self.changed:
                        self.live = int(live.group(1))
                        self.evictions += 1
                        self.changed.notify_all()
            listening.set()

        threading.Thread(target=follow, daemon=True).start()
        if not listening.wait(60) or self.port is None:
            raise RuntimeError(f"{binary} did not start listening")

    def initialize(self, _):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(
                "POST",
                "/mcp",
                body=INITIALIZE,
                headers={
                    "Content-Type": "application/json",
                    "Accept": "application/json, text/event-stream",
                    "Connection": "close",
                },
            )
            reply = conn.getresponse()
            reply.read()
            if reply.status != 200:
                raise RuntimeError(f"initialize answered {reply.status}")
        finally:
            conn.close()

    def wait_until_empty(self, after, timeout):
        """Waits for a `live=0` log line from an eviction later than the `after`-th one."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not (self.evictions > after and self.live == 0):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError("the sessions were never evicted")
                self.changed.wait(left)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def measure(binary, env, args):
    server = Server(binary, env, args)
    pid = server.proc.pid
    rows = []
    try:
        time.sleep(0.5)
        for _ in range(args.rounds):
            before = rss_mb(pid)
            evictions = server.evictions
            with ThreadPoolExecutor(args.concurrency) as pool:
                list(pool.map(server.initialize, range(args.sessions)))
            opened = rss_mb(pid)
            server.wait_until_empty(evictions, timeout=60 + 4 * args.idle_timeout)
            evicted = rss_mb(pid)
            time.sleep(args.settle)
            settled = rss_mb(pid)
            rows.append((before, opened, evicted, settled))
    finally:
        server.stop()
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("binaries", nargs="+", metavar="BINARY[=LABEL][,ENV=VALUE...]")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--idle-timeout", type=float, default=1.0)
    parser.add_argument("--max-sessions", type=int, default=3000)
    parser.add_argument("--settle", type=float, default=12.0,
                        help="seconds to wait after eviction before the last reading")
    args = parser.parse_args()

    results = []
    for spec in args.binaries:
        binary, *env_pairs = spec.split(",")
        binary, _, label = binary.partition("=")
        env = dict(pair.split("=", 1) for pair in env_pairs)
        label = label or os.path.basename(binary)
        rows = measure(binary, env, args)
        results.append((label, rows))
        print(f"\n{label}: {args.sessions} initialize per round, "
              f"idle timeout {args.idle_timeout:g} s; VmRSS in MB")
        print(f"{'round':>5} {'before':>8} {'opened':>8} {'evicted':>8} "
              f"{'+' + format(args.settle, 'g') + ' s':>8}")
        for n, (before, opened, evicted, settled) in enumerate(rows, 1):
            print(f"{n:>5} {before:8.1f} {opened:8.1f} {evicted:8.1f} {settled:8.1f}")
        sys.stdout.flush()

    if len(results) > 1:
        print(f"\nVmRSS in MB {args.settle:g} s after each round's eviction "
              "(opened → settled)")
        print("round " + " ".join(f"{label:>22}" for label, _ in results))
        for n in range(args.rounds):
            cells = [f"{rows[n][1]:.0f} → {rows[n][3]:.0f}" for _, rows in results]
            print(f"{n + 1:>5} " + " ".join(f"{cell:>22}" for cell in cells))


if __name__ == "__main__":
    main()
