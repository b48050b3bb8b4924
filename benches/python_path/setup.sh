#!/usr/bin/env bash
# Makes the Python environment of the python_path bench (benches/python_path.rs), if it is not
# there yet, and prints its python. The packages are the ones nao's Python data path uses
# (getnao/nao cli/pyproject.toml: fastapi, pydantic, pandas, numpy; DuckDB through ibis, left out
# here, see data_path.py), with DuckDB pinned to the release the Rust side links (1.5.6).
#
#   bash benches/python_path/setup.sh      # then: cargo bench --bench python_path --features duckdb
#
# NAO_BENCH_PYTHON_VENV overrides the place ($HOME/.cache/nao-bench-python-venv).
set -euo pipefail
venv="${NAO_BENCH_PYTHON_VENV:-$HOME/.cache/nao-bench-python-venv}"
python="$venv/bin/python"
# Written last, so an install cut short is redone.
ready="$venv/.nao-bench-ready"
if [ ! -f "$ready" ]; then
  python3 -m venv "$venv"
  "$python" -m pip install --quiet --disable-pip-version-check \
    "duckdb==1.5.6" "pandas>=2.1" "numpy>=1.26" "pydantic>=2.10" "fastapi>=0.128" >&2
  "$python" -c "import duckdb, pandas, fastapi; assert duckdb.__version__ == '1.5.6', duckdb.__version__" >&2
  "$python" -m pip freeze --disable-pip-version-check >"$ready"
fi
echo "$python"
