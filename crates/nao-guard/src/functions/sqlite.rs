//! SQLite built-ins: the core scalar and aggregate functions, date/time, JSON1, FTS5 auxiliary
//! functions, and the table-valued pragmas (`pragma_table_info` …) of the pragmas that only
//! read, from [`crate::SqlitePragma`], the list the SQLite adapter's authorizer applies too (SQLite
//! also exposes `pragma_optimize`, `pragma_integrity_check` …, which that list leaves off).
//!
//! `glob(pattern, text)` is SQLite's pattern match, allowed here; DuckDB's file-listing `glob` is
//! denied in DuckDB only.

/// Side-effect-free SQLite built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const SQLITE: &[&str] = &[
    "acosh", "asinh", "atanh", "bm25", "changes", "char", "cosh", "date", "datetime", "format",
    "generate_series", "glob", "group_concat", "hex", "highlight", "ifnull", "iif", "instr",
    "json", "json_array", "json_array_length", "json_each", "json_error_position", "json_extract",
    "json_group_array", "json_group_object", "json_insert", "json_object", "json_patch",
    "json_pretty", "json_quote", "json_remove", "json_replace", "json_set", "json_tree",
    "json_type", "json_valid", "jsonb", "jsonb_array", "jsonb_extract", "jsonb_group_array",
    "jsonb_group_object", "jsonb_insert", "jsonb_object", "jsonb_patch", "jsonb_remove",
    "jsonb_replace", "jsonb_set", "julianday", "last_insert_rowid", "like", "likelihood", "likely",
    "log2", "matchinfo", "median", "offsets", "percentile", "pow", "printf", "quote", "random", "randomblob", "sinh", "snippet", "soundex",
    "sqlite_compileoption_get", "sqlite_compileoption_used", "sqlite_offset", "sqlite_source_id",
    "sqlite_version", "strftime", "string_agg", "tanh", "time", "timediff", "total",
    "total_changes", "typeof", "unhex", "unicode", "unixepoch", "unlikely", "zeroblob",
];

/// Whether the folded `name` is `pragma_x` for a pragma `x` that only reads.
pub(super) fn is_reading_pragma(name: &[u8]) -> bool {
    name.strip_prefix(b"pragma_")
        .and_then(|pragma| std::str::from_utf8(pragma).ok())
        .and_then(crate::SqlitePragma::find)
        .is_some_and(crate::SqlitePragma::table_valued)
}

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Sqlite;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "glob",
            "strftime",
            "julianday",
            "json_each",
            "json_tree",
            "group_concat",
            "pragma_table_info",
            "iif",
            "unixepoch",
        ] {
            assert_eq!(verdict(Sqlite, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("load_extension", Administrative),
            ("readfile", FileAccess),
            ("writefile", FileAccess),
            ("edit", FileAccess),
            ("fts3_tokenizer", Administrative),
            ("zipfile", FileAccess),
            ("sqlar_uncompress", FileAccess),
            ("fsdir", FileAccess),
        ] {
            assert_eq!(verdict(Sqlite, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn table_valued_pragmas_follow_the_pragma_list() {
        for pragma in crate::SqlitePragma::all().filter(|p| p.table_valued()) {
            let name = format!("pragma_{}", pragma.name());
            assert_eq!(verdict(Sqlite, &name), Allowed, "{name}");
            assert_eq!(
                verdict(Sqlite, &name.to_ascii_uppercase()),
                Allowed,
                "{name}"
            );
        }
        for name in [
            "pragma_optimize",
            "pragma_integrity_check",
            "pragma_quick_check",
            "pragma_foreign_key_check",
            "pragma_mmap_size",
            "pragma_",
            "pragma_pragma_table_info",
            "main.pragma_table_info",
        ] {
            assert_eq!(verdict(Sqlite, name), Unknown, "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["main.upper", "\"Upper\""] {
            assert_eq!(verdict(Sqlite, name), Unknown, "{name}");
        }
    }
}
