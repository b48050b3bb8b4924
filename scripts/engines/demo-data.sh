#!/usr/bin/env bash
# Writes the demo shop as Parquet files plus create_tables.sql (Spark SQL) into DIR, with the
# nao-dialects example demo_parquet (DuckDB writes the Parquet, so this needs DUCKDB_LIB_DIR;
# when it is unset, shared/scripts/duckdb-prebuilt.sh beside the checkout provides it).
#
#   scripts/engines/demo-data.sh DIR [small|full]
#
# The scale defaults to $NAO_ENGINES_DEMO_SCALE, else small (what the conformance suite expects).
# The build uses the workspace's usual feature set (NAO_ENGINES_CARGO_FEATURES) so it reuses the
# other steps' builds instead of rebuilding dependencies with other features.
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: demo-data.sh DIR [small|full]" >&2
  exit 2
fi
dir=$1
scale=${2:-${NAO_ENGINES_DEMO_SCALE:-small}}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${DUCKDB_LIB_DIR:-}" ] && [ -x "$root/../shared/scripts/duckdb-prebuilt.sh" ]; then
  eval "$("$root/../shared/scripts/duckdb-prebuilt.sh")"
fi
cd "$root"
cargo run --quiet -p nao-dialects --features "${NAO_ENGINES_CARGO_FEATURES:-sqlite,duckdb,postgres,mysql}" \
  --example demo_parquet -- "$dir" "$scale"
