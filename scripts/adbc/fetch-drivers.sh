#!/usr/bin/env bash
# Fetches the ADBC drivers the `adbc` adapter's live tests load, from their PyPI wheels (the
# Apache Arrow ADBC project's own builds: manylinux, glibc), into one folder, and prints the
# export that points the adapter at it:
#
#   eval "$(scripts/adbc/fetch-drivers.sh)"     # NAO_ADBC_DRIVER_DIR=$HOME/.cache/nao-adbc/<pins>
#
# Each wheel is downloaded once with `pip download --no-deps` (no Python package is installed);
# its shared library is extracted as lib<name>.so beside an ADBC driver manifest <short>.toml
# (postgresql.toml, sqlite.toml, …), so the folder also works as an ADBC_DRIVER_PATH entry.
# Every library is loaded once (dlopen + its AdbcDriverInit symbol) to prove it runs on this
# glibc; drivers.tsv records name, version, size and sha256. Idempotent: when the folder is
# complete it only prints the export (well under a second). Diagnostics go to stderr.
#
# NAO_ADBC_HOME defaults to $HOME/.cache/nao-adbc; NAO_ADBC_PYTHON to python3.
set -euo pipefail
home=${NAO_ADBC_HOME:-$HOME/.cache/nao-adbc}
python=${NAO_ADBC_PYTHON:-python3}

# short name, PyPI package, version: 1.13.0 where PyPI has it; Snowflake and BigQuery stop at
# 1.11.0 there.
drivers=(
  "postgresql adbc-driver-postgresql 1.13.0"
  "sqlite adbc-driver-sqlite 1.13.0"
  "flightsql adbc-driver-flightsql 1.13.0"
  "snowflake adbc-driver-snowflake 1.11.0"
  "bigquery adbc-driver-bigquery 1.11.0"
)
stamp=$(printf '%s\n' "${drivers[@]}" | sha256sum | cut -c1-12)
dir=$home/drivers-$stamp

if [ -f "$dir/drivers.tsv" ]; then
  echo "export NAO_ADBC_DRIVER_DIR='$dir'"
  exit 0
fi

wheels=$home/wheels
mkdir -p "$wheels"
tmp=$(mktemp -d "$home/.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf 'name\tpackage\tversion\tlibrary\tbytes\tsha256\n' >"$tmp/drivers.tsv"
for entry in "${drivers[@]}"; do
  read -r short package version <<<"$entry"
  module=${package//-/_}
  wheel=$(find "$wheels" -maxdepth 1 -name "$module-$version-*.whl" | head -n1)
  if [ -z "$wheel" ]; then
    echo "fetch-drivers.sh: downloading $package==$version" >&2
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
      --only-binary=:all: --platform manylinux_2_28_x86_64 --dest "$wheels" "$package==$version" >&2
    wheel=$(find "$wheels" -maxdepth 1 -name "$module-$version-*.whl" | head -n1)
    [ -n "$wheel" ] || { echo "fetch-drivers.sh: no wheel for $package==$version" >&2; exit 1; }
  fi
  library=lib$module.so
  # The wheel holds the library as <module>/lib<module>.so.
  "$python" - "$wheel" "$module/$library" "$tmp/$library" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel, wheel.open(sys.argv[2]) as src, open(sys.argv[3], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
  # Loads on this machine's glibc and exports the ADBC entry point.
  "$python" -c 'import ctypes, sys; ctypes.CDLL(sys.argv[1]).AdbcDriverInit' "$tmp/$library" \
    || { echo "fetch-drivers.sh: $library does not load here (glibc too old?)" >&2; exit 1; }
  cat >"$tmp/$short.toml" <<TOML
# ADBC driver manifest (written by scripts/adbc/fetch-drivers.sh).
manifest_version = 1
name = "$package"
version = "$version"
source = "PyPI wheel $(basename "$wheel")"

[Driver]
shared = "$dir/$library"
TOML
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$short" "$package" "$version" "$library" \
    "$(stat -c %s "$tmp/$library")" "$(sha256sum "$tmp/$library" | cut -d' ' -f1)" >>"$tmp/drivers.tsv"
done
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
column -t -s $'\t' "$dir/drivers.tsv" | cut -c1-110 >&2
echo "export NAO_ADBC_DRIVER_DIR='$dir'"
