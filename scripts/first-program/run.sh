#!/usr/bin/env bash
# The README's first program, built and run as a new user would: a crate of its own whose only
# dependencies are `nao` (this checkout, by path) and `tokio` (what `cargo add nao tokio`
# writes), its src/main.rs the README's Rust block under "## Your first program".
#
#   scripts/first-program/run.sh
#
# Uses the workspace's Cargo.lock (no new dependency resolution, and builds shared with the
# workspace's CARGO_TARGET_DIR). Prints the program's output; fails when it does not build or run.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
crate="$(mktemp -d)"
trap 'rm -rf "$crate"' EXIT

mkdir -p "$crate/src"
cat > "$crate/Cargo.toml" <<EOF
[package]
name = "first-program"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
nao = { path = "$repo" }
tokio = "1"

# A workspace of its own, whatever directory holds it.
[workspace]
EOF
python3 - "$repo/README.md" > "$crate/src/main.rs" <<'PY'
import sys

readme = open(sys.argv[1], encoding="utf-8").read()
_, found, section = readme.partition("## Your first program")
if not found:
    sys.exit("README.md has no '## Your first program' section")
_, found, rest = section.partition("```rust\n")
if not found:
    sys.exit("the '## Your first program' section of README.md has no ```rust block")
print(rest.partition("\n```")[0])
PY
cp "$repo/Cargo.lock" "$crate/Cargo.lock"
cd "$crate"
cargo run --quiet
