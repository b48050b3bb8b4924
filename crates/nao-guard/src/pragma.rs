//! SQLite's pragmas as a fact of the dialect: which of them only read, in both of their forms.
//!
//! A pragma runs as a statement (`PRAGMA table_info(t)`, `PRAGMA journal_mode`) or, when it
//! returns rows, as a table-valued function (`SELECT * FROM pragma_table_info('t')`). SQLite's
//! authorizer sees both forms alike, as the pragma's name and its argument (for the function,
//! the first argument when the pragma takes one; a setting's function takes only a schema, so
//! it cannot set anything). One list decides for the guard and for an adapter's authorizer, so
//! that what the guard approves the engine also lets run:
//! - the guard allows the pragmas of this list (minus the host-revealing ones, refused by the
//!   sensitive catalogue: `database_list` prints file paths);
//! - the SQLite adapter of nao-dialects allows exactly this list in its authorizer.
//!
//! ```
//! use nao_guard::SqlitePragma;
//!
//! assert!(SqlitePragma::only_reads("table_info", Some("orders")));
//! assert!(SqlitePragma::only_reads("JOURNAL_MODE", None));
//! assert!(!SqlitePragma::only_reads("journal_mode", Some("wal"))); // sets it
//! assert!(!SqlitePragma::only_reads("optimize", None)); // not on the list: has effects
//! ```
//!
//! Left off on purpose, so refused by both: pragmas with effects (`optimize`, `wal_checkpoint`,
//! `incremental_vacuum`, `shrink_memory`, `case_sensitive_like`), checks that read every page
//! (`integrity_check`, `quick_check`, `foreign_key_check`: a denial of service on a large
//! file), pragmas that print or set host paths (`temp_store_directory`,
//! `data_store_directory`, `lock_proxy_file`), deprecated ones (`count_changes`,
//! `default_cache_size`, `empty_result_callbacks`, `full_column_names`, `short_column_names`),
//! debug-build ones (`parser_trace`, `sql_trace`, `stats`, `lock_status`, `vdbe_*`) and any
//! pragma a newer SQLite adds.

/// What an argument does to a [`SqlitePragma`].
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PragmaArgument {
    /// The argument names the table or index reported on (`table_info(t)`, `index_list(t)`):
    /// the pragma reads whatever it is.
    Object,
    /// The pragma reads a setting or reports without an argument; an argument sets the setting
    /// (`journal_mode = WAL`), or means nothing, so with one it does not only read.
    Value,
}

/// A SQLite pragma that only reads (see the module docs for what is left off and why).
///
/// ```
/// use nao_guard::{PragmaArgument, SqlitePragma};
///
/// let info = SqlitePragma::find("table_info").unwrap();
/// assert_eq!(info.argument(), PragmaArgument::Object);
/// assert!(SqlitePragma::all().any(|p| p.name() == "user_version"));
/// assert!(SqlitePragma::find("writable_schema").unwrap().reads(None));
/// assert!(!SqlitePragma::find("writable_schema").unwrap().reads(Some("ON")));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SqlitePragma {
    name: &'static str,
    argument: PragmaArgument,
    table_valued: bool,
}

const fn object(name: &'static str) -> SqlitePragma {
    SqlitePragma {
        name,
        argument: PragmaArgument::Object,
        table_valued: true,
    }
}

const fn value(name: &'static str) -> SqlitePragma {
    SqlitePragma {
        name,
        argument: PragmaArgument::Value,
        table_valued: true,
    }
}

/// A setting SQLite has no `pragma_…` function for (its pragma returns no declared columns).
const fn statement_only(name: &'static str) -> SqlitePragma {
    SqlitePragma {
        name,
        argument: PragmaArgument::Value,
        table_valued: false,
    }
}

