"""Registers tables in Sail or Spark: runs each statement of the DDL files (create_tables.sql for
the demo shop and conformance.sql for the conformance fixture, written by the demo_parquet
example: CREATE TABLE ... USING parquet LOCATION '<file>') on a server.

    register_tables.py DDL_FILE... --flight-sql grpc://127.0.0.1:P
    register_tables.py DDL_FILE... --spark-connect 'sc://127.0.0.1:P/;session_id=UUID'

Sail keeps tables per session: over Flight SQL every client shares one session, so registering
once serves them all; over Spark Connect only the session named in the URL sees the tables.
The Spark Connect session is left open on purpose (stopping the client would release it, and
Sail never revives a released session id).
"""

import argparse
import re
import sys


def statements(path):
    """The statements of a create_tables.sql file: each ends with ';' at the end of a line."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [s.strip() for s in re.split(r";\s*\n", text) if s.strip()]


def register_flight_sql(uri, sqls):
    import adbc_driver_flightsql.dbapi as flight_sql

    with flight_sql.connect(uri, autocommit=True) as conn:
        with conn.cursor() as cur:
            for sql in sqls:
                cur.execute(sql)
                cur.fetchall()


def register_spark_connect(url, sqls):
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.remote(url).getOrCreate()
    for sql in sqls:
        spark.sql(sql)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ddl", nargs="+")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--flight-sql", metavar="GRPC_URI")
    target.add_argument("--spark-connect", metavar="SC_URL")
    args = parser.parse_args()
    sqls = [sql for path in args.ddl for sql in statements(path)]
    if args.flight_sql:
        register_flight_sql(args.flight_sql, sqls)
    else:
        register_spark_connect(args.spark_connect, sqls)
    print(f"registered {len(sqls)} tables", file=sys.stderr)


if __name__ == "__main__":
    main()
