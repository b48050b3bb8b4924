//! The statements of the case tables (`testdata/*.toml`), for unit tests that check a property
//! over all of them.

use std::path::Path;

use crate::SqlDialect;

/// The case tables' statements and the dialects each is run in.
pub(crate) fn statements() -> Vec<(String, Vec<SqlDialect>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut statements = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a testdata entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("a readable case file");
        let table: toml::Table = text.parse().expect("a case file in TOML");
        let cases = table
            .get("case")
            .and_then(|c| c.as_array())
            .expect("[[case]] entries");
        for case in cases {
            let sql = case
                .get("sql")
                .and_then(|s| s.as_str())
                .expect("a case's sql");
            let dialects = match case.get("dialects").and_then(|d| d.as_array()) {
                Some(names) => names
                    .iter()
                    .map(|n| {
                        n.as_str()
                            .expect("a dialect name")
                            .parse()
                            .expect("a dialect")
                    })
                    .collect(),
                None => SqlDialect::ALL.to_vec(),
            };
            statements.push((sql.to_owned(), dialects));
        }
    }
    statements
}
