//! A DuckDB file a bench builds once in the temp dir and reuses in later runs. It is built
//! under another name and renamed when done, so a run cut short leaves no half-built file.

use std::path::PathBuf;

use nao::dialects::duckdb::driver as duckdb;

/// `<temp dir>/<dir>/<file>`, made by `build` on a new connection if it is not there yet.
pub(crate) fn cached(dir: &str, file: &str, build: impl FnOnce(&duckdb::Connection)) -> PathBuf {
    let dir = std::env::temp_dir().join(dir);
    let path = dir.join(file);
    if path.exists() {
        return path;
    }
    std::fs::create_dir_all(&dir).expect("the bench directory can be made");
    let building = dir.join("building.duckdb");
    let _ = std::fs::remove_file(&building);
    let conn = duckdb::Connection::open(&building).expect("DuckDB opens a new file");
    build(&conn);
    drop(conn);
    std::fs::rename(&building, &path).expect("the built file can be renamed");
    path
}
