//! One time limit for catalogue calls of the server adapters: a server that never answers
//! must not hang the tool that asked.

use nao_core::{DEFAULT_TIMEOUT, DialectError};

/// `call`, stopped after the default statement timeout with [`DialectError::Timeout`] for
/// `database`.
pub(crate) async fn bounded<T>(
    database: &str,
    call: impl Future<Output = Result<T, DialectError>>,
) -> Result<T, DialectError> {
    tokio::time::timeout(DEFAULT_TIMEOUT, call)
        .await
        .unwrap_or_else(|_| {
            Err(DialectError::Timeout {
                database: database.to_owned(),
                limit: DEFAULT_TIMEOUT,
            })
        })
}
