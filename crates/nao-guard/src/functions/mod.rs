//! The per-dialect function catalogue: which functions are denied (and why), which built-ins are
//! known to be free of side effects, and everything else is unknown.
//!
//! # Three tiers
//!
//! 1. **Denied**: functions that sleep, take locks, read or list server files, reach the network,
//!    run SQL text the guard cannot see, change state or administer the server. Matched on the
//!    ASCII-case-folded *last* part of the name whatever its qualification and quoting, so
//!    `pg_catalog.pg_sleep`, `"PG_SLEEP"` and `public.pg_sleep` are all denied. The shared lists
//!    live in [`denied`] (exact names, prefixes such as `pg_ls_`/`xp_`/`system$`, suffixes such as
//!    `_scan`/`_query`); a name that is only dangerous in some engines (DuckDB `glob`, ClickHouse
//!    `merge`) sits in that engine's own `DENIED` list. The generic dialects (`Generic`, `Ansi`)
//!    apply every engine's list. Denied beats allowed.
//! 2. **Allowed**: the dialect's known side-effect-free built-ins ([`common::COMMON`] plus the
//!    dialect's own list). A name is only allowed when it can only mean the built-in: unqualified
//!    or qualified by the dialect's system namespace (Postgres/Redshift `pg_catalog`, T-SQL `sys`,
//!    BigQuery `SAFE.` and its function families such as `NET.`), and unquoted or quoted in the
//!    case the dialect folds to (a quoted `"Upper"` in Postgres names some other function).
//!    `Ansi` allows only the shared list; `Generic`, which parses any engine's SQL, allows any
//!    engine's built-ins.
//! 3. **Unknown**: everything else (user-defined functions, built-ins not yet catalogued). The
//!    policy decides; by default they are rejected.
//!
//! # Extending the catalogue
//!
//! Add the name, in lower case, at its sorted place in the dialect's list (or in
//! [`common::COMMON`] if it is side-effect free in every engine that has it, or in
//! [`denied::EXACT`] with its [`FunctionClass`]). The unit tests check that every list is sorted,
//! unique and lower case, and that no allowed name is also denied. A new dialect gets a file with
//! its lists and an entry in [`Catalogue::of`].
//!
//! # Performance
//!
//! Lookups never allocate: the name is folded to ASCII lower case once into a stack buffer
//! ([`folded::FoldedName`]) and looked up in a hash map of every name the dialect's lists hold
//! ([`index::NameIndex`], built from the sorted `&'static` lists on first use); a name no list
//! holds is checked against a few dozen denied prefixes and suffixes.

mod bigquery;
mod clickhouse;
mod common;
mod denied;
mod duckdb;
mod folded;
mod index;
mod mssql;
mod mysql;
mod postgres;
mod redshift;
mod snowflake;
mod spark;
mod sqlite;
mod trino;

use std::cmp::Ordering;

use sqlparser::ast::{Ident, ObjectName, ObjectNamePart};

use crate::{FunctionClass, SqlDialect};
use folded::FoldedName;
use index::NameIndex;

/// What the catalogue says about a function name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Catalogued {
    /// Denied in every context, for this reason.
    Denied(FunctionClass),
    /// A known side-effect-free built-in of the dialect.
    Allowed,
    /// Not in the catalogue: the policy decides (denied by default).
    Unknown,
}

/// Classifies a function (or table function) name as written, in `dialect`.
pub(crate) fn classify(dialect: SqlDialect, name: &ObjectName) -> Catalogued {
    let Some((last, qualifiers)) = name.0.split_last() else {
        return Catalogued::Unknown;
    };
    // `IDENTIFIER('…')`-style parts are computed at run time: nothing to match.
    let Some(last) = last.as_ident() else {
        return Catalogued::Unknown;
    };
    classify_parts(dialect, qualifiers, last)
}

/// Whether a relation name is one of SQLite's table-valued pragmas written as a table
/// (`FROM pragma_table_list`, `FROM pragma_optimize`): SQLite runs the pragma, so the function
/// tiers judge the name as they judge `pragma_table_list()`.
pub(crate) fn names_a_pragma(dialect: SqlDialect, name: &ObjectName) -> bool {
    Catalogue::of(dialect).sqlite_pragmas
        && name
            .0
            .last()
            .and_then(ObjectNamePart::as_ident)
            .is_some_and(|last| FoldedName::new(&last.value).starts_with(b"pragma_"))
}

