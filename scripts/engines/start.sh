#!/usr/bin/env bash
# Starts the engines for the live Flight SQL and Spark Connect tests on 127.0.0.1, serving the
# demo shop (customers, products, orders, order_items, payments, reviews), and prints the
# variables the tests read:
#
#   eval "$(scripts/engines/start.sh)"   # after scripts/engines/install.sh
#   ...                                  # tests
#   scripts/engines/stop.sh
#
#   NAO_TEST_FLIGHT_SQL_URL        flightsql://127.0.0.1:P?dialect=spark   Sail, Arrow Flight SQL, local-cluster
#   NAO_TEST_SPARK_CONNECT_URL     sc://127.0.0.1:P/;session_id=UUID
#                                                            Sail, Spark Connect, local-cluster;
#                                                            the tables live in that session only
#   NAO_TEST_ROAPI_FLIGHT_SQL_URL  flightsql://127.0.0.1:P   roapi, Arrow Flight SQL
#   NAO_TEST_DEMO_PARQUET_DIR      the Parquet files and create_tables.sql they serve
#
# Each server also serves the adapter conformance suite's fixture table, nao_conformance
# (conformance.sql beside create_tables.sql).
#
# With NAO_ENGINES_SPARK=1 it also runs start-spark.sh (Apache Spark on the JVM).
# Settings: NAO_ENGINES_FLIGHT_SQL_PORT, NAO_ENGINES_SPARK_CONNECT_PORT, NAO_ENGINES_ROAPI_PORT
# (default: free ports), NAO_ENGINES_DEMO_DIR (Parquet files already written; default: written
# into the state dir by demo-data.sh), NAO_ENGINES_DEMO_SCALE (small or full),
# NAO_ENGINES_SAIL_WORKERS (default 2), NAO_ENGINES_VM_LIMIT_KB and NAO_ENGINES_STATE_DIR (see
# lib.sh). Logs: $NAO_ENGINES_STATE_DIR/*.log. A failure prints the failing server's log tail,
# stops what this run started and exits non-zero.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
venv=$engines_home/venv
python=$venv/bin/python

if [ ! -x "$venv/bin/sail" ] || [ ! -x "$venv/bin/roapi" ]; then
  say "no engines venv at $venv: run scripts/engines/install.sh first"
  exit 1
fi
for name in sail-flight-sql sail-spark-connect roapi spark; do
  if pid_alive "$name"; then
    say "$name is already running (see $state/$name.pid): run scripts/engines/stop.sh first"
    exit 1
  fi
done
mkdir -p "$state"
rm -f "$state"/*.pid "$state/env.sh"
started=$SECONDS

fail() {
  say "start failed: stopping what was started"
  "$here/stop.sh" >&2 || true
  exit 1
}
trap fail ERR

demo=${NAO_ENGINES_DEMO_DIR:-$state/demo}
if [ -z "${NAO_ENGINES_DEMO_DIR:-}" ]; then
  "$here/demo-data.sh" "$demo" >&2
fi
demo=$(cd "$demo" && pwd)
tables="customers products orders order_items payments reviews nao_conformance"
for table in $tables; do
  test -f "$demo/$table.parquet" || { say "no $demo/$table.parquet"; false; }
done

read -r free1 free2 free3 free4 free5 <<<"$(free_ports "$python" 5)"
flight_port=${NAO_ENGINES_FLIGHT_SQL_PORT:-$free1}
spark_port=${NAO_ENGINES_SPARK_CONNECT_PORT:-$free2}
roapi_port=${NAO_ENGINES_ROAPI_PORT:-$free3}
for port in "$flight_port" "$spark_port" "$roapi_port"; do
  port_free "$port"
done

# Sail: local-cluster mode (a driver and workers exchanging data over RPC, in one process).
# Sessions (and the tables registered in them) end after this many idle seconds, and Sail 0.7.2
# never revives them: the Flight SQL server then answers every query with "session
# flight-default is not running". 30 days keeps them for as long as the servers run.
export SAIL_MODE=local-cluster
export SAIL_CLUSTER__WORKER_INITIAL_COUNT=${NAO_ENGINES_SAIL_WORKERS:-2}
export SAIL_SPARK__SESSION_TIMEOUT_SECS=2592000
export SAIL_FLIGHT__SESSION_TIMEOUT_SECS=2592000
sail=$venv/bin/sail
# -C: CREATE TABLE without LOCATION writes into spark-warehouse/ there.
launch sail-flight-sql "$state/sail-flight-sql" "$sail flight server" \
  "$sail" flight server --ip 127.0.0.1 --port "$flight_port" -C "$state/sail-flight-sql"
launch sail-spark-connect "$state/sail-spark-connect" "$sail spark server" \
  "$sail" spark server --ip 127.0.0.1 --port "$spark_port" -C "$state/sail-spark-connect"

# roapi: read-only by its own definition (its HTTP API cannot register tables), though its
# Flight SQL server runs DataFusion SQL, INSERT included. It always serves HTTP and PostgreSQL
# wire too: bound to free ports on 127.0.0.1 here (PostgreSQL's own 5432 is taken).
{
  printf 'addr:\n  flight_sql: 127.0.0.1:%s\n  http: 127.0.0.1:%s\n  postgres: 127.0.0.1:%s\n' \
    "$roapi_port" "$free4" "$free5"
  printf 'datafusion:\n  catalog.information_schema: "true"\ntables:\n'
  for table in $tables; do
    printf '  - name: %s\n    uri: %s/%s.parquet\n    option:\n      format: parquet\n' \
      "$table" "$demo" "$table"
  done
} >"$state/roapi.yml"
launch roapi "$state/roapi" "$venv/bin/roapi" "$venv/bin/roapi" --config "$state/roapi.yml"

wait_port sail-flight-sql "$flight_port" 60
wait_port sail-spark-connect "$spark_port" 60
wait_port roapi "$roapi_port" 60

session_id=$("$python" -c 'import uuid; print(uuid.uuid4())')
spark_url="sc://127.0.0.1:$spark_port/;session_id=$session_id"
"$python" "$here/register_tables.py" "$demo/create_tables.sql" "$demo/conformance.sql" --flight-sql "grpc://127.0.0.1:$flight_port"
"$python" "$here/register_tables.py" "$demo/create_tables.sql" "$demo/conformance.sql" --spark-connect "$spark_url"
"$python" "$here/check.py" "$demo" --flight-sql "grpc://127.0.0.1:$flight_port"
"$python" "$here/check.py" "$demo" --spark-connect "$spark_url"
"$python" "$here/check.py" "$demo" --flight-sql "grpc://127.0.0.1:$roapi_port"

{
  echo "export NAO_TEST_FLIGHT_SQL_URL=flightsql://127.0.0.1:$flight_port?dialect=spark"
  echo "export NAO_TEST_SPARK_CONNECT_URL='$spark_url'"
  echo "export NAO_TEST_ROAPI_FLIGHT_SQL_URL=flightsql://127.0.0.1:$roapi_port"
  echo "export NAO_TEST_DEMO_PARQUET_DIR='$demo'"
} >"$state/env.sh"
if [ "${NAO_ENGINES_SPARK:-0}" = 1 ]; then
  "$here/start-spark.sh" >>"$state/env.sh"
fi
say "started in $((SECONDS - started))s; state, logs and env.sh in $state"
cat "$state/env.sh"
