#!/usr/bin/env bash
# Starts Apache Spark 4.3's Spark Connect server (JVM, local[2]) on 127.0.0.1 with the demo
# tables registered, and prints NAO_TEST_APACHE_SPARK_CONNECT_URL for eval, with
# NAO_TEST_APACHE_SPARK_UI_URL (its web UI, whose REST API lists the running jobs: the tests
# check that a stopped statement leaves none). Optional and slow
# (about 25 s to start, 0.7 GB): start.sh runs it when NAO_ENGINES_SPARK=1, after which the
# demo data exists. Alone:
#
#   NAO_ENGINES_SPARK=1 scripts/engines/install.sh
#   eval "$(scripts/engines/start.sh)"            # writes the demo data, starts Sail and roapi
#   eval "$(scripts/engines/start-spark.sh)"
#
# The server command (the tables are then registered over Spark Connect from create_tables.sql):
#
#   spark-submit --class org.apache.spark.sql.connect.service.SparkConnectServer \
#     --master 'local[2]' --driver-memory 1g \
#     --conf spark.connect.grpc.binding.address=127.0.0.1 \
#     --conf spark.connect.grpc.binding.port=PORT \
#     --conf spark.sql.catalogImplementation=in-memory \
#     --conf spark.sql.warehouse.dir=DIR --conf spark.ui.port=UI_PORT
#
# (with SPARK_LOCAL_IP=127.0.0.1, so the driver and its UI bind to loopback only)
#
# Spark's in-memory catalog is shared by all sessions of the server, so the URL names no session.
# Settings: NAO_ENGINES_APACHE_SPARK_PORT and NAO_ENGINES_APACHE_SPARK_UI_PORT (default: free
# ports), NAO_ENGINES_SPARK_MEMORY (driver memory, default 1g); NAO_ENGINES_DEMO_DIR and the
# rest as for start.sh. Log: spark.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
venv=$engines_home/venv
spark_venv=$engines_home/spark-venv
python=$venv/bin/python
if [ ! -x "$spark_venv/bin/spark-submit" ] || [ ! -x "$python" ]; then
  say "no Spark venv at $spark_venv: run NAO_ENGINES_SPARK=1 scripts/engines/install.sh first"
  exit 1
fi
if pid_alive spark; then
  say "spark is already running (see $state/spark.pid): run scripts/engines/stop.sh first"
  exit 1
fi
demo=${NAO_ENGINES_DEMO_DIR:-$state/demo}
if [ ! -f "$demo/create_tables.sql" ]; then
  say "no demo data in $demo: run start.sh first, or demo-data.sh $demo"
  exit 1
fi
started=$SECONDS
mkdir -p "$state"

fail() {
  say "Spark failed to start"
  if pid_alive spark; then
    read -r pid _ <"$state/spark.pid"
    kill -TERM "$pid" 2>/dev/null || true
  fi
  rm -f "$state/spark.pid"
  exit 1
}
trap fail ERR

# spark-submit looks for its jars with whatever python3 is on PATH: name them instead.
SPARK_HOME=$("$spark_venv/bin/python" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
export SPARK_HOME
read -r free1 free2 <<<"$(free_ports "$python" 2)"
port=${NAO_ENGINES_APACHE_SPARK_PORT:-$free1}
ui_port=${NAO_ENGINES_APACHE_SPARK_UI_PORT:-$free2}
port_free "$port"
port_free "$ui_port"
export SPARK_LOCAL_IP=127.0.0.1
# The JVM reserves address space well beyond its heap: the cap only guards against runaways.
vm_limit_kb=${NAO_ENGINES_SPARK_VM_LIMIT_KB:-unlimited}
launch spark "$state/spark" "org.apache.spark.sql.connect.service.SparkConnectServer" \
  "$SPARK_HOME/bin/spark-submit" \
  --class org.apache.spark.sql.connect.service.SparkConnectServer \
  --master 'local[2]' --driver-memory "${NAO_ENGINES_SPARK_MEMORY:-1g}" \
  --conf spark.connect.grpc.binding.address=127.0.0.1 \
  --conf spark.connect.grpc.binding.port="$port" \
  --conf spark.sql.catalogImplementation=in-memory \
  --conf spark.sql.warehouse.dir="$state/spark/warehouse" \
  --conf spark.ui.port="$ui_port" --conf spark.port.maxRetries=0
wait_port spark "$port" 180

url="sc://127.0.0.1:$port"
"$python" "$here/register_tables.py" "$demo/create_tables.sql" "$demo/conformance.sql" --spark-connect "$url"
"$python" "$here/check.py" "$demo" --spark-connect "$url"
say "Apache Spark started in $((SECONDS - started))s"
echo "export NAO_TEST_APACHE_SPARK_CONNECT_URL=$url"
echo "export NAO_TEST_APACHE_SPARK_UI_URL=http://127.0.0.1:$ui_port"