/// Classifies an unqualified name (an attribute that may be a call), without building an
/// [`ObjectName`].
pub(crate) fn classify_ident(dialect: SqlDialect, name: &Ident) -> Catalogued {
    classify_parts(dialect, &[], name)
}

fn classify_parts(dialect: SqlDialect, qualifiers: &[ObjectNamePart], last: &Ident) -> Catalogued {
    let catalogue = Catalogue::of(dialect);
    let folded = FoldedName::new(&last.value);
    let listed = folded
        .whole()
        .and_then(|whole| NameIndex::of(dialect).get(whole));
    // A name no list holds can only be denied by an affix.
    let denied = match listed {
        Some(listed) => listed.denied,
        None => denied_by_affix(&folded),
    };
    let allowed = listed.is_some_and(|listed| listed.allowed);
    if let Some(class) = denied {
        Catalogued::Denied(class)
    } else if catalogue.allows(qualifiers, last, &folded, allowed) {
        Catalogued::Allowed
    } else {
        Catalogued::Unknown
    }
}

/// A denied name prefix or suffix, with the built-ins that merely share it.
#[derive(Debug)]
struct Affix {
    /// The prefix or suffix, lower case.
    text: &'static str,
    /// Why names with it are denied.
    class: FunctionClass,
    /// Names that have the affix but are harmless built-ins (lower case, sorted).
    except: &'static [&'static str],
}

/// Which quoted spellings still name a built-in.
#[derive(Debug, Clone, Copy)]
enum QuotedNames {
    /// Unquoted names fold to lower case: `"upper"` is the built-in, `"Upper"` is not.
    Lower,
    /// Unquoted names fold to upper case (Snowflake): `"IFF"` is the built-in, `"iff"` is not.
    Upper,
    /// Quoting does not change how functions resolve (ClickHouse).
    AnyCase,
}

impl QuotedNames {
    fn names_builtin(self, ident: &Ident) -> bool {
        if ident.quote_style.is_none() {
            return true;
        }
        let bytes = ident.value.as_bytes();
        match self {
            QuotedNames::Lower => !bytes.iter().any(u8::is_ascii_uppercase),
            QuotedNames::Upper => !bytes.iter().any(u8::is_ascii_lowercase),
            QuotedNames::AnyCase => true,
        }
    }
}

/// One dialect's view of the catalogue.
#[derive(Debug)]
struct Catalogue {
    /// Sorted lists of side-effect-free built-ins.
    allowed: &'static [&'static [&'static str]],
    /// Names denied in this dialect beyond [`denied::EXACT`] and the shared affixes.
    denied: &'static [&'static [(&'static str, FunctionClass)]],
    /// Schemas that hold the built-ins (`pg_catalog`), accepted as a qualifier of allowed names.
    system_schemas: &'static [&'static str],
    /// Whether a leading `SAFE.` qualifier may precede any built-in (BigQuery).
    safe_prefix: bool,
    /// Namespaced function families (`NET.HOST`), each with its sorted member list.
    families: &'static [(&'static str, &'static [&'static str])],
    /// Aggregates that [`Catalogue::combinators`] may extend (ClickHouse `sumIf`).
    aggregates: &'static [&'static str],
    /// Suffixes appended to aggregate names to make new aggregates.
    combinators: &'static [&'static str],
    /// Which quoted spellings still name a built-in.
    quoted: QuotedNames,
    /// Whether `pragma_x` is a built-in when `x` is a pragma that only reads (SQLite's
    /// table-valued pragmas, from the one list in [`crate::SqlitePragma`]).
    sqlite_pragmas: bool,
}

/// Every dialect's extra denied list: the generic dialects deny the union.
const ALL_DIALECT_DENIED: &[&[(&str, FunctionClass)]] = &[duckdb::DENIED, clickhouse::DENIED];

