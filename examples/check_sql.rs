//! Checks SQL with the guard and prints the verdict.
//!
//! ```text
//! cargo run --example check_sql -- postgres "SELECT * FROM orders; -- done"
//! echo "DELETE FROM orders" | cargo run --example check_sql -- sqlite
//! ```
#![allow(clippy::print_stdout)]

use std::io::Read;
use std::process::ExitCode;

use nao::guard::{Policy, SqlDialect, analyze, check};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let dialect: SqlDialect = match args.next().as_deref().unwrap_or("duckdb").parse() {
        Ok(dialect) => dialect,
        Err(err) => {
            eprintln!("{err}");
            return ExitCode::from(2);
        }
    };
    let sql = match args.next() {
        Some(sql) => sql,
        None => {
            let mut sql = String::new();
            if let Err(err) = std::io::stdin().read_to_string(&mut sql) {
                eprintln!("could not read SQL from standard input: {err}");
                return ExitCode::from(2);
            }
            sql
        }
    };
    let policy = Policy::default().with_row_cap(1_000);
    let analysis = analyze(&sql, dialect, &policy);
    let tables: Vec<String> = analysis.tables().iter().map(ToString::to_string).collect();
    println!("dialect:   {dialect}");
    println!("tables:    {}", tables.join(", "));
    println!("functions: {}", analysis.functions().join(", "));
    match check(&sql, dialect, &policy) {
        Ok(checked) => {
            println!("verdict:   read-only ({:?})", checked.kind());
            println!("run:       {}", checked.sql());
            ExitCode::SUCCESS
        }
        Err(rejection) => {
            println!("verdict:   refused ({})", rejection.kind().code());
            println!("message:   {rejection}");
            for other in analysis.rejections().iter().skip(1) {
                println!("also:      {}", other.kind().code());
            }
            ExitCode::FAILURE
        }
    }
}
