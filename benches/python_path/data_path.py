"""nao's Python data path for one execute_sql call: the Python side of benches/python_path.rs.

It mirrors getnao/nao (the system nao-rs re-implements), file by file:

- cli/nao_core/config/databases/duckdb.py, DuckDBConfig.connect: a new read-only connection for
  every call (ibis.duckdb.connect over duckdb.connect), then
  `SET enable_external_access = false` and `SET lock_configuration = true`.
- cli/nao_core/config/databases/base.py, DatabaseConfig.execute_sql: `conn.raw_sql(sql)`, then
  `cursor.fetchdf()`: the whole result as a pandas DataFrame.
- apps/backend/fastapi/main.py, the `/execute_sql` endpoint (the same code as
  apps/backend/fastapi/sql_execution.py, dataframe_to_records): `df.to_dict(orient="records")`
  with `_convert_value` on every cell, returned as `ExecuteSQLResponse`
  (apps/backend/fastapi/api_models.py), the endpoint's response_model: FastAPI validates and
  serializes it and renders it as JSON.
- apps/backend/src/agents/tools/execute-sql.ts (Node): `await response.json()`, the output gets
  `_version`, a `query_<8 hex>` id and `applied_limit` (the query's own LIMIT), and its
  toModelOutput renders apps/backend/src/components/tool-outputs/execute-sql.tsx
  (ExecuteSqlOutput) to Markdown for the model: the columns as a list, `## Rows (n)`, a warning
  when the row count reached the LIMIT, the first 40 rows as one code block each (`key: value`
  lines, each value cut to 255 characters by truncateMiddle in apps/backend/src/utils/utils.ts),
  and a line saying how many rows are left. That Node step is done here in Python: json.loads,
  then the same text.

Left out, each of them only makes this side faster: ibis's wrapper around the DuckDB connection
(DuckDB is called directly, with the same settings), the HTTP socket between Node and FastAPI (the
FastAPI app is called in-process through ASGI), and the request's guards (allow-list, excluded
columns, row security). Node's JSON parse and rendering are done by CPython here, which may be
slower than V8 at parsing: that is the "parse" phase, reported on its own.

Protocol: `python data_path.py DATABASE_FILE` prints `ready` once its imports are done, then reads
one JSON object a line on stdin, `{"sql": "..."}`, runs the whole path for it and writes one JSON
line: `{"rows", "json_bytes", "markdown_chars", "phases_ms"}`, or `{"error": "..."}`.
"""

import asyncio
import json
import math
import re
import sys
import uuid
from datetime import date, datetime
from decimal import Decimal
from time import perf_counter

import duckdb
import numpy as np
import pandas as pd
from fastapi import FastAPI
from pydantic import BaseModel

DATABASE = ""
# Per request: where the endpoint's time went, in seconds.
PHASES: dict[str, float] = {}


class ExecuteSQLRequest(BaseModel):
    sql: str


class ExecuteSQLResponse(BaseModel):
    data: list[dict]
    row_count: int
    columns: list[str]
    dialect: str | None = None


def run_sql(sql: str) -> pd.DataFrame:
    """DuckDBConfig.connect, then DatabaseConfig.execute_sql (raw_sql, fetchdf)."""
    conn = duckdb.connect(DATABASE, read_only=True)
    try:
        conn.execute("SET enable_external_access = false")
        conn.execute("SET lock_configuration = true")
        return conn.execute(sql).fetchdf()
    finally:
        conn.close()


def convert_value(v: object):
    """nao's _convert_value: a DataFrame cell as a JSON-serializable Python value."""
    if v is None:
        return None
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        val = float(v)
        return None if math.isnan(val) or math.isinf(val) else val
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, Decimal):
        if v.is_nan() or v.is_infinite():
            return None
        return float(v)
    if isinstance(v, (datetime, date)):
        return v.isoformat()
    if isinstance(v, bytes):
        return v.decode("utf-8", errors="replace")
    item_method = getattr(v, "item", None)
    if callable(item_method):
        return item_method()
    return v


app = FastAPI()


@app.post("/execute_sql", response_model=ExecuteSQLResponse)
async def execute_sql(request: ExecuteSQLRequest):
    start = perf_counter()
    df = run_sql(request.sql)
    fetched = perf_counter()
    data = [{k: convert_value(v) for k, v in row.items()} for row in df.to_dict(orient="records")]
    response = ExecuteSQLResponse(
        data=data,
        row_count=len(data),
        columns=[str(c) for c in df.columns.tolist()],
        dialect="duckdb",
    )
    PHASES["query"] = fetched - start
    PHASES["records"] = perf_counter() - fetched
    return response