impl Catalogue {
    const BASE: Catalogue = Catalogue {
        allowed: &[common::COMMON],
        denied: ALL_DIALECT_DENIED,
        system_schemas: &[],
        safe_prefix: false,
        families: &[],
        aggregates: &[],
        combinators: &[],
        quoted: QuotedNames::Lower,
        sqlite_pragmas: false,
    };
    /// Strict ANSI SQL: only the shared built-ins.
    const ANSI: Catalogue = Catalogue::BASE;
    /// Permissive SQL of no particular engine: any engine's side-effect-free built-in (and, from
    /// [`Catalogue::BASE`], any engine's denied name, which wins: `glob`, `merge`).
    const GENERIC: Catalogue = Catalogue {
        allowed: &[
            common::COMMON,
            postgres::POSTGRES,
            redshift::REDSHIFT,
            mysql::MYSQL,
            sqlite::SQLITE,
            duckdb::DUCKDB,
            snowflake::SNOWFLAKE,
            bigquery::BIGQUERY,
            spark::SPARK,
            mssql::MSSQL,
            clickhouse::CLICKHOUSE,
            clickhouse::AGGREGATES,
            trino::TRINO,
        ],
        sqlite_pragmas: true,
        ..Catalogue::BASE
    };
    const POSTGRES: Catalogue = Catalogue {
        allowed: &[common::COMMON, postgres::POSTGRES],
        denied: &[],
        system_schemas: &["pg_catalog"],
        ..Catalogue::BASE
    };
    const REDSHIFT: Catalogue = Catalogue {
        allowed: &[common::COMMON, postgres::POSTGRES, redshift::REDSHIFT],
        ..Catalogue::POSTGRES
    };
    const MYSQL: Catalogue = Catalogue {
        allowed: &[common::COMMON, mysql::MYSQL],
        denied: &[],
        ..Catalogue::BASE
    };
    const SQLITE: Catalogue = Catalogue {
        allowed: &[common::COMMON, sqlite::SQLITE],
        denied: &[],
        sqlite_pragmas: true,
        ..Catalogue::BASE
    };
    const DUCKDB: Catalogue = Catalogue {
        allowed: &[common::COMMON, duckdb::DUCKDB],
        denied: &[duckdb::DENIED],
        ..Catalogue::BASE
    };
    const SNOWFLAKE: Catalogue = Catalogue {
        allowed: &[common::COMMON, snowflake::SNOWFLAKE],
        denied: &[],
        quoted: QuotedNames::Upper,
        ..Catalogue::BASE
    };
    const BIGQUERY: Catalogue = Catalogue {
        allowed: &[common::COMMON, bigquery::BIGQUERY],
        denied: &[],
        safe_prefix: true,
        families: bigquery::FAMILIES,
        ..Catalogue::BASE
    };
    const SPARK: Catalogue = Catalogue {
        allowed: &[common::COMMON, spark::SPARK],
        denied: &[],
        ..Catalogue::BASE
    };
    const MSSQL: Catalogue = Catalogue {
        allowed: &[common::COMMON, mssql::MSSQL],
        denied: &[],
        system_schemas: &["sys"],
        ..Catalogue::BASE
    };
    const CLICKHOUSE: Catalogue = Catalogue {
        allowed: &[
            common::COMMON,
            clickhouse::CLICKHOUSE,
            clickhouse::AGGREGATES,
        ],
        denied: &[clickhouse::DENIED],
        aggregates: clickhouse::AGGREGATES,
        combinators: clickhouse::COMBINATORS,
        quoted: QuotedNames::AnyCase,
        ..Catalogue::BASE
    };
    const TRINO: Catalogue = Catalogue {
        allowed: &[common::COMMON, trino::TRINO],
        denied: &[],
        ..Catalogue::BASE
    };

