//! nao-rs's `execute_sql` against the Python data path of getnao/nao, the system nao-rs
//! re-implements, on the same 100,000 rows of the same DuckDB file: how many times faster the
//! model gets its answer (issue 22's target: at least 50×).
//!
//! The Rust side is `execute_sql` through the `ToolRegistry` (`tools::sql_tools()`): guard,
//! DuckDB (1.5.6, opened read-only once), result store, Markdown for the model, with
//! `Settings::default().with_max_rows(100_000)`. The Python side runs the same SQL text
//! (`support::tool::capped_sql`: the statement execute_sql sends, with its row cap) in one
//! Python process this bench starts once (`benches/python_path/data_path.py`): a request line on
//! its stdin, the whole path, one line back with the rows and sizes; its time per round is that
//! round trip as this side measures it. Both sides are warmed up, then timed in 21 interleaved
//! rounds; the summary prints both medians and the median, min and max of the per-round ratio
//! Python / Rust, then the median of each Python phase and what each side hands the model.
//!
//! The table has ints, text, decimals, a timestamp, a date, a double and a boolean, with nulls;
//! the query is `SELECT * FROM big LIMIT 100000`.
//!
//! What the Python program mirrors, from getnao/nao (read in its repository; the file names are
//! that repository's):
//! - `cli/nao_core/config/databases/duckdb.py` (`DuckDBConfig.connect`): a new read-only DuckDB
//!   connection per call (through ibis), external access off, configuration locked;
//! - `cli/nao_core/config/databases/base.py` (`DatabaseConfig.execute_sql`): `raw_sql(sql)`
//!   then `fetchdf()`, the whole result as a pandas DataFrame;
//! - `apps/backend/fastapi/main.py` (the `/execute_sql` endpoint; the same code is
//!   `dataframe_to_records` in `apps/backend/fastapi/sql_execution.py`): `to_dict("records")`
//!   with `_convert_value` on every cell, returned as `ExecuteSQLResponse`
//!   (`apps/backend/fastapi/api_models.py`), the response model FastAPI validates and writes as
//!   JSON;
//! - `apps/backend/src/agents/tools/execute-sql.ts` (Node): parses that JSON and renders
//!   `ExecuteSqlOutput` (`apps/backend/src/components/tool-outputs/execute-sql.tsx`) for the
//!   model: the column list, the row count, a LIMIT warning, the first 40 rows as one code block
//!   each with values cut to 255 characters, and how many rows are left. This bench does that
//!   step in the same Python process.
//!
//! Left out of the Python side, each only making it faster: ibis's wrapper around DuckDB, the
//! HTTP socket between Node and FastAPI (the FastAPI app is called in-process through ASGI), and
//! nao's SQL guards. Node's step runs in CPython here, which may parse the JSON slower than V8
//! would: that is the `parse` phase, printed on its own so it can be set aside.
//!
//! Run: `bash benches/python_path/setup.sh` (makes `$HOME/.cache/nao-bench-python-venv` with
//! `duckdb==1.5.6`, pandas, numpy, pydantic and fastapi from PyPI, once; `NAO_BENCH_PYTHON_VENV`
//! moves it), then `cargo bench --bench python_path --features duckdb` (with DUCKDB_LIB_DIR set,
//! see README). Without that environment the bench says how to make it and exits.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs
)]

mod support;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use nao::core::{ToolCall, ToolContext, ToolRegistry, tools};
use nao::dialects::EngineLimits;
use nao::dialects::duckdb::DuckDbDialect;
use serde_json::{Value, json};
use support::side_by_side;
use support::tool::{capped_sql, context};

/// Rows in the table; the query takes `ROWS` of them.
const TABLE_ROWS: u64 = 150_000;
const ROWS: u64 = 100_000;
const SQL: &str = "SELECT * FROM big LIMIT 100000";
/// Interleaved rounds (the Python side takes seconds a call).
const ROUNDS: usize = 21;
/// The Python phases, in the order the path runs them, with what each covers.
const PHASES: [(&str, &str); 5] = [
    ("query", "connect + DuckDB + fetchdf"),
    ("records", "to_dict + _convert_value"),
    ("response", "FastAPI response model + JSON"),
    ("parse", "JSON parse"),
    ("markdown", "Markdown, 40 rows"),
];

/// The DuckDB file both sides read, made once in the temp dir.
fn database_file() -> PathBuf {
    support::duckdb_file::cached(
        "nao-bench-python-path",
        &format!("rows-{TABLE_ROWS}.duckdb"),
        |conn| {
            conn.execute_batch(&format!(
                "CREATE TABLE big AS SELECT \
           i AS id, \
           (i * 7919) % 5000 AS customer_id, \
           TIMESTAMP '2023-01-01 00:00:00' + to_seconds(i * 97) AS ordered_at, \
           CASE WHEN i % 10 = 0 THEN NULL ELSE DATE '2023-01-02' + CAST(i // 800 AS INTEGER) END \
             AS shipped_on, \
           ['pending', 'paid', 'shipped', 'delivered', 'refunded'][i % 5 + 1] AS status, \
           'order ' || i || ' for customer ' || ((i * 7919) % 5000) AS note, \
           CAST((i * 37) % 100000 / 100 AS DECIMAL(12, 2)) AS total, \
           CASE WHEN i % 4 = 0 THEN CAST(i % 500 / 100 AS DECIMAL(12, 2)) END AS discount, \
           CAST((i * 13) % 1000 / 7 AS DOUBLE) AS weight_kg, \
           i % 9 = 0 AS is_gift \
         FROM range({TABLE_ROWS}) t(i)"
            ))
            .unwrap();
        },
    )
}