async def post(path: str, body: bytes) -> tuple[int, bytes]:
    """One HTTP request to the app, through ASGI in this process (no socket)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [
            (b"host", b"localhost:8005"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8005),
    }
    incoming = [{"type": "http.request", "body": body, "more_body": False}]
    status = 0
    chunks: list[bytes] = []

    async def receive():
        return incoming.pop() if incoming else {"type": "http.disconnect"}

    async def send(message):
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


# detectQueryRowLimit (apps/backend/src/utils/sql-filter.ts) finds `LIMIT n` in the outermost
# query (after masking comments, strings and subqueries, which the bench's SQL has none of).
LIMIT = re.compile(r"\bLIMIT\s+(\d+)", re.IGNORECASE)
MAX_ROWS = 40
LIMIT_REACHED_ADVICE = (
    "To get the true total, run a separate query with COUNT(*) (or COUNT over a subquery) "
    "and no LIMIT/TOP clause."
)


def pluralize(word: str, count: int) -> str:
    return word if count == 1 else word + "s"


def truncate_middle(text: str, max_length: int, ellipsis: str = "...") -> str:
    if len(text) <= max_length:
        return text
    if max_length <= len(ellipsis):
        return text[:max_length]
    half = (max_length - len(ellipsis)) // 2
    return text[:half] + ellipsis + text[-half:]


def js_string(value: object) -> str:
    """formatRowValue before the cut: JSON.stringify for objects (and null), String() else."""
    if value is None or isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def render_markdown(output: dict) -> str:
    """ExecuteSqlOutput, rendered the way lib/markdown's Block, Span and CodeBlock join text."""
    data = output["data"]
    if not data:
        return "The query was successfully executed and returned no rows."
    columns = output["columns"]
    row_count = output["row_count"]
    visible = data[:MAX_ROWS]
    remaining = len(data) - len(visible)
    parts = [
        f"Query ID: {output['id']}",
        "\n".join(
            [f"{pluralize('Column', len(columns))} ({len(columns)}):"] + [f"- {c}" for c in columns]
        ),
        f"## {pluralize('Row', row_count)} ({row_count})",
    ]
    applied = output.get("applied_limit")
    if applied is not None and row_count >= applied and row_count > 0:
        parts.append(
            f"Warning: this query returned exactly {applied} rows, the maximum allowed by its "
            "LIMIT/TOP clause, so the result is almost certainly truncated. This row count "
            "reflects the LIMIT, NOT the total number of matching rows — do not report it as a "
            f'total or "exact" count. {LIMIT_REACHED_ADVICE}'
        )
    parts.append(
        "\n\n".join(
            "\n".join(
                [f"```#{i + 1}"]
                + [f"{key}: {truncate_middle(js_string(value), 255)}" for key, value in row.items()]
                + ["```"]
            )
            for i, row in enumerate(visible)
        )
    )
    if remaining > 0:
        parts.append(
            f'...({remaining} more — call read_query_result with query_id "{output["id"]}" '
            f"and offset {MAX_ROWS} to see more)"
        )
    return "\n\n".join(parts)


def run(loop: asyncio.AbstractEventLoop, sql: str) -> dict:
    PHASES.clear()
    start = perf_counter()
    status, body = loop.run_until_complete(
        post("/execute_sql", json.dumps({"sql": sql}).encode())
    )
    if status != 200:
        raise RuntimeError(f"/execute_sql answered {status}: {body[:500]!r}")
    answered = perf_counter()
    data = json.loads(body)
    limit = LIMIT.search(sql)
    output = {
        "_version": "1",
        **data,
        "id": f"query_{uuid.uuid4().hex[:8]}",
        **({"applied_limit": int(limit.group(1))} if limit else {}),
    }
    parsed = perf_counter()
    markdown = render_markdown(output)
    rendered = perf_counter()
    endpoint = PHASES["query"] + PHASES["records"]
    phases = {
        "query": PHASES["query"],
        "records": PHASES["records"],
        # FastAPI's response_model validation and serialization, and the JSON text.
        "response": answered - start - endpoint,
        "parse": parsed - answered,
        "markdown": rendered - parsed,
    }
    return {
        "rows": output["row_count"],
        "json_bytes": len(body),
        "markdown_chars": len(markdown),
        "phases_ms": {name: seconds * 1000.0 for name, seconds in phases.items()},
    }


def main() -> None:
    global DATABASE
    DATABASE = sys.argv[1]
    loop = asyncio.new_event_loop()
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = run(loop, json.loads(line)["sql"])
        except Exception as error:  # reported to the bench, which stops with it
            reply = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
