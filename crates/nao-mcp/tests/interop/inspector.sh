#!/usr/bin/env bash
# Interop with the MCP Inspector CLI (npm @modelcontextprotocol/inspector 0.14, runs on
# Node 20): builds nao-mcp, then lists the tools and runs a query over stdio.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nao-rs-target}"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p nao-mcp --bin nao-mcp
binary="$CARGO_TARGET_DIR/debug/nao-mcp"
inspector=(npx --yes @modelcontextprotocol/inspector@0.14 --cli "$binary" --demo --log-level warn)

tools="$("${inspector[@]}" --method tools/list)"
echo "$tools" | grep -q '"execute_sql"' || { echo "execute_sql not listed: $tools" >&2; exit 1; }
echo "$tools" | grep -q '"readOnlyHint": *true' || { echo "no readOnlyHint: $tools" >&2; exit 1; }

result="$("${inspector[@]}" --method tools/call --tool-name execute_sql \
    --tool-arg 'sql_query=SELECT count(*) AS n FROM orders')"
echo "$result" | grep -q '"isError": *false' || { echo "query failed: $result" >&2; exit 1; }
echo "$result" | grep -q 'q_' || { echo "no query id: $result" >&2; exit 1; }

refused="$("${inspector[@]}" --method tools/call --tool-name execute_sql \
    --tool-arg 'sql_query=DELETE FROM orders')"
echo "$refused" | grep -q '"isError": *true' || { echo "write not refused: $refused" >&2; exit 1; }
echo "inspector interop: ok"
