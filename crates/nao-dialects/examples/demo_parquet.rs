//! Writes the demo shop ([`nao_dialects::demo`]) as one Parquet file per table, for engines
//! that read files (Sail, roapi, Spark): `<dir>/customers.parquet`, `<dir>/products.parquet`, …,
//! and `<dir>/create_tables.sql`, the Spark SQL statements that register them as tables with
//! their column types, NOT NULL and comments (`CREATE TABLE … USING parquet LOCATION …`).
//! Beside them it writes the adapter conformance suite's fixture table
//! ([`nao_dialects::conformance::FIXTURE_STATEMENTS`]) as `<dir>/nao_conformance.parquet` with
//! its own `<dir>/conformance.sql`, so the suite runs on those engines too.
//!
//! ```text
//! cargo run -p nao-dialects --features duckdb --example demo_parquet -- <dir> [small|full]
//! ```
//!
//! The tables are loaded into an in-memory DuckDB and written with DuckDB's own
//! `COPY … (FORMAT parquet)`, so no Parquet library is needed. Types keep their Arrow meaning:
//! `Decimal128(p, 2)` becomes a Parquet DECIMAL(p, 2), timestamps without a zone a TIMESTAMP
//! that is not adjusted to UTC (Spark's TIMESTAMP_NTZ), `Date32` a DATE; NULLs stay NULL. DuckDB
//! marks every Parquet column optional, so NOT NULL lives only in the SQL file. Each file is
//! written under a temporary name and renamed into place, so a reader never sees half a file.
//! The scale is `small` (about 3 000 rows, what the conformance suite expects) by default;
//! `full` is about 300 000 rows.

// A command-line tool: it reports what it wrote on stdout.
#![allow(clippy::print_stdout)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use nao_dialects::conformance::{FIXTURE_STATEMENTS, FIXTURE_TABLE};
use nao_dialects::core::arrow::datatypes::{DataType, TimeUnit};
use nao_dialects::demo::{DemoScale, DemoTable, generate};
use nao_dialects::duckdb::driver::Connection;
use nao_dialects::duckdb::load_batches;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: demo_parquet <dir> [small|full]");
        return ExitCode::from(2);
    };
    let scale = match args.next().as_deref().map(|s| s.to_str()) {
        None | Some(Some("small")) => DemoScale::Small,
        Some(Some("full")) => DemoScale::Full,
        Some(other) => {
            eprintln!("demo_parquet: unknown scale {other:?}; use small or full");
            return ExitCode::from(2);
        }
    };
    match write_demo(&dir, scale) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("demo_parquet: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Generates the demo at `scale` and writes `<dir>/<table>.parquet` for each table, then
/// `<dir>/create_tables.sql`; then the conformance fixture.
fn write_demo(dir: &Path, scale: DemoScale) -> Result<(), Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let dir = std::fs::canonicalize(dir)?;
    let connection = Connection::open_in_memory()?;
    let tables = generate(scale)?;
    let mut ddl = String::new();
    for table in &tables {
        load_batches(&connection, table.name, &table.batches)?;
        let path = write_parquet(&connection, table.name, &dir)?;
        println!("{} rows -> {}", table.row_count(), path.display());
        ddl.push_str(&spark_create_table(table, &path)?);
    }
    let sql_path = dir.join("create_tables.sql");
    std::fs::write(&sql_path, ddl)?;
    println!("{} tables -> {}", tables.len(), sql_path.display());
    write_conformance_fixture(&connection, &dir)
}

/// Writes the conformance fixture as `<dir>/nao_conformance.parquet` and `<dir>/conformance.sql`:
/// the fixture's own portable `CREATE TABLE` (Spark accepts its types and `NOT NULL`) with
/// `USING parquet LOCATION` added, so its columns are declared in one place.
fn write_conformance_fixture(
    connection: &Connection,
    dir: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let create = FIXTURE_STATEMENTS
        .first()
        .ok_or("the conformance fixture has no statements")?;
    for statement in FIXTURE_STATEMENTS {
        connection.execute_batch(statement)?;
    }
    let path = write_parquet(connection, FIXTURE_TABLE, dir)?;
    let location = path
        .to_str()
        .ok_or_else(|| format!("the path {} is not UTF-8", path.display()))?;
    let ddl = format!(
        "{} USING parquet LOCATION {};\n",
        create.replacen("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1),
        spark_string(location)
    );
    let sql_path = dir.join("conformance.sql");
    std::fs::write(&sql_path, ddl)?;
    println!(
        "conformance fixture -> {} and {}",
        path.display(),
        sql_path.display()
    );
    Ok(())
}

/// Copies the DuckDB table `table` to `<dir>/<table>.parquet` (written under a temporary name
/// and renamed into place) and returns that path.
fn write_parquet(
    connection: &Connection,
    table: &str,
    dir: &Path,
) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let path = dir.join(format!("{table}.parquet"));
    let partial = dir.join(format!(".{table}.parquet.partial"));
    let partial_text = partial
        .to_str()
        .ok_or_else(|| format!("the path {} is not UTF-8", partial.display()))?;
    connection.execute_batch(&format!(
        "COPY \"{table}\" TO '{}' (FORMAT parquet)",
        partial_text.replace('\'', "''")
    ))?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// `CREATE TABLE IF NOT EXISTS` in Spark SQL for `table`, read from the Parquet file at `path`,
/// ending with `;` and a newline.
fn spark_create_table(
    table: &DemoTable,
    path: &Path,
) -> Result<String, Box<dyn std::error::Error>> {
    let schema = table
        .batches
        .first()
        .ok_or_else(|| format!("demo table {} has no batch", table.name))?
        .schema();
    let mut columns = Vec::new();
    for field in schema.fields() {
        let mut column = format!("`{}` {}", field.name(), spark_type(field.data_type())?);
        if !field.is_nullable() {
            column.push_str(" NOT NULL");
        }
        let comment = table
            .column_comments
            .iter()
            .find(|(name, _)| name == field.name());
        if let Some((_, comment)) = comment {
            column.push_str(&format!(" COMMENT {}", spark_string(comment)));
        }
        columns.push(column);
    }
    let location = path
        .to_str()
        .ok_or_else(|| format!("the path {} is not UTF-8", path.display()))?;
    Ok(format!(
        "CREATE TABLE IF NOT EXISTS `{}` (\n  {}\n) USING parquet COMMENT {} LOCATION {};\n",
        table.name,
        columns.join(",\n  "),
        spark_string(table.comment),
        spark_string(location)
    ))
}

/// The Spark SQL type of an Arrow type the demo uses.
fn spark_type(data_type: &DataType) -> Result<String, String> {
    Ok(match data_type {
        DataType::Boolean => "BOOLEAN".into(),
        DataType::Int32 => "INT".into(),
        DataType::Int64 => "BIGINT".into(),
        DataType::Float64 => "DOUBLE".into(),
        DataType::Utf8 => "STRING".into(),
        DataType::Date32 => "DATE".into(),
        DataType::Timestamp(TimeUnit::Microsecond, None) => "TIMESTAMP_NTZ".into(),
        DataType::Decimal128(precision, scale) => format!("DECIMAL({precision}, {scale})"),
        other => return Err(format!("no Spark type for the demo column type {other}")),
    })
}

/// A Spark SQL string literal (Spark escapes with backslashes, not doubled quotes).
fn spark_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}
