#!/usr/bin/env python3
"""Records what a modern ClickHouse answers in ArrowStream, for the adapter's ArrowStream tests.

The server is chDB (PyPI `chdb-core`, ClickHouse 26.x in-process): for each query it writes
NAME.arrows (the ArrowStream bytes, with the settings the adapter sends) and NAME.describe.tsv
(`DESCRIBE (query)` in TabSeparated: the ClickHouse type of each column, which the adapter reads
first because ArrowStream writes DateTime, Enum and IPv4 as bare integers). The settings are
the ones the adapter sends (strings as Utf8, no dictionaries, no compression); numbers.arrows
is three blocks of 1 000 rows (max_block_size, which the adapter sets to its batch size).

    python3 -m venv /tmp/chdb && /tmp/chdb/bin/pip install chdb-core==26.9.0
    /tmp/chdb/bin/python scripts/clickhouse/record-arrow-fixtures.py crates/nao-dialects/tests/fixtures/clickhouse
"""
import pathlib
import sys

import chdb

SETTINGS = (
    " SETTINGS output_format_arrow_string_as_string = 1,"
    " output_format_arrow_low_cardinality_as_dictionary = 0,"
    " output_format_arrow_fixed_string_as_fixed_byte_array = 1,"
    " output_format_arrow_compression_method = 'none'"
)

QUERIES = {
    "types": """SELECT toInt8(-1) AS i8, toUInt64(18446744073709551615) AS u64,
        toDecimal128('12345678901234567890.0123456789', 10) AS d,
        concat('tab', char(9), 'nl', char(10), 'q''') AS s, toFixedString('ab', 4) AS fs,
        toLowCardinality('low') AS lc, toDate('2020-02-29') AS day, toDate32('1900-01-01') AS d32,
        toDateTime('2020-01-01 00:00:00', 'UTC') AS ts, toDateTime('2020-01-01 09:00:00', 'Asia/Tokyo') AS tokyo,
        toDateTime64('2020-01-01 00:00:00.125', 3, 'UTC') AS ts64,
        CAST(NULL AS Nullable(String)) AS ns, CAST(NULL AS Nullable(DateTime('UTC'))) AS nts,
        ['a', NULL] AS arr, (7, 'x') AS tup, map('k', 1) AS m,
        CAST('green' AS Enum8('red' = 1, 'green' = 2)) AS e,
        toUUID('01234567-89ab-cdef-0123-456789abcdef') AS u, toIPv4('1.2.3.4') AS ip4,
        toIPv6('2001:db8::1') AS ip6, true AS b""",
    # The types ArrowStream writes as integers or bytes, nested in Array, Tuple and Map
    # (keys too), and a NULL inside.
    "nested": """SELECT [toDateTime('2020-01-01 00:00:00', 'UTC'), toDateTime('2020-01-01 00:00:01', 'UTC')] AS dts,
        [CAST(NULL AS Nullable(DateTime('Asia/Tokyo'))), toDateTime('2020-01-01 09:00:00', 'Asia/Tokyo')] AS ndts,
        (toIPv4('1.2.3.4'), CAST('green' AS Enum8('red' = 1, 'green' = 2)), 'plain') AS tup,
        map(toUUID('01234567-89ab-cdef-0123-456789abcdef'), toIPv6('2001:db8::1')) AS m,
        [[CAST('red' AS Enum16('red' = -300, 'green' = 2))]] AS deep,
        [(1, toIPv4('10.0.0.1'))] AS list_of_tuples""",
    # Three blocks, so three record batches.
    "numbers": "SELECT number AS n, toString(number) AS s FROM numbers(3000)",
    "empty": "SELECT number AS n, toDateTime(number, 'UTC') AS t FROM numbers(10) WHERE n > 100",
}


def main() -> None:
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    version = chdb.query("SELECT version()", "TabSeparated").bytes().decode().strip()
    for name, sql in QUERIES.items():
        arrows = chdb.query(sql + SETTINGS + ", max_block_size = 1000", "ArrowStream").bytes()
        describe = chdb.query(f"DESCRIBE ({sql})", "TabSeparated").bytes()
        (out / f"{name}.arrows").write_bytes(arrows)
        (out / f"{name}.describe.tsv").write_bytes(describe)
        print(f"{name}: {len(arrows)} bytes of ArrowStream from ClickHouse {version}", file=sys.stderr)
    (out / "VERSION").write_text(f"chdb-core {chdb.__version__}, ClickHouse {version}\n")


if __name__ == "__main__":
    main()
