#!/usr/bin/env bash
# Interop with the official Python MCP SDK: builds nao-mcp, installs the `mcp` package from
# PyPI into a venv (cached under ~/.cache), and runs python_client.py over stdio and HTTP with
# the example config file (the demo shop and its named queries).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nao-rs-target}"
cargo build --quiet --manifest-path "$root/Cargo.toml" -p nao-mcp --bin nao-mcp
binary="$CARGO_TARGET_DIR/debug/nao-mcp"
venv="${NAO_MCP_INTEROP_VENV:-$HOME/.cache/nao-mcp-interop-venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -c 'import mcp' 2>/dev/null || "$venv/bin/pip" install --quiet 'mcp>=1.10'
"$venv/bin/python" "$here/python_client.py" "$binary" "$here/../../examples/nao-mcp.toml"
