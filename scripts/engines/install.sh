#!/usr/bin/env bash
# Installs the engines the live Flight SQL and Spark Connect tests run against, from PyPI, into
# a venv under $HOME/.cache: Sail (pysail) and roapi, with the Python clients that load and
# check them. Idempotent: when the venv matches requirements.txt it only says so (well under a
# second). Wheels are kept in $NAO_ENGINES_HOME/wheels, so a new venv installs without the network.
#
#   scripts/engines/install.sh           # Sail + roapi: $NAO_ENGINES_HOME/venv
#   scripts/engines/install.sh --spark   # also Apache Spark 4.3 (JVM): $NAO_ENGINES_HOME/spark-venv
#
# NAO_ENGINES_HOME defaults to $HOME/.cache/nao-engines; NAO_ENGINES_PYTHON to python3.
# NAO_ENGINES_SPARK=1 is the same as --spark.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
home=${NAO_ENGINES_HOME:-$HOME/.cache/nao-engines}
python=${NAO_ENGINES_PYTHON:-python3}
spark=${NAO_ENGINES_SPARK:-0}
for arg in "$@"; do
  case $arg in
    --spark) spark=1 ;;
    *) echo "install.sh: unknown argument $arg (use --spark)" >&2; exit 2 ;;
  esac
done

# install_venv DIR REQUIREMENTS CHECK: makes DIR a venv holding exactly REQUIREMENTS, unless its
# stamp says it already does and the Python statement CHECK runs in it.
install_venv() {
  local venv=$1 requirements=$2 check=$3
  local wheels=$home/wheels
  local stamp
  stamp="$(sha256sum <"$requirements" | cut -d' ' -f1) $("$python" -c 'import sys; print(sys.version.split()[0])')"
  if [ -f "$venv/.nao-stamp" ] && [ "$(cat "$venv/.nao-stamp")" = "$stamp" ] &&
    "$venv/bin/python" -c "$check" 2>/dev/null; then
    echo "install.sh: $venv is up to date"
    return
  fi
  echo "install.sh: installing $(basename "$requirements") into $venv"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  mkdir -p "$wheels"
  # From the kept wheels first; only what is missing comes from PyPI (built into a wheel once).
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index \
    --find-links "$wheels" -r "$requirements" 2>/dev/null; then
    PIP_CACHE_DIR=$home/pip-cache "$venv/bin/pip" wheel --quiet --disable-pip-version-check \
      --find-links "$wheels" --wheel-dir "$wheels" -r "$requirements"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index \
      --find-links "$wheels" -r "$requirements"
  fi
  "$venv/bin/python" -c "$check"
  echo "$stamp" >"$venv/.nao-stamp"
}

install_venv "$home/venv" "$here/requirements.txt" \
  'import pysail, pyarrow.flight, adbc_driver_flightsql.dbapi; from pyspark.sql import SparkSession'
test -x "$home/venv/bin/sail" && test -x "$home/venv/bin/roapi"

if [ "$spark" = 1 ]; then
  if ! command -v java >/dev/null; then
    echo "install.sh: Apache Spark needs Java 17 or later on PATH" >&2
    exit 1
  fi
  install_venv "$home/spark-venv" "$here/requirements-spark.txt" \
    'from pyspark.sql import SparkSession'
  test -x "$home/spark-venv/bin/spark-submit"
fi
