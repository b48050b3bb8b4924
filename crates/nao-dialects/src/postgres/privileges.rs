//! Gate 3 over tokio-postgres: at open, the adapter reads what its role may do beyond reading
//! (the queries and their meaning are in `pg_privileges`, shared with the ADBC adapter) and
//! refuses to open a privileged connection unless the host insists (`allow_privileged`).
//! The queries run in a READ ONLY transaction with the default statement timeout.

use nao_core::{DEFAULT_TIMEOUT, DialectError};
use tokio_postgres::Client;

pub(super) use crate::pg_privileges::set_role_statement;
use crate::pg_privileges::{FINDINGS, Finding, LISTED_RELATIONS, PRIVILEGED_ROLES, WHO, Who};

use super::errors;

/// Reads the role's privileges and refuses a privileged one (`allow` false). With `allow`,
/// a privileged role opens with a warning in the log. `client` is a fresh connection, its
/// session setup (and `SET ROLE`) done.
pub(super) async fn check(
    database: &str,
    client: &mut Client,
    allow: bool,
) -> Result<(), DialectError> {
    let fail = |e| errors::from_postgres(database, e, None, DEFAULT_TIMEOUT);
    let txn = client
        .build_transaction()
        .read_only(true)
        .start()
        .await
        .map_err(fail)?;
    let limit = DEFAULT_TIMEOUT.as_millis();
    txn.batch_execute(&format!("SET LOCAL statement_timeout = {limit}"))
        .await
        .map_err(fail)?;
    let row = txn.query_one(WHO, &[]).await.map_err(fail)?;
    let who = Who {
        current: row.get(0),
        session: row.get(1),
        session_is_superuser: row.get(2),
        database: row.get(3),
        schema: row.get(4),
    };
    let roles: Vec<&str> = PRIVILEGED_ROLES.to_vec();
    let rows = txn
        .query(FINDINGS, &[&roles, &LISTED_RELATIONS])
        .await
        .map_err(fail)?;
    txn.rollback().await.map_err(fail)?;
    let mut findings = Vec::with_capacity(rows.len());
    let mut relations_total = 0_i64;
    for row in rows {
        let kind: &str = row.get(0);
        if kind == "relation" {
            relations_total = row.get::<_, Option<i64>>(3).unwrap_or(0);
        }
        findings.push(Finding::from_row(kind, row.get(1), row.get(2)));
    }
    crate::pg_privileges::verdict(database, &who, &findings, relations_total, allow)
}
