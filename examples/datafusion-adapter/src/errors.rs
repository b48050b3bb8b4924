//! DataFusion's errors as [`DialectError`] kinds.
//!
//! DataFusion has no error codes and puts most planning errors in one variant
//! (`DataFusionError::Plan`) with a message; the kind comes from the innermost DataFusion error
//! (`find_root`: below the context and diagnostics DataFusion wraps around it) and, for planning
//! errors, from the words DataFusion starts its message with. The code is the name of that
//! innermost variant (`Plan`, `SQL`, `SchemaError`, …), so that hosts can count them.

use datafusion::error::DataFusionError;
use datafusion::sql::sqlparser::parser::ParserError;
use nao_dialects::core::DialectError;

/// What SQLOptions says when it refuses a plan (gate 2), as DataFusion 54 words it.
const REFUSALS: [&str; 3] = [
    "DDL not supported",
    "DML not supported",
    "Statement not supported",
];

/// Whether a planning error says a name does not exist, as DataFusion 54 words it.
fn names_something_missing(text: &str) -> bool {
    text.starts_with("Invalid function '")
        || (["table '", "table function '", "Function "]
            .iter()
            .any(|p| text.starts_with(p))
            && text.contains(" not found"))
}

/// Maps a DataFusion error on `database` to its [`DialectError`] kind, keeping DataFusion's
/// message (without a backtrace) and the name of its innermost variant as the code.
pub fn classify(database: &str, error: &DataFusionError) -> DialectError {
    let root = first_of(error.find_root());
    let message = error.strip_backtrace();
    let database = database.to_owned();
    let code = Some(variant_name(root).to_owned());
    match root {
        DataFusionError::SQL(parse, _) => match parse.as_ref() {
            ParserError::RecursionLimitExceeded => DialectError::ResourceLimit {
                database,
                limit: "parser's nesting depth".into(),
                message,
                code,
            },
            _ => DialectError::Syntax {
                database,
                message,
                code,
            },
        },
        DataFusionError::SchemaError(schema, _) => match schema.as_ref() {
            datafusion::common::SchemaError::FieldNotFound { .. } => DialectError::UnknownObject {
                database,
                message,
                code,
            },
            _ => DialectError::Syntax {
                database,
                message,
                code,
            },
        },
        DataFusionError::Plan(text) if REFUSALS.iter().any(|r| text.starts_with(r)) => {
            DialectError::Permission {
                database,
                message,
                code,
            }
        }
        DataFusionError::Plan(text) if names_something_missing(text) => {
            DialectError::UnknownObject {
                database,
                message,
                code,
            }
        }
        // Other planning errors are the statement's: wrong types, wrong arity, ambiguity.
        DataFusionError::Plan(_) => DialectError::Syntax {
            database,
            message,
            code,
        },
        DataFusionError::ResourcesExhausted(_) => DialectError::ResourceLimit {
            database,
            limit: "memory limit of this database".into(),
            message,
            code,
        },
        DataFusionError::NotImplemented(_) => DialectError::Unsupported {
            database,
            what: message,
        },
        _ => DialectError::Engine {
            database,
            message,
            code,
            source: None,
        },
    }
}

/// The first error of a collection (DataFusion gathers the errors of each select item), the
/// error itself otherwise.
fn first_of(error: &DataFusionError) -> &DataFusionError {
    match error {
        DataFusionError::Collection(errors) => errors.first().map_or(error, |e| e.find_root()),
        other => other,
    }
}

fn variant_name(error: &DataFusionError) -> &'static str {
    match error {
        DataFusionError::ArrowError(..) => "ArrowError",
        DataFusionError::ParquetError(..) => "ParquetError",
        DataFusionError::ObjectStore(..) => "ObjectStore",
        DataFusionError::IoError(..) => "IoError",
        DataFusionError::SQL(..) => "SQL",
        DataFusionError::NotImplemented(..) => "NotImplemented",
        DataFusionError::Internal(..) => "Internal",
        DataFusionError::Plan(..) => "Plan",
        DataFusionError::Configuration(..) => "Configuration",
        DataFusionError::SchemaError(..) => "SchemaError",
        DataFusionError::Execution(..) => "Execution",
        DataFusionError::ExecutionJoin(..) => "ExecutionJoin",
        DataFusionError::ResourcesExhausted(..) => "ResourcesExhausted",
        DataFusionError::External(..) => "External",
        _ => "Other",
    }
}

#[cfg(test)]
mod tests {
    use datafusion::common::{Column, SchemaError};

    use super::*;

    #[test]
    fn planning_errors_map_by_what_they_say() {
        let kind = |e: DataFusionError| classify("df", &e).kind_code();
        assert_eq!(
            kind(DataFusionError::Plan(
                "DDL not supported: CreateMemoryTable".into()
            )),
            "permission"
        );
        assert_eq!(
            kind(DataFusionError::Plan(
                "table 'datafusion.public.nope' not found".into()
            )),
            "unknown_object"
        );
        assert_eq!(
            kind(DataFusionError::Plan("Invalid function 'nope'".into())),
            "unknown_object"
        );
        assert_eq!(
            kind(DataFusionError::Plan("Cannot coerce Utf8 to Int64".into())),
            "syntax"
        );
        let missing = SchemaError::FieldNotFound {
            field: Box::new(Column::from_name("nope")),
            valid_fields: Vec::new(),
        };
        let wrapped = DataFusionError::Context(
            "while planning".into(),
            Box::new(DataFusionError::SchemaError(
                Box::new(missing),
                Box::new(None),
            )),
        );
        let error = classify("df", &wrapped);
        assert_eq!(
            (error.kind_code(), error.code()),
            ("unknown_object", Some("SchemaError"))
        );
        assert_eq!(
            kind(DataFusionError::ResourcesExhausted("pool".into())),
            "resource_limit"
        );
        assert_eq!(kind(DataFusionError::Execution("boom".into())), "engine");
    }
}