    /// The catalogue of `dialect`.
    fn of(dialect: SqlDialect) -> &'static Catalogue {
        match dialect {
            SqlDialect::Generic => &Catalogue::GENERIC,
            SqlDialect::Ansi => &Catalogue::ANSI,
            SqlDialect::Postgres => &Catalogue::POSTGRES,
            SqlDialect::Redshift => &Catalogue::REDSHIFT,
            SqlDialect::MySql | SqlDialect::MariaDb => &Catalogue::MYSQL,
            SqlDialect::Sqlite => &Catalogue::SQLITE,
            SqlDialect::DuckDb => &Catalogue::DUCKDB,
            SqlDialect::Snowflake => &Catalogue::SNOWFLAKE,
            SqlDialect::BigQuery => &Catalogue::BIGQUERY,
            SqlDialect::Databricks | SqlDialect::Spark | SqlDialect::Hive => &Catalogue::SPARK,
            SqlDialect::MsSql => &Catalogue::MSSQL,
            SqlDialect::ClickHouse => &Catalogue::CLICKHOUSE,
            SqlDialect::Trino => &Catalogue::TRINO,
        }
    }

    /// Why `name` (a last name part) is denied in this dialect, if it is: from the lists
    /// themselves, for [`NameIndex`] to remember.
    fn denied(&self, name: &FoldedName) -> Option<FunctionClass> {
        name.whole()
            .and_then(|whole| {
                class_of(denied::EXACT, whole)
                    .or_else(|| self.denied.iter().find_map(|list| class_of(list, whole)))
            })
            .or_else(|| denied_by_affix(name))
    }

    /// Whether one of this dialect's allowed lists holds the folded `name`: from the lists
    /// themselves, for [`NameIndex`] to remember.
    fn lists_as_allowed(&self, name: &[u8]) -> bool {
        self.allowed.iter().any(|list| contains(list, name))
    }

    /// Whether `qualifiers`.`name` can only mean one of this dialect's side-effect-free
    /// built-ins; `listed` tells whether an allowed list holds the name ([`NameIndex`]).
    fn allows(
        &self,
        qualifiers: &[ObjectNamePart],
        ident: &Ident,
        name: &FoldedName,
        listed: bool,
    ) -> bool {
        // Longer names than any catalogued one are never built-ins.
        let Some(name) = name.whole() else {
            return false;
        };
        if !self.quoted.names_builtin(ident) {
            return false;
        }
        let qualifiers = match qualifiers {
            [first, rest @ ..]
                if self.safe_prefix
                    && self
                        .qualifier(first)
                        .is_some_and(|q| q.eq_ignore_ascii_case(b"safe")) =>
            {
                rest
            }
            _ => qualifiers,
        };
        match qualifiers {
            [] => self.is_builtin(name, listed),
            [qualifier] => {
                let Some(qualifier) = self.qualifier(qualifier) else {
                    return false;
                };
                if self
                    .system_schemas
                    .iter()
                    .any(|s| s.as_bytes().eq_ignore_ascii_case(qualifier))
                {
                    return self.is_builtin(name, listed);
                }
                self.families
                    .iter()
                    .find(|(family, _)| family.as_bytes().eq_ignore_ascii_case(qualifier))
                    .is_some_and(|(_, members)| contains(members, name))
            }
            _ => false,
        }
    }

    /// The text of a qualifier part, if it is an identifier spelled as the dialect folds it.
    fn qualifier<'a>(&self, part: &'a ObjectNamePart) -> Option<&'a [u8]> {
        part.as_ident()
            .filter(|ident| self.quoted.names_builtin(ident))
            .map(|ident| ident.value.as_bytes())
    }

    /// Whether the folded `name` is a built-in: `listed` in an allowed list, an aggregate with
    /// combinators, or a reading pragma.
    fn is_builtin(&self, name: &[u8], listed: bool) -> bool {
        listed
            || self.is_combined_aggregate(name, 3)
            || (self.sqlite_pragmas && sqlite::is_reading_pragma(name))
    }

    /// Whether `name` (folded) is a catalogued aggregate extended by up to `depth` combinators
    /// (`uniqExactIf`, `avgMergeState`).
    fn is_combined_aggregate(&self, name: &[u8], depth: u8) -> bool {
        depth > 0
            && self.combinators.iter().any(|combinator| {
                let combinator = combinator.as_bytes();
                name.len() > combinator.len() && folded::ends_with(name, combinator) && {
                    let base = &name[..name.len() - combinator.len()];
                    contains(self.aggregates, base) || self.is_combined_aggregate(base, depth - 1)
                }
            })
    }
}

