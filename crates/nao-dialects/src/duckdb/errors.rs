//! DuckDB errors as [`DialectError`] kinds, keeping DuckDB's own message.
//!
//! DuckDB reports failures as text of the form `"<Type> Error: <message>"` (`Parser Error`,
//! `Catalog Error`, `Binder Error`, …); the C API gives no richer code for statement results,
//! so the type prefix is the code we keep and the kind is read from it.

use std::any::Any;

use nao_core::DialectError;

use crate::pump::StopReason;

/// Why the adapter interrupted a statement, so an "Interrupted" error can say which: the
/// pump's reasons (the caller's token, the time limit), or DuckDB's own spill quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Interrupt {
    /// Cancelled or out of time.
    Stopped(StopReason),
    /// The database's spill directory grew past its size limit (bytes).
    SpillFull(u64),
}

/// The error for a statement interrupted for `why`.
pub(super) fn interrupted(database: &str, why: Interrupt) -> DialectError {
    match why {
        Interrupt::Stopped(reason) => reason.error(database),
        Interrupt::SpillFull(max_bytes) => {
            let size = crate::sizes::human(usize::try_from(max_bytes).unwrap_or(usize::MAX));
            DialectError::ResourceLimit {
                database: database.to_owned(),
                limit: format!("spill space of {size}"),
                message: format!(
                    "the statement outgrew the memory limit and wrote more than {size} of \
                     temporary data to disk, so it was stopped"
                ),
                code: None,
            }
        }
    }
}

/// Maps a DuckDB error to its kind. `stop` is why the statement was interrupted, if it was.
pub(super) fn from_duckdb(
    database: &str,
    error: duckdb::Error,
    stop: Option<Interrupt>,
) -> DialectError {
    let message = error.to_string();
    classify(database, message, stop, Some(Box::new(error)))
}

/// The error for a panic the duckdb crate raised while fetching or converting a batch.
pub(super) fn from_panic(
    database: &str,
    payload: &(dyn Any + Send),
    stop: Option<Interrupt>,
) -> DialectError {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("the DuckDB driver panicked");
    classify(database, text.to_owned(), stop, None)
}

/// Classifies a DuckDB message.
fn classify(
    database: &str,
    message: String,
    stop: Option<Interrupt>,
    source: Option<nao_core::BoxError>,
) -> DialectError {
    let database = database.to_owned();
    let code = error_type(&message).map(str::to_owned);
    let lower = message.to_ascii_lowercase();
    let kind = code.as_deref().unwrap_or("");
    // By the type prefix only: a conversion error quoting a value "interrupted" is no interrupt.
    // A panic's text carries DuckDB's message inside the driver's, so it has no prefix.
    if kind.eq_ignore_ascii_case("INTERRUPT Error")
        || (code.is_none() && message.contains("INTERRUPT Error:"))
    {
        return match stop {
            Some(why) => interrupted(&database, why),
            // Nobody here asked: DuckDB interrupts a statement's other threads when one fails,
            // and now and then (about once in 50 runs of a cast failing midway, DuckDB 1.5.6)
            // reports that interrupt instead of the failure. Not a cancellation, so an engine
            // error that says what happened.
            None => DialectError::Engine {
                database,
                message: format!(
                    "{message} (DuckDB stopped the statement itself, not at nao's request: one \
                     of its threads most likely failed; running it again shows that error)"
                ),
                code,
                source,
            },
        };
    }
    let missing = lower.contains("does not exist")
        || lower.contains("not found")
        || lower.contains("could not be found");
    let refused = kind == "Permission Error"
        || lower.contains("read-only")
        || lower.contains("read only mode")
        || lower.contains("configuration has been locked")
        || lower.contains("disabled by configuration")
        || lower.contains("external access is disabled");
    if refused {
        return DialectError::Permission {
            database,
            message,
            code,
        };
    }
    if kind == "Out of Memory Error" {
        // Only a failed write to the spill directory is about spill space. DuckDB's other
        // lines ("no temporary directory is specified. Unused blocks cannot be offloaded",
        // the advice to SET temp_directory) come with every out-of-memory error.
        let spill =
            lower.contains("failed to offload") || lower.contains("max_temp_directory_size");
        let limit = if spill {
            "spill space (the memory limit was reached and the spill directory is full)"
        } else {
            "memory limit"
        };
        return DialectError::ResourceLimit {
            database,
            limit: limit.to_owned(),
            message: first_line(&message).to_owned(),
            code,
        };
    }
    match kind {
        "Parser Error" => DialectError::Syntax {
            database,
            message,
            code,
        },
        "Catalog Error" if missing => DialectError::UnknownObject {
            database,
            message,
            code,
        },
        "Binder Error" if missing || lower.contains("referenced column") => {
            DialectError::UnknownObject {
                database,
                message,
                code,
            }
        }
        // Other binder errors are planning errors: wrong types, ambiguous names, bad GROUP BY.
        "Binder Error" => DialectError::Syntax {
            database,
            message,
            code,
        },
        "IO Error" | "Connection Error" => DialectError::Connection {
            database,
            message,
            source,
        },
        _ => DialectError::Engine {
            database,
            message,
            code,
            source,
        },
    }
}

