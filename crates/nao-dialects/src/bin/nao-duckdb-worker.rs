//! The DuckDB worker process for `nao_dialects::Isolation::Workers`: started by the DuckDB
//! adapter, never by hand.
#![forbid(unsafe_code)]

fn main() {
    match nao_dialects::duckdb::run_if_worker() {
        Some(code) => std::process::exit(code),
        None => {
            eprintln!(
                "nao-duckdb-worker runs DuckDB statements for the nao-dialects DuckDB adapter \
                 (EngineLimits::isolation(Isolation::workers(...))); it is not run by hand"
            );
            std::process::exit(2);
        }
    }
}