/// Whether the sorted lower-case `list` holds the folded `name`.
fn contains(list: &[&str], name: &[u8]) -> bool {
    list.binary_search_by(|entry| cmp_bytes(entry, name))
        .is_ok()
}

/// The class of the folded `name` in a list sorted by name.
fn class_of(list: &[(&str, FunctionClass)], name: &[u8]) -> Option<FunctionClass> {
    list.binary_search_by(|(entry, _)| cmp_bytes(entry, name))
        .ok()
        .map(|i| list[i].1)
}

/// Orders a catalogue entry against a folded name. Comparing byte iterators inlines; the slice
/// `Ord` calls `memcmp`, which costs several times more on names this short.
fn cmp_bytes(entry: &str, name: &[u8]) -> Ordering {
    entry.bytes().cmp(name.iter().copied())
}

/// Why a name is denied by one of the shared prefixes or suffixes, if it is.
fn denied_by_affix(name: &FoldedName) -> Option<FunctionClass> {
    affix_class(denied::PREFIXES, name, FoldedName::starts_with)
        .or_else(|| affix_class(denied::SUFFIXES, name, FoldedName::ends_with))
}

/// The class of the first affix `name` has (as told by `has(name, affix)`) and is not an exception
/// of.
fn affix_class(
    affixes: &[Affix],
    name: &FoldedName,
    has: fn(&FoldedName, &[u8]) -> bool,
) -> Option<FunctionClass> {
    affixes
        .iter()
        .find(|affix| {
            has(name, affix.text.as_bytes())
                && !name
                    .whole()
                    .is_some_and(|whole| contains(affix.except, whole))
        })
        .map(|affix| affix.class)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for the catalogue's unit tests.

    use sqlparser::ast::{Ident, ObjectName};

    use super::{Catalogued, classify};
    use crate::SqlDialect;

    /// A name for every entry of the denied catalogue: each exact name, and for each denied
    /// prefix or suffix a made-up name that carries it.
    pub(crate) fn denied_names() -> Vec<String> {
        let exact = super::denied::EXACT
            .iter()
            .chain(
                super::ALL_DIALECT_DENIED
                    .iter()
                    .flat_map(|list| list.iter()),
            )
            .map(|(name, _)| (*name).to_owned());
        let prefixed = super::denied::PREFIXES
            .iter()
            .map(|affix| format!("{}probe", affix.text));
        let suffixed = super::denied::SUFFIXES
            .iter()
            .map(|affix| format!("probe{}", affix.text));
        exact.chain(prefixed).chain(suffixed).collect()
    }

    /// Builds a name from `a.b.c`, where a part written `"x"` is double-quoted.
    pub(crate) fn name(spec: &str) -> ObjectName {
        ObjectName::from(
            spec.split('.')
                .map(
                    |part| match part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                        Some(inner) => Ident::with_quote('"', inner),
                        None => Ident::new(part),
                    },
                )
                .collect::<Vec<_>>(),
        )
    }

    /// Classifies the name written as `spec` (see [`name`]).
    pub(crate) fn verdict(dialect: SqlDialect, spec: &str) -> Catalogued {
        classify(dialect, &name(spec))
    }
}

#[cfg(test)]
mod tests {
    use sqlparser::ast::{Ident, ObjectName, ObjectNamePart, ObjectNamePartFunction};

    use super::Catalogued::{Allowed, Denied, Unknown};
    use super::testing::verdict;
    use super::*;

