//! Gate 3 through ADBC: before the first statement, what the login may do beyond reading is
//! read where the vendor can say, and a privileged login is refused unless the host allows it
//! (`allow_privileged`).
//!
//! - **PostgreSQL** (the vendor the driver names): the native adapter's catalogue queries and
//!   verdict (`pg_privileges`, one text for both), on a connection of its own set up as every
//!   statement's will be (read-only session, `SET ROLE`), with the default statement timeout,
//!   closed afterwards. When the queries cannot run (a PostgreSQL-like server without
//!   `pg_has_role`), the connection is refused with that error; `allow_privileged` opens it.
//! - **Other vendors**: no check. SQLite has no roles and is opened read-only; Snowflake,
//!   BigQuery and Flight SQL servers have no grant catalogue a driver can read the same way,
//!   so the credentials' own rights are the fence there (see the [module docs](super#read-only)).

use adbc_core::error::Error;
use adbc_core::{Connection as _, Statement as _};
use adbc_driver_manager::ManagedConnection;
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use arrow_schema::DataType;
use nao_core::guard::SqlDialect;
use nao_core::{DEFAULT_TIMEOUT, DialectError};

use super::errors::ErrorContext;
use super::info::DriverInfo;
use crate::pg_privileges::{self, Finding, Who};

/// Whether the driver's vendor can say what a login may do (PostgreSQL), so that [`check`]
/// applies: other vendors are not asked, and get no probe connection.
pub(super) fn applies_to(info: &DriverInfo) -> bool {
    info.sql_dialect() == SqlDialect::Postgres
}

/// Refuses a privileged PostgreSQL login (see the module docs). `probe` is a fresh connection
/// whose session setup is done; it is used for the check only (its statement timeout is
/// changed), and dropped by the caller.
pub(super) fn check(
    probe: &mut ManagedConnection,
    context: &ErrorContext<'_>,
    allow: bool,
) -> Result<(), DialectError> {
    match postgres_findings(probe, context) {
        Ok((who, findings, total)) => {
            pg_privileges::verdict(context.database, &who, &findings, total, allow)
        }
        Err(error) if allow => {
            tracing::warn!(
                database = context.database,
                %error,
                "the PostgreSQL privilege check could not run; opening anyway because the \
                 host allowed privileged connections (allow_privileged)"
            );
            Ok(())
        }
        Err(error) => Err(DialectError::Permission {
            database: context.database.to_owned(),
            message: format!(
                "refusing to open: what the login may do beyond reading could not be read \
                 ({error}). Connect as a role that may only read, or, when this server has no \
                 such catalogue, add allow_privileged=true to the URL \
                 (OpenOptions::allow_privileged) to open without the check"
            ),
            code: None,
        }),
    }
}

/// Runs the PostgreSQL queries: whom the session runs as, its findings, and how many relations
/// it may write to or owns.
fn postgres_findings(
    probe: &mut ManagedConnection,
    context: &ErrorContext<'_>,
) -> Result<(Who, Vec<Finding>, i64), DialectError> {
    let limit = DEFAULT_TIMEOUT.as_millis();
    run(probe, &format!("SET statement_timeout = {limit}"), context)?;
    let who_rows = run(probe, pg_privileges::WHO, context)?;
    let who_batch = who_rows
        .iter()
        .find(|b| b.num_rows() > 0)
        .ok_or_else(|| unexpected(context, "no row said who the session is"))?;
    let who = Who {
        current: text(who_batch, 0, 0, context)?.unwrap_or_default(),
        session: text(who_batch, 1, 0, context)?.unwrap_or_default(),
        session_is_superuser: flag(who_batch, 2, 0, context)?,
        database: text(who_batch, 3, 0, context)?.unwrap_or_default(),
        schema: text(who_batch, 4, 0, context)?.unwrap_or_default(),
    };
    let mut findings = Vec::new();
    let mut total = 0;
    for batch in run(probe, &pg_privileges::findings_sql_with_literals(), context)? {
        for row in 0..batch.num_rows() {
            let kind = text(&batch, 0, row, context)?.unwrap_or_default();
            if kind == "relation" {
                total = number(&batch, 3, row, context)?.unwrap_or(0);
            }
            let name = text(&batch, 1, row, context)?.unwrap_or_default();
            let detail = text(&batch, 2, row, context)?;
            findings.push(Finding::from_row(&kind, name, detail));
        }
    }
    Ok((who, findings, total))
}

/// Runs `sql` and reads its whole (small) result.
fn run(
    connection: &mut ManagedConnection,
    sql: &str,
    context: &ErrorContext<'_>,
) -> Result<Vec<RecordBatch>, DialectError> {
    let adbc = |e: Error| context.adbc(&e);
    let mut statement = connection.new_statement().map_err(adbc)?;
    statement.set_sql_query(sql).map_err(adbc)?;
    let reader = statement.execute().map_err(adbc)?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| context.stream(&e))
}

/// The text in `column` of `row` (`None` for NULL).
fn text(
    batch: &RecordBatch,
    column: usize,
    row: usize,
    context: &ErrorContext<'_>,
) -> Result<Option<String>, DialectError> {
    let array = cell(batch, column, context)?;
    if array.is_null(row) {
        return Ok(None);
    }
    let value = match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(row),
        DataType::LargeUtf8 => array.as_string::<i64>().value(row),
        DataType::Utf8View => array.as_string_view().value(row),
        other => return Err(unexpected(context, &format!("text came as {other}"))),
    };
    Ok(Some(value.to_owned()))
}

/// The boolean in `column` of `row` (NULL is false).
fn flag(
    batch: &RecordBatch,
    column: usize,
    row: usize,
    context: &ErrorContext<'_>,
) -> Result<bool, DialectError> {
    let array = cell(batch, column, context)?;
    match array.as_boolean_opt() {
        Some(values) => Ok(!values.is_null(row) && values.value(row)),
        None => Err(unexpected(
            context,
            &format!("a boolean came as {}", array.data_type()),
        )),
    }
}

/// The `bigint` in `column` of `row`.
fn number(
    batch: &RecordBatch,
    column: usize,
    row: usize,
    context: &ErrorContext<'_>,
) -> Result<Option<i64>, DialectError> {
    let array = cell(batch, column, context)?;
    match array.as_primitive_opt::<Int64Type>() {
        Some(values) if values.is_null(row) => Ok(None),
        Some(values) => Ok(Some(values.value(row))),
        None => Err(unexpected(
            context,
            &format!("a bigint came as {}", array.data_type()),
        )),
    }
}

fn cell<'b>(
    batch: &'b RecordBatch,
    column: usize,
    context: &ErrorContext<'_>,
) -> Result<&'b dyn Array, DialectError> {
    if column < batch.num_columns() {
        Ok(batch.column(column).as_ref())
    } else {
        Err(unexpected(
            context,
            &format!("{} columns instead of more", batch.num_columns()),
        ))
    }
}

fn unexpected(context: &ErrorContext<'_>, what: &str) -> DialectError {
    DialectError::Engine {
        database: context.database.to_owned(),
        message: format!("the privilege check's answer was not understood: {what}"),
        code: None,
        source: None,
    }
}
