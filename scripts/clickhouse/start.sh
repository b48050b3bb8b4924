#!/usr/bin/env bash
# Starts a ClickHouse server of our own for the live ClickHouse tests (after install.sh) and
# prints the variables they read:
#
#   eval "$(scripts/clickhouse/start.sh)"
#   ...                                   # tests
#   scripts/clickhouse/stop.sh
#
#   NAO_TEST_CLICKHOUSE_URL        clickhouse://reader:PASS@127.0.0.1:P/default  read-only user
#   NAO_TEST_CLICKHOUSE_ADMIN_URL  clickhouse://admin:PASS@127.0.0.1:P/default   may write (fixtures)
#   NAO_TEST_CLICKHOUSE_STRICT_URL clickhouse://strict:PASS@127.0.0.1:P/default  readonly=1: may set nothing
#
# The server runs in the foreground of a background process (not as a daemon), from a config
# written here under the state dir: it listens on 127.0.0.1 only, HTTP only (no native TCP,
# interserver or MySQL ports), on a free port (or NAO_CLICKHOUSE_PORT), and keeps its data, tmp
# and logs in the state dir ($NAO_CLICKHOUSE_STATE_DIR, default $HOME/.cache/nao-clickhouse),
# which starts empty each time. Three users, each with a fresh random password: `admin` (the
# default profile), `reader` (profile `readonly`: readonly=2, so it reads and may set the
# per-query settings the adapter sends, and nothing else) and `strict` (profile `strict`:
# readonly=1, which may set no setting and call no table function). Logs: $state/*.log.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
server=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
if [ ! -x "$server" ]; then
  say "no clickhouse-server: run scripts/clickhouse/install.sh first"
  exit 1
fi
if pid_alive; then
  say "clickhouse-server already runs (see $pid_file): run scripts/clickhouse/stop.sh first"
  exit 1
fi
# A fresh server each time: what an earlier run left (only the paths this script writes, so a
# state dir pointed at by mistake loses nothing else).
mkdir -p "$state"
rm -rf "$state/data" "$state/tmp" "$state/user_files" "$state/format_schemas" \
  "$state/config.xml" "$state/users.xml" "$state/env.sh" "$state"/*.log
mkdir -p "$state/data" "$state/tmp" "$state/user_files" "$state/format_schemas"
state=$(cd "$state" && pwd)
pid_file=$state/clickhouse.pid

port=${NAO_CLICKHOUSE_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')}
if (: </dev/tcp/127.0.0.1/"$port") 2>/dev/null; then
  say "127.0.0.1:$port is already taken by another program"
  exit 1
fi
secret() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
sha256() { printf '%s' "$1" | sha256sum | cut -d' ' -f1; }
admin_password=$(secret)
reader_password=$(secret)
strict_password=$(secret)

cat >"$state/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <logger>
        <level>information</level>
        <log>$state/clickhouse-server.log</log>
        <errorlog>$state/clickhouse-server.err.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <http_port>$port</http_port>
    <max_connections>256</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>64</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$state/data/</path>
    <tmp_path>$state/tmp/</tmp_path>
    <user_files_path>$state/user_files/</user_files_path>
    <format_schema_path>$state/format_schemas/</format_schema_path>
    <users_config>$state/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
</yandex>
XML
cat >"$state/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
    <profiles>
        <default>
            <max_memory_usage>2000000000</max_memory_usage>
            <load_balancing>random</load_balancing>
        </default>
        <readonly>
            <readonly>2</readonly>
            <max_memory_usage>1000000000</max_memory_usage>
        </readonly>
        <strict>
            <readonly>1</readonly>
            <max_memory_usage>1000000000</max_memory_usage>
        </strict>
    </profiles>
    <users>
        <admin>
            <password_sha256_hex>$(sha256 "$admin_password")</password_sha256_hex>
            <networks><ip>127.0.0.1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </admin>
        <reader>
            <password_sha256_hex>$(sha256 "$reader_password")</password_sha256_hex>
            <networks><ip>127.0.0.1</ip></networks>
            <profile>readonly</profile>
            <quota>default</quota>
        </reader>
        <strict>
            <password_sha256_hex>$(sha256 "$strict_password")</password_sha256_hex>
            <networks><ip>127.0.0.1</ip></networks>
            <profile>strict</profile>
            <quota>default</quota>
        </strict>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
XML
chmod 600 "$state/users.xml"

(
  cd "$state"
  exec "$server" --config-file="$state/config.xml" </dev/null >"$state/clickhouse.log" 2>&1
) &
echo "$! $state/config.xml" >"$pid_file"
read -r pid _ <"$pid_file"

# Ready when the HTTP interface answers /ping (the port opens before the server is ready).
for i in $(seq 600); do
  if ! kill -0 "$pid" 2>/dev/null; then
    say "clickhouse-server exited before listening on 127.0.0.1:$port; last lines of its logs:"
    tail -n 30 "$state/clickhouse.log" "$state/clickhouse-server.err.log" >&2 2>/dev/null || true
    rm -f "$pid_file"
    exit 1
  fi
  if [ "$(curl -fsS "http://127.0.0.1:$port/ping" 2>/dev/null)" = "Ok." ]; then
    break
  fi
  if [ "$i" -eq 600 ]; then
    say "clickhouse-server did not answer on 127.0.0.1:$port within 60s"
    tail -n 30 "$state/clickhouse-server.err.log" >&2 2>/dev/null || true
    "$here/stop.sh"
    exit 1
  fi
  sleep 0.1
done
version=$(curl -fsS -u "admin:$admin_password" --data-binary 'SELECT version()' "http://127.0.0.1:$port/")
say "clickhouse-server $version listens on 127.0.0.1:$port (pid $pid, state $state)"
{
  echo "export NAO_TEST_CLICKHOUSE_URL=clickhouse://reader:$reader_password@127.0.0.1:$port/default"
  echo "export NAO_TEST_CLICKHOUSE_ADMIN_URL=clickhouse://admin:$admin_password@127.0.0.1:$port/default"
  echo "export NAO_TEST_CLICKHOUSE_STRICT_URL=clickhouse://strict:$strict_password@127.0.0.1:$port/default"
} | tee "$state/env.sh"
chmod 600 "$state/env.sh"