    /// Every list of names with where it comes from, for the invariant tests.
    fn all_name_lists() -> Vec<(String, Vec<&'static str>)> {
        let mut lists: Vec<(String, Vec<&'static str>)> = vec![
            (
                "denied::EXACT".into(),
                denied::EXACT.iter().map(|(n, _)| *n).collect(),
            ),
            (
                "denied::PREFIXES".into(),
                denied::PREFIXES.iter().map(|a| a.text).collect(),
            ),
            (
                "denied::SUFFIXES".into(),
                denied::SUFFIXES.iter().map(|a| a.text).collect(),
            ),
            (
                "bigquery::FAMILIES".into(),
                bigquery::FAMILIES.iter().map(|(n, _)| *n).collect(),
            ),
            (
                "clickhouse::COMBINATORS".into(),
                clickhouse::COMBINATORS.to_vec(),
            ),
        ];
        for (i, list) in ALL_DIALECT_DENIED.iter().enumerate() {
            lists.push((
                format!("dialect denied #{i}"),
                list.iter().map(|(n, _)| *n).collect(),
            ));
        }
        for affix in denied::PREFIXES.iter().chain(denied::SUFFIXES) {
            lists.push((format!("except of {}", affix.text), affix.except.to_vec()));
        }
        for (family, members) in bigquery::FAMILIES {
            lists.push((format!("bigquery family {family}"), members.to_vec()));
        }
        for dialect in SqlDialect::ALL {
            for (i, list) in Catalogue::of(dialect).allowed.iter().enumerate() {
                lists.push((format!("{dialect:?} allowed #{i}"), list.to_vec()));
            }
        }
        lists
    }

