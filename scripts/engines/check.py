"""Checks that a server answers real queries over the demo tables with the demo's data and
types: each table's row count, and the first orders (exact decimals, timestamps without a zone,
NULL discounts) compared value by value with the Parquet files themselves.

    check.py DEMO_DIR --flight-sql grpc://127.0.0.1:P
    check.py DEMO_DIR --spark-connect 'sc://127.0.0.1:P/;session_id=UUID'

Exits non-zero, saying what differed, when a check fails.
"""

import argparse
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

TABLES = ["customers", "products", "orders", "order_items", "payments", "reviews"]
FIRST_ORDERS = "SELECT id, total, discount, ordered_at FROM orders ORDER BY id LIMIT 20"
NULL_DISCOUNTS = "SELECT count(*) - count(discount) AS n FROM orders"


def flight_sql_runner(uri):
    import adbc_driver_flightsql.dbapi as flight_sql

    conn = flight_sql.connect(uri, autocommit=True)

    def run(sql):
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetch_arrow_table()

    return run


def spark_connect_runner(url):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    return lambda sql: spark.sql(sql).toArrow()


def check(demo_dir, run):
    problems = []
    rows = 0
    for table in TABLES:
        expected = pq.read_metadata(os.path.join(demo_dir, f"{table}.parquet")).num_rows
        got = run(f"SELECT count(*) AS n FROM {table}").column(0)[0].as_py()
        rows += got
        if got != expected:
            problems.append(f"{table} has {got} rows, the Parquet file {expected}")

    orders = pq.read_table(os.path.join(demo_dir, "orders.parquet"))
    expected = orders.sort_by("id").slice(0, 20).select(["id", "total", "discount", "ordered_at"])
    got = run(FIRST_ORDERS)
    want_types = {"total": pa.decimal128(12, 2), "discount": pa.decimal128(12, 2),
                  "ordered_at": pa.timestamp("us")}
    for name, want in want_types.items():
        if got.schema.field(name).type != want:
            problems.append(f"orders.{name} comes back as {got.schema.field(name).type}, not {want}")
    if got.to_pylist() != expected.to_pylist():
        problems.append("the first orders differ from the Parquet file")

    want_nulls = orders.column("discount").null_count
    got_nulls = run(NULL_DISCOUNTS).column(0)[0].as_py()
    if want_nulls == 0 or got_nulls != want_nulls:
        problems.append(f"{got_nulls} NULL discounts, the Parquet file has {want_nulls}")
    return rows, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("demo_dir")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--flight-sql", metavar="GRPC_URI")
    target.add_argument("--spark-connect", metavar="SC_URL")
    args = parser.parse_args()
    name = args.flight_sql or args.spark_connect
    run = flight_sql_runner(args.flight_sql) if args.flight_sql else spark_connect_runner(args.spark_connect)
    rows, problems = check(args.demo_dir, run)
    if problems:
        for problem in problems:
            print(f"check {name}: {problem}", file=sys.stderr)
        sys.exit(1)
    print(f"check {name}: {len(TABLES)} tables, {rows} rows, decimals, timestamps and NULLs as in "
          f"the Parquet files", file=sys.stderr)


if __name__ == "__main__":
    main()
