//! Function calls that are not written as calls, besides attribute notation
//! (see [`crate::attributes`]): in PostgreSQL an operator runs the function behind it and a cast
//! runs the target type's input function, cast function and domain checks. The built-in ones are
//! harmless; a user-defined operator or type may run any function its owner wrote.
//!
//! So in the dialects that [run functions behind operators and
//! casts](crate::SqlDialect::runs_functions_behind_operators_and_casts), an operator symbol that
//! is not one of PostgreSQL's built-ins, an operator qualified by a schema other than
//! `pg_catalog`, and a cast to a type that is not built in are refused unless the policy allows
//! them by name ([`Policy::allow_function`](crate::Policy::allow_function)).
//!
//! What stays open, by design: a user-defined operator or cast on a user-defined type that
//! reuses a built-in symbol (`=` on a domain) cannot be told from the built-in by the text; it
//! runs as the connection's role inside a READ ONLY transaction, which is why the adapters also
//! refuse privileged roles.

use sqlparser::ast::{ArrayElemTypeDef, BinaryOperator, DataType, ObjectName};

/// PostgreSQL's built-in operator symbols that sqlparser does not model by name (it parses them
/// as `BinaryOperator::Custom`): geometric, network, range, text search, JSON and pattern
/// operators of the core distribution. Sorted, for binary search.
const BUILTIN_OPERATORS: &[&str] = &[
    "!!", "!~~", "!~~*", "##", "#-", "&<", "&<|", "&>", "-|-", "<->", "<<=", "<<|", "<^", ">>=",
    ">^", "?#", "?-", "?-|", "?||", "@-@", "@?", "@@@", "^@", "|&>", "|>>", "~<=~", "~<~", "~=",
    "~>=~", "~>~", "~~", "~~*",
];

/// Built-in PostgreSQL types that sqlparser parses as `DataType::Custom` (the ones it models,
/// such as `text`, `jsonb`, `regclass`, never reach this list). Lower case, sorted.
const BUILTIN_TYPES: &[&str] = &[
    "aclitem",
    "bit",
    "bool",
    "box",
    "bpchar",
    "char",
    "cid",
    "cidr",
    "circle",
    "citext",
    "datemultirange",
    "daterange",
    "float4",
    "float8",
    "inet",
    "int2",
    "int2vector",
    "int4",
    "int4multirange",
    "int4range",
    "int8",
    "int8multirange",
    "int8range",
    "interval",
    "json",
    "jsonb",
    "jsonpath",
    "line",
    "lseg",
    "macaddr",
    "macaddr8",
    "money",
    "name",
    "numeric",
    "nummultirange",
    "numrange",
    "oid",
    "oidvector",
    "path",
    "pg_lsn",
    "pg_snapshot",
    "point",
    "polygon",
    "record",
    "refcursor",
    "regclass",
    "regcollation",
    "regconfig",
    "regdictionary",
    "regnamespace",
    "regoper",
    "regoperator",
    "regproc",
    "regprocedure",
    "regrole",
    "regtype",
    "text",
    "tid",
    "time",
    "timestamp",
    "timestamptz",
    "timetz",
    "tsmultirange",
    "tsquery",
    "tsrange",
    "tstzmultirange",
    "tstzrange",
    "tsvector",
    "txid_snapshot",
    "uuid",
    "varbit",
    "varchar",
    "xid",
    "xid8",
    "xml",
];

/// The operator as written when it may be user-defined, `None` for a built-in one.
pub(crate) fn user_operator(op: &BinaryOperator) -> Option<String> {
    match op {
        BinaryOperator::Custom(symbol) => BUILTIN_OPERATORS
            .binary_search(&symbol.as_str())
            .is_err()
            .then(|| symbol.clone()),
        // `OPERATOR(schema.sym)`: only `pg_catalog` (or no schema) holds the built-ins, and every
        // symbol the parser models is a built-in there.
        BinaryOperator::PGCustomBinaryOperator(parts) => {
            let builtin = match parts.as_slice() {
                [_symbol] => true,
                [schema, _symbol] => schema.eq_ignore_ascii_case("pg_catalog"),
                _ => false,
            };
            (!builtin).then(|| format!("OPERATOR({})", parts.join(".")))
        }
        _ => None,
    }
}

/// The type name when a cast to `data_type` may run a user-defined function, `None` for a
/// built-in type (arrays of built-in types included).
pub(crate) fn user_type(data_type: &DataType) -> Option<&ObjectName> {
    match data_type {
        DataType::Custom(name, _) => (!is_builtin_type(name)).then_some(name),
        DataType::Array(
            ArrayElemTypeDef::AngleBracket(inner)
            | ArrayElemTypeDef::SquareBracket(inner, _)
            | ArrayElemTypeDef::Parenthesis(inner)
            | ArrayElemTypeDef::ParenthesisNotNull(inner)
            | ArrayElemTypeDef::Qualified(inner, _),
        ) => user_type(inner),
        _ => None,
    }
}

fn is_builtin_type(name: &ObjectName) -> bool {
    let parts: Vec<_> = name.0.iter().map(|p| p.as_ident()).collect();
    let last = match parts.as_slice() {
        [Some(last)] => last,
        [Some(schema), Some(last)] if schema.value.eq_ignore_ascii_case("pg_catalog") => last,
        _ => return false,
    };
    // A quoted name must be written in the case PostgreSQL stores the built-in in.
    let folded = match last.quote_style {
        Some(_) => last.value.clone(),
        None => last.value.to_ascii_lowercase(),
    };
    BUILTIN_TYPES.binary_search(&folded.as_str()).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_and_unique() {
        for list in [BUILTIN_OPERATORS, BUILTIN_TYPES] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }
}
