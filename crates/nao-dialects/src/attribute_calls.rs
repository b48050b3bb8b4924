//! Qualified names that a PostgreSQL-like engine runs as function calls when they are not
//! columns (`t.name` as `name(t)`, attribute notation), for adapters that reach such an engine
//! through another protocol: ADBC (the PostgreSQL driver) and Flight SQL servers whose SQL
//! dialect calls functions through attributes (PostgreSQL, Redshift, and the generic dialects,
//! which the guard treats as possibly doing so).
//!
//! The guard proves what it can from the statement and lists the rest
//! ([`ReadOnlySql::attribute_refs`]). The native PostgreSQL adapter checks those against the
//! catalogue in the statement's own snapshot (`postgres/attribute_check.rs`). Here, before the
//! statement runs, the adapter's own catalogue proves each name a column of its relation; a
//! name it cannot prove (its relation cannot be named from the statement, the catalogue does
//! not describe it, or lists no such column; names compared as the engine looks them up,
//! unquoted ones folded to lower case) is refused:
//! - on PostgreSQL and Redshift, when a function of that name exists (`pg_catalog.pg_proc`,
//!   asked through the adapter), as the native adapter decides;
//! - on the generic dialects (engines that may or may not call functions this way), when the
//!   catalogue describes the relation without that column (as an unknown column, which it is
//!   on an engine that calls no function this way); a relation the guard cannot name is let
//!   through there, since such engines have no common function catalogue to ask.
//!
//! The catalogue is read just before the statement, not in its snapshot: a column dropped and
//! a function created in between by someone with DDL rights would slip through; the adapter's
//! own connection is read-only.

use std::collections::HashMap;

use futures_util::TryStreamExt;
use nao_core::guard::{ReadOnlySql, SqlDialect};
use nao_core::{Dialect, DialectError, ExecOptions, TableRef, TableSchema};

/// Refuses `sql` when one of its attribute references may be a function call (see the module
/// docs for what counts as proof on each dialect).
///
/// # Errors
/// [`DialectError::Permission`] naming the first reference refused; the catalogue's own errors
/// other than an unknown table.
pub(crate) async fn prove_columns(
    dialect: &dyn Dialect,
    sql: &ReadOnlySql,
) -> Result<(), DialectError> {
    if sql.attribute_refs().is_empty() {
        return Ok(());
    }
    let postgres_like = matches!(sql.dialect(), SqlDialect::Postgres | SqlDialect::Redshift);
    let mut described: HashMap<TableRef, Option<TableSchema>> = HashMap::new();
    // Names not proven columns, each with why.
    let mut unproven: Vec<(String, String)> = Vec::new();
    for reference in sql.attribute_refs() {
        let name = reference.folded_name();
        let Some(relation) = reference.relation() else {
            if postgres_like {
                let why = "the relation it qualifies cannot be named from the statement";
                unproven.push((name, why.to_owned()));
            }
            continue;
        };
        let table = TableRef {
            schema: relation.schema().map(str::to_owned),
            name: relation.name().to_owned(),
        };
        if !described.contains_key(&table) {
            let schema = match dialect.describe_table(&table).await {
                Ok(schema) => Some(schema),
                Err(DialectError::UnknownObject { .. }) => None,
                Err(error) => return Err(error),
            };
            described.insert(table.clone(), schema);
        }
        let is_column = described
            .get(&table)
            .and_then(Option::as_ref)
            .is_some_and(|schema| schema.columns.iter().any(|c| c.name == name));
        if !is_column {
            let why = format!("the catalogue lists no column {name} in {table}");
            if !postgres_like {
                // Not run: on an engine that calls no function this way it would fail as an
                // unknown column anyway, and that is what the model needs to hear.
                return Err(DialectError::UnknownObject {
                    database: dialect.name().to_owned(),
                    message: format!(
                        "{why} (checked before running: a qualified name that is not a column \
                         may run as a function call on this engine)"
                    ),
                    code: None,
                });
            }
            unproven.push((name, why));
        }
    }
    if unproven.is_empty() {
        return Ok(());
    }
    let functions = existing_functions(dialect, unproven.iter().map(|(n, _)| n.as_str())).await?;
    match unproven.iter().find(|(name, _)| functions.contains(name)) {
        Some((name, why)) => Err(refused(dialect, name, why)),
        None => Ok(()),
    }
}

/// Which of `names` name a function in `pg_catalog.pg_proc` (any schema, any arguments: the
/// check does not follow PostgreSQL's overload resolution), asked through `dialect`. The names
/// travel hex-encoded, so no quoting rule of the server matters.
async fn existing_functions<'a>(
    dialect: &dyn Dialect,
    names: impl Iterator<Item = &'a str>,
) -> Result<Vec<String>, DialectError> {
    let wanted: Vec<String> = names
        .map(|name| {
            let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
            format!("convert_from(decode('{hex}', 'hex'), 'UTF8')")
        })
        .collect();
    let query = format!(
        "SELECT DISTINCT p.proname::text AS name FROM pg_catalog.pg_proc p \
         WHERE p.proname::text IN ({})",
        wanted.join(", ")
    );
    // The adapter's own catalogue query, not the model's: it reads pg_proc and nothing else.
    let statement = ReadOnlySql::new_unchecked_allowing_writes(query, dialect.sql_dialect());
    let batches: Vec<_> = dialect
        .execute(&statement, &ExecOptions::default())
        .await?
        .try_collect()
        .await?;
    let mut found = Vec::new();
    for batch in &batches {
        // Anything but text is no answer: the statement is refused rather than let through.
        let names = strings(batch.column(0)).ok_or_else(|| DialectError::Engine {
            database: dialect.name().to_owned(),
            message: format!(
                "the function catalogue answered {} instead of names, so attribute notation \
                 cannot be checked",
                batch.column(0).data_type()
            ),
            code: None,
            source: None,
        })?;
        found.extend(names);
    }
    Ok(found)
}

/// The values of a text column; `None` for any other type.
fn strings(array: &arrow_array::ArrayRef) -> Option<Vec<String>> {
    use arrow_array::cast::AsArray;
    use arrow_schema::DataType;
    let owned = |v: Option<&str>| v.map(str::to_owned);
    Some(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().iter().filter_map(owned).collect(),
        DataType::LargeUtf8 => array.as_string::<i64>().iter().filter_map(owned).collect(),
        DataType::Utf8View => array.as_string_view().iter().filter_map(owned).collect(),
        _ => return None,
    })
}

fn refused(dialect: &dyn Dialect, name: &str, why: &str) -> DialectError {
    DialectError::Permission {
        database: dialect.name().to_owned(),
        message: format!(
            "{name} is used as a column, but {why}; this engine would run a name that is not a \
             column as a call of the function {name}() on the row (attribute notation), which is \
             not allowed. Check the column names with describe_table; to use a function, call it \
             explicitly."
        ),
        code: None,
    }
}