    #[test]
    fn lists_are_sorted_unique_and_lower_case() {
        for (what, list) in all_name_lists() {
            for name in &list {
                assert!(!name.is_empty(), "{what}: empty name");
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_graphic() && !b.is_ascii_uppercase()),
                    "{what}: {name:?} is not lower-case ASCII"
                );
            }
            for pair in list.windows(2) {
                assert!(
                    pair[0] < pair[1],
                    "{what}: {:?} must sort after {:?}",
                    pair[1],
                    pair[0]
                );
            }
        }
    }

    #[test]
    fn names_fit_the_folding_buffer() {
        for (what, list) in all_name_lists() {
            assert!(
                list.iter().all(|n| n.len() <= folded::WHOLE_MAX),
                "{what}: name too long"
            );
        }
        assert!(
            denied::PREFIXES
                .iter()
                .all(|a| a.text.len() <= folded::HEAD)
        );
        assert!(
            denied::SUFFIXES
                .iter()
                .all(|a| a.text.len() <= folded::TAIL)
        );
    }

    #[test]
    fn no_allowed_name_is_denied() {
        for dialect in SqlDialect::ALL {
            let catalogue = Catalogue::of(dialect);
            let families = catalogue
                .families
                .iter()
                .flat_map(|(_, members)| members.iter());
            for name in catalogue
                .allowed
                .iter()
                .flat_map(|list| list.iter())
                .chain(families)
            {
                // Deliberate: Generic allows every engine's built-ins but denies every engine's
                // dangerous names, so SQLite's `glob` and Trino's `merge` are denied there.
                let engine_specific = ALL_DIALECT_DENIED
                    .iter()
                    .any(|list| class_of(list, name.as_bytes()).is_some());
                if dialect == SqlDialect::Generic && engine_specific {
                    continue;
                }
                assert_eq!(
                    catalogue.denied(&FoldedName::new(name)),
                    None,
                    "{dialect:?}: {name} is both allowed and denied"
                );
            }
        }
    }

    #[test]
    fn affix_exceptions_have_the_affix() {
        for affix in denied::PREFIXES {
            assert!(
                affix.except.iter().all(|e| e.starts_with(affix.text)),
                "{}",
                affix.text
            );
        }
        for affix in denied::SUFFIXES {
            assert!(
                affix.except.iter().all(|e| e.ends_with(affix.text)),
                "{}",
                affix.text
            );
        }
    }

    #[test]
    fn shared_denied_names_are_denied_in_every_dialect_however_written() {
        for dialect in SqlDialect::ALL {
            for (name, class) in denied::EXACT {
                assert_eq!(
                    verdict(dialect, name),
                    Denied(*class),
                    "{dialect:?}: {name}"
                );
                let upper = name.to_ascii_uppercase();
                assert_eq!(
                    verdict(dialect, &upper),
                    Denied(*class),
                    "{dialect:?}: {upper}"
                );
                let quoted = format!("some_schema.\"{upper}\"");
                assert_eq!(
                    verdict(dialect, &quoted),
                    Denied(*class),
                    "{dialect:?}: {quoted}"
                );
            }
        }
    }

    #[test]
    fn generic_dialects_deny_every_dialect_specific_name() {
        for list in ALL_DIALECT_DENIED {
            for (name, class) in *list {
                assert_eq!(verdict(SqlDialect::Generic, name), Denied(*class), "{name}");
                assert_eq!(verdict(SqlDialect::Ansi, name), Denied(*class), "{name}");
            }
        }
    }

    #[test]
    fn everyday_analyst_functions_pass_in_every_dialect() {
        for dialect in SqlDialect::ALL {
            for name in [
                "count",
                "SUM",
                "avg",
                "min",
                "max",
                "coalesce",
                "row_number",
                "lag",
                "upper",
            ] {
                assert_eq!(verdict(dialect, name), Allowed, "{dialect:?}: {name}");
            }
        }
    }

    #[test]
    fn prefixes_and_suffixes_deny() {
        use FunctionClass::*;
        let cases = [
            ("pg_ls_waldir", FileAccess),
            ("LO_FROM_BYTEA", SideEffect),
            ("xp_cmdshell", ExecutesSql),
            ("sp_oacreate", ExecutesSql),
            ("SYSTEM$ABORT_SESSION", Administrative),
            ("pg_advisory_unlock_all", Lock),
            ("dblink_connect", Network),
            ("mysql_scan", Network),
            ("sqlite_scan", FileAccess),
            ("iceberg_scan", FileAccess),
            ("odd_scan", FileAccess),
            ("mysql_query", ExecutesSql),
            ("something_query", ExecutesSql),
        ];
        for dialect in SqlDialect::ALL {
            for (name, class) in cases {
                assert_eq!(verdict(dialect, name), Denied(class), "{dialect:?}: {name}");
            }
        }
        assert_eq!(verdict(SqlDialect::Postgres, "json_query"), Allowed);
    }

    #[test]
    fn quoting_and_qualification_decide_whether_a_name_is_the_builtin() {
        use SqlDialect::*;
        assert_eq!(verdict(Postgres, "\"Upper\""), Unknown);
        assert_eq!(verdict(Postgres, "\"upper\""), Allowed);
        assert_eq!(verdict(Postgres, "\"pg_catalog\".\"upper\""), Allowed);
        assert_eq!(verdict(Postgres, "\"PG_CATALOG\".upper"), Unknown);
        assert_eq!(verdict(Postgres, "my_schema.upper"), Unknown);
        assert_eq!(verdict(Postgres, "pg_catalog.upper"), Allowed);
        assert_eq!(verdict(Postgres, "my_udf"), Unknown);
        assert_eq!(
            verdict(Postgres, "\"PG_SLEEP\""),
            Denied(FunctionClass::Sleep)
        );
        assert_eq!(verdict(MySql, "pg_catalog.upper"), Unknown);
        assert_eq!(verdict(Snowflake, "\"upper\""), Unknown);
        assert_eq!(verdict(Snowflake, "\"UPPER\""), Allowed);
        assert_eq!(verdict(ClickHouse, "\"toDate\""), Allowed);
    }

    #[test]
    fn odd_names_are_unknown() {
        let empty = ObjectName(vec![]);
        assert_eq!(classify(SqlDialect::Postgres, &empty), Unknown);
        let computed = ObjectName(vec![ObjectNamePart::Function(ObjectNamePartFunction {
            name: Ident::new("IDENTIFIER"),
            args: vec![],
        })]);
        assert_eq!(classify(SqlDialect::Snowflake, &computed), Unknown);
        for name in ["", "é", "sumé", "ifé", "_scan", "x.", "\u{130}f"] {
            assert_ne!(verdict(SqlDialect::ClickHouse, name), Allowed, "{name:?}");
        }
        let long = |head: &str, tail: &str| format!("{head}{}{tail}", "x".repeat(100));
        let sleep = long("PG_SLEEP", "");
        assert_eq!(
            verdict(SqlDialect::Postgres, &sleep),
            Denied(FunctionClass::Sleep)
        );
        let scan = long("my", "_SCAN");
        assert_eq!(
            verdict(SqlDialect::DuckDb, &scan),
            Denied(FunctionClass::FileAccess)
        );
        assert_eq!(verdict(SqlDialect::ClickHouse, &long("sum", "if")), Unknown);
    }
}