/// The list, sorted by name. Reading a setting without a value has no effect in SQLite 3.54
/// (`journal_mode` and `locking_mode` only query; the rest return a field or call a `…(-1)`
/// getter).
const PRAGMAS: &[SqlitePragma] = &[
    value("analysis_limit"),
    value("application_id"),
    value("auto_vacuum"),
    value("automatic_index"),
    value("busy_timeout"),
    value("cache_size"),
    value("cache_spill"),
    value("cell_size_check"),
    value("checkpoint_fullfsync"),
    value("collation_list"),
    value("compile_options"),
    value("data_version"),
    value("database_list"),
    value("defer_foreign_keys"),
    value("encoding"),
    object("foreign_key_list"),
    value("foreign_keys"),
    value("freelist_count"),
    value("fullfsync"),
    value("function_list"),
    value("hard_heap_limit"),
    value("ignore_check_constraints"),
    object("index_info"),
    object("index_list"),
    object("index_xinfo"),
    value("journal_mode"),
    value("journal_size_limit"),
    value("legacy_alter_table"),
    value("locking_mode"),
    value("max_page_count"),
    statement_only("mmap_size"),
    value("module_list"),
    value("page_count"),
    value("page_size"),
    value("pragma_list"),
    value("query_only"),
    value("read_uncommitted"),
    value("recursive_triggers"),
    value("reverse_unordered_selects"),
    value("schema_version"),
    value("secure_delete"),
    value("soft_heap_limit"),
    value("synchronous"),
    object("table_info"),
    object("table_list"),
    object("table_xinfo"),
    value("temp_store"),
    value("threads"),
    value("trusted_schema"),
    value("user_version"),
    statement_only("wal_autocheckpoint"),
    value("writable_schema"),
];

impl SqlitePragma {
    /// Every pragma that only reads, sorted by name.
    pub fn all() -> impl Iterator<Item = &'static SqlitePragma> {
        PRAGMAS.iter()
    }

    /// The pragma of this name (ASCII case-insensitive, without a schema), if it is one that
    /// only reads.
    pub fn find(name: &str) -> Option<&'static SqlitePragma> {
        PRAGMAS
            .binary_search_by(|p| {
                p.name
                    .bytes()
                    .cmp(name.bytes().map(|b| b.to_ascii_lowercase()))
            })
            .ok()
            .map(|i| &PRAGMAS[i])
    }

    /// Whether `PRAGMA name`, `PRAGMA name(argument)`, `PRAGMA name = argument` or the
    /// table-valued `pragma_name(…)` only reads, as SQLite's authorizer reports it: the pragma's
    /// name (without its schema) and its argument, if any.
    pub fn only_reads(name: &str, argument: Option<&str>) -> bool {
        SqlitePragma::find(name).is_some_and(|p| p.reads(argument))
    }

    /// The name, lower case (`table_info`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What an argument does to it.
    pub fn argument(&self) -> PragmaArgument {
        self.argument
    }

    /// Whether SQLite also runs it as the table-valued function `pragma_<name>` (false for
    /// `mmap_size` and `wal_autocheckpoint`, which are statements only).
    pub fn table_valued(&self) -> bool {
        self.table_valued
    }

    /// Whether it only reads when given `argument` (only whether there is one matters).
    pub fn reads(&self, argument: Option<&str>) -> bool {
        match self.argument {
            PragmaArgument::Object => true,
            PragmaArgument::Value => argument.is_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_sorted_unique_and_lower_case() {
        for pair in PRAGMAS.windows(2) {
            assert!(
                pair[0].name < pair[1].name,
                "{} then {}",
                pair[0].name,
                pair[1].name
            );
        }
        for pragma in PRAGMAS {
            assert_eq!(pragma.name, pragma.name.to_ascii_lowercase());
            assert_eq!(SqlitePragma::find(pragma.name), Some(pragma));
        }
    }

    #[test]
    fn settings_read_without_a_value_and_objects_with_any() {
        assert!(SqlitePragma::only_reads("Table_Info", Some("t")));
        assert!(SqlitePragma::only_reads("table_list", None));
        assert!(SqlitePragma::only_reads("user_version", None));
        assert!(!SqlitePragma::only_reads("user_version", Some("7")));
        assert!(!SqlitePragma::only_reads("database_list", Some("x")));
        for effect in [
            "optimize",
            "wal_checkpoint",
            "integrity_check",
            "quick_check",
            "foreign_key_check",
            "shrink_memory",
            "incremental_vacuum",
            "case_sensitive_like",
            "temp_store_directory",
            "",
            "table_info2",
            "table_inf",
        ] {
            assert!(!SqlitePragma::only_reads(effect, None), "{effect:?}");
        }
    }
}