/// The first line of a message: DuckDB follows an out-of-memory error with lines about its
/// temporary directory ("launched in in-memory mode", which a sealed database is not) and
/// "Possible solutions" that are the host's to apply (`SET memory_limit`, `SET threads`), not
/// the model's, which cannot change settings.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or(message).trim_end()
}

/// The `"<Type> Error"` prefix of a DuckDB message, if it has one.
fn error_type(message: &str) -> Option<&str> {
    let (head, _) = message.split_once(": ")?;
    (head.ends_with(" Error") && head.len() < 40).then_some(head)
}

/// Whether `error` is one of DuckDB's read-only layers refusing a statement: the database
/// opened read-only, external access off, the locked configuration (see [`open`](super::open)).
/// An embedded database has no roles or grants, so every permission refusal is one of them: the
/// guard's reading and DuckDB's disagreed.
pub(super) fn refused_as_writing(error: &DialectError) -> bool {
    matches!(error, DialectError::Permission { .. })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn kind(message: &str) -> &'static str {
        classify("db", message.to_owned(), None, None).kind_code()
    }

    #[test]
    fn duckdb_messages_map_to_kinds() {
        assert_eq!(
            kind("Parser Error: syntax error at or near \"SELEC\""),
            "syntax"
        );
        assert_eq!(
            kind("Catalog Error: Table with name t does not exist!\nDid you mean \"x\"?"),
            "unknown_object"
        );
        assert_eq!(
            kind("Binder Error: Referenced column \"c\" not found in FROM clause!"),
            "unknown_object"
        );
        assert_eq!(
            kind("Binder Error: No function matches the given name and argument types"),
            "syntax"
        );
        assert_eq!(
            kind(
                "Invalid Input Error: Cannot execute statement of type \"INSERT\" on database \
                 \"db\" which is attached in read-only mode!"
            ),
            "permission"
        );
        assert_eq!(
            kind(
                "Permission Error: File system LocalFileSystem has been disabled by configuration"
            ),
            "permission"
        );
        let cancelled = classify(
            "db",
            "INTERRUPT Error: Interrupted!".into(),
            Some(Interrupt::Stopped(StopReason::Cancelled)),
            None,
        );
        assert_eq!(cancelled.kind_code(), "cancelled");
        assert_eq!(kind("IO Error: Could not read file"), "connection");
        assert_eq!(
            kind("Conversion Error: Could not convert string 'x' to INT32"),
            "engine"
        );
        let timeout = classify(
            "db",
            "INTERRUPT Error: Interrupted!".into(),
            Some(Interrupt::Stopped(StopReason::Timeout(
                Duration::from_secs(1),
            ))),
            None,
        );
        assert_eq!(timeout.kind_code(), "timeout");
    }

    #[test]
    fn an_interrupt_nobody_asked_for_is_an_engine_error() {
        let unasked = classify("db", "INTERRUPT Error: Interrupted!".into(), None, None);
        assert_eq!(unasked.kind_code(), "engine");
        assert!(
            unasked.to_string().contains("not at nao's request"),
            "{unasked}"
        );
        let in_a_panic = classify(
            "db",
            "called `Result::unwrap()` on an `Err` value: INTERRUPT Error: Interrupted!".into(),
            Some(Interrupt::Stopped(StopReason::Cancelled)),
            None,
        );
        assert_eq!(in_a_panic.kind_code(), "cancelled");
        // A value quoted in another error is not an interrupt, asked for or not.
        assert_eq!(
            kind("Conversion Error: Could not convert string 'interrupted' to INT32"),
            "engine"
        );
        let quoted = classify(
            "db",
            "Conversion Error: Could not convert string 'Interrupted' to INT32".into(),
            Some(Interrupt::Stopped(StopReason::Cancelled)),
            None,
        );
        assert_eq!(quoted.kind_code(), "engine");
    }

    #[test]
    fn out_of_memory_is_a_resource_limit_without_the_settings_advice() {
        let memory = classify(
            "db",
            "Out of Memory Error: failed to allocate data of size 16.0 MiB (239.0 MiB/244.1 MiB \
             used)\n\nPossible solutions:\n* Reducing the number of threads (SET threads=X)"
                .into(),
            None,
            None,
        );
        assert_eq!(memory.kind_code(), "resource_limit");
        let text = memory.to_string();
        assert!(text.contains("memory limit"), "{text}");
        assert!(text.contains("244.1 MiB"), "{text}");
        assert!(!text.contains("SET threads"), "{text}");
        let advice = classify(
            "db",
            "Out of Memory Error: failed to allocate data of size 1.0 GiB (56.0 KiB/244.1 MiB \
             used)\nDatabase is launched in in-memory mode and no temporary directory is \
             specified.\nUnused blocks cannot be offloaded to disk.\n\nPossible solutions:\n\
             * Setting a temp_directory (SET temp_directory='...')"
                .into(),
            None,
            None,
        );
        assert!(
            advice.to_string().contains("the memory limit allowed"),
            "{advice}"
        );
        let spill = classify(
            "db",
            "Out of Memory Error: failed to offload data block of size 256.0 KiB".into(),
            None,
            None,
        );
        assert!(spill.to_string().contains("spill space"), "{spill}");
    }

    #[test]
    fn the_code_is_the_error_type() {
        let e = classify("db", "Parser Error: x".into(), None, None);
        assert_eq!(e.code(), Some("Parser Error"));
        assert_eq!(error_type("no prefix here"), None);
    }
}