/// The venv's python, if `setup.sh` finished making it.
fn venv_python() -> Result<PathBuf, PathBuf> {
    let venv = std::env::var_os("NAO_BENCH_PYTHON_VENV").map_or_else(
        || {
            let home = std::env::var_os("HOME").unwrap_or_default();
            Path::new(&home).join(".cache/nao-bench-python-venv")
        },
        PathBuf::from,
    );
    // setup.sh writes the marker after the last install step.
    if venv.join(".nao-bench-ready").is_file() {
        Ok(venv.join("bin/python"))
    } else {
        Err(venv)
    }
}

/// What the Python path reports for one request.
struct PythonReply {
    rows: u64,
    json_bytes: u64,
    markdown_chars: u64,
    phases_ms: BTreeMap<String, f64>,
}

/// The one Python process that runs the path, a request at a time.
struct PythonPath {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl PythonPath {
    fn start(python: &Path, database: &Path) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/python_path/data_path.py");
        let mut child = Command::new(python)
            .arg(script)
            .arg(database)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "ready", "the Python path did not start");
        PythonPath {
            child,
            stdin,
            stdout,
        }
    }

    fn run(&mut self, sql: &str) -> PythonReply {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{}", json!({ "sql": sql })).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let reply: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("the Python path answered {line:?}: {e}"));
        if let Some(error) = reply.get("error") {
            panic!("the Python path failed: {error}");
        }
        let count = |key: &str| reply[key].as_u64().unwrap();
        PythonReply {
            rows: count("rows"),
            json_bytes: count("json_bytes"),
            markdown_chars: count("markdown_chars"),
            phases_ms: serde_json::from_value(reply["phases_ms"].clone()).unwrap(),
        }
    }
}

impl Drop for PythonPath {
    fn drop(&mut self) {
        // End of input ends the Python loop.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// One execute_sql call: the rows it reports and the text the model gets. It must succeed.
async fn execute_sql(registry: &ToolRegistry, ctx: &ToolContext, sql: &str) -> (u64, String) {
    let call = ToolCall::new("bench", "execute_sql", json!({ "sql_query": sql }));
    let result = registry.call(&call, ctx).await;
    assert!(!result.is_error, "{}", result.content);
    (result.row_count.unwrap_or(0), result.content)
}

fn median_ms(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return; // nothing for `cargo bench -- --list`
    }
    let python = match venv_python() {
        Ok(python) => python,
        Err(venv) => {
            println!(
                "python_path: no Python environment at {} yet: run `bash benches/python_path/setup.sh`, \
                 then this bench again",
                venv.display()
            );
            return;
        }
    };
    let path = database_file();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dialect = DuckDbDialect::open_with("shop", &path, &EngineLimits::default()).unwrap();
    let ctx = context(Arc::new(dialect), ROWS);
    let registry = tools::sql_tools();
    // The statement execute_sql runs, row cap included, for the Python side.
    let sql = capped_sql(&ctx, SQL);
    let mut python_path = PythonPath::start(&python, &path);

    // Warm-up, and the check that both sides return every row.
    let (rust_rows, content) = rt.block_on(execute_sql(&registry, &ctx, SQL));
    // Two for Python: its first call also loads what its imports left lazy.
    python_path.run(&sql);
    let reply = python_path.run(&sql);
    assert_eq!(rust_rows, ROWS, "execute_sql rows");
    assert_eq!(reply.rows, ROWS, "Python path rows");

    let mut phases: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let rounds = side_by_side(
        ROUNDS,
        || {
            let reply = python_path.run(&sql);
            assert_eq!(reply.rows, ROWS);
            for (name, ms) in reply.phases_ms {
                phases.entry(name).or_default().push(ms);
            }
        },
        || {
            black_box(rt.block_on(execute_sql(&registry, &ctx, SQL)));
        },
    );
    drop(python_path);

    println!(
        "\npython path summary (medians of interleaved rounds; ratio Python / Rust: median, min, max per round)"
    );
    println!(
        "  {SQL}: python path {:>10.2?}   execute_sql {:>10.2?}   ratio {}",
        rounds.median(0),
        rounds.median(1),
        rounds.ratio(0, 1)
    );
    let breakdown: Vec<String> = PHASES
        .iter()
        .map(|(name, what)| {
            let ms = phases.get_mut(*name).map_or(0.0, |v| median_ms(v));
            let median = Duration::from_secs_f64(ms / 1000.0);
            format!("{name} ({what}) {median:.1?}")
        })
        .collect();
    println!("  python path phases (medians): {}", breakdown.join(", "));
    println!(
        "  what the model gets: execute_sql {} chars; python path {} chars (after {} bytes of JSON from FastAPI)",
        content.chars().count(),
        reply.markdown_chars,
        reply.json_bytes
    );
}
