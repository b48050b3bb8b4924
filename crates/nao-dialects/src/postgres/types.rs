//! Which Arrow type each PostgreSQL result column gets, and the text cast for the types that
//! have none.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, IntervalUnit, TimeUnit};
use tokio_postgres::types::{Kind, Type};

/// Field metadata key naming the PostgreSQL type of a column whose Arrow type does not say it
/// (a text cast, numeric text, JSON).
pub(super) const PG_TYPE_KEY: &str = "nao.postgres.type";
/// Field metadata key of a short note on how the column's values were converted.
pub(super) const NOTE_KEY: &str = "nao.note";
/// Arrow's canonical extension type key, set to `arrow.json` on JSON columns.
const EXTENSION_KEY: &str = "ARROW:extension:name";

/// The Arrow-facing type of a column (or of an array's elements), decided from the prepared
/// statement's column type and type modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum PgType {
    Int2,
    Int4,
    Int8,
    Oid,
    Float4,
    Float8,
    Bool,
    /// text, varchar, bpchar, name, citext, enums, and the text cast of other types.
    Text,
    Bytea,
    Date,
    Time,
    Timestamp,
    TimestampTz,
    Interval,
    Uuid,
    Json,
    Jsonb,
    /// numeric(p, s) with an Arrow decimal of that precision and scale.
    Decimal {
        precision: u8,
        scale: i8,
    },
    /// numeric without a usable precision: its exact text.
    NumericText,
    /// A one-dimensional array.
    List(Box<PgType>),
}

impl PgType {
    /// The mapping of `ty` with type modifier `typmod`, or `None` when the values must be cast
    /// to text by the server.
    pub(super) fn of(ty: &Type, typmod: i32) -> Option<PgType> {
        match ty.kind() {
            Kind::Enum(_) => Some(PgType::Text),
            Kind::Domain(base) => PgType::of(base, -1),
            Kind::Array(element) => match PgType::of(element, typmod)? {
                // PostgreSQL has no arrays of arrays; a nested list would be a bug.
                PgType::List(_) => None,
                element => Some(PgType::List(Box::new(element))),
            },
            Kind::Simple | Kind::Pseudo => PgType::simple(ty, typmod),
            _ => None,
        }
    }

    fn simple(ty: &Type, typmod: i32) -> Option<PgType> {
        Some(match *ty {
            Type::INT2 => PgType::Int2,
            Type::INT4 => PgType::Int4,
            Type::INT8 => PgType::Int8,
            Type::OID => PgType::Oid,
            Type::FLOAT4 => PgType::Float4,
            Type::FLOAT8 => PgType::Float8,
            Type::BOOL => PgType::Bool,
            // unknown (an untyped literal) and void (a function without a result) send text.
            Type::TEXT | Type::VARCHAR | Type::BPCHAR | Type::NAME | Type::UNKNOWN | Type::VOID => {
                PgType::Text
            }
            Type::BYTEA => PgType::Bytea,
            Type::DATE => PgType::Date,
            Type::TIME => PgType::Time,
            Type::TIMESTAMP => PgType::Timestamp,
            Type::TIMESTAMPTZ => PgType::TimestampTz,
            Type::INTERVAL => PgType::Interval,
            Type::UUID => PgType::Uuid,
            Type::JSON => PgType::Json,
            Type::JSONB => PgType::Jsonb,
            Type::NUMERIC => numeric(typmod),
            // citext's binary form is its text; it is an extension type with no fixed OID.
            _ if ty.name() == "citext" => PgType::Text,
            _ => return None,
        })
    }

    /// The Arrow type of the values.
    pub(super) fn data_type(&self) -> DataType {
        match self {
            PgType::Int2 => DataType::Int16,
            PgType::Int4 => DataType::Int32,
            PgType::Int8 => DataType::Int64,
            PgType::Oid => DataType::UInt32,
            PgType::Float4 => DataType::Float32,
            PgType::Float8 => DataType::Float64,
            PgType::Bool => DataType::Boolean,
            PgType::Text | PgType::Uuid | PgType::Json | PgType::Jsonb | PgType::NumericText => {
                DataType::Utf8
            }
            PgType::Bytea => DataType::Binary,
            PgType::Date => DataType::Date32,
            PgType::Time => DataType::Time64(TimeUnit::Microsecond),
            PgType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
            PgType::TimestampTz => DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())),
            PgType::Interval => DataType::Interval(IntervalUnit::MonthDayNano),
            PgType::Decimal { precision, scale } if *precision <= 38 => {
                DataType::Decimal128(*precision, *scale)
            }
            PgType::Decimal { precision, scale } => DataType::Decimal256(*precision, *scale),
            PgType::List(element) => DataType::List(Arc::new(element.field("item"))),
        }
    }

    /// A nullable field named `name` with this type and the metadata that explains it.
    pub(super) fn field(&self, name: &str) -> Field {
        let mut metadata = HashMap::new();
        match self {
            PgType::Json | PgType::Jsonb => {
                metadata.insert(EXTENSION_KEY.to_owned(), "arrow.json".to_owned());
            }
            PgType::NumericText => {
                metadata.insert(PG_TYPE_KEY.to_owned(), "numeric".to_owned());
                metadata.insert(
                    NOTE_KEY.to_owned(),
                    "numeric without a declared precision: exact decimal text".to_owned(),
                );
            }
            _ => {}
        }
        Field::new(name, self.data_type(), true).with_metadata(metadata)
    }
}

/// The mapping of `numeric` with type modifier `typmod`: a decimal when the declared precision
/// and scale fit Arrow's, exact text otherwise.
fn numeric(typmod: i32) -> PgType {
    // PostgreSQL stores ((precision << 16) | (scale & 0x7ff)) + 4; the scale is an 11-bit
    // signed number since PostgreSQL 15 (negative scales round to tens, hundreds, …).
    if typmod < 4 {
        return PgType::NumericText;
    }
    let packed = typmod - 4;
    let precision = (packed >> 16) & 0xffff;
    let scale = ((packed & 0x7ff) ^ 0x400) - 0x400;
    let (Ok(precision), Ok(scale)) = (u8::try_from(precision), i8::try_from(scale)) else {
        return PgType::NumericText;
    };
    let fits = (1..=76).contains(&precision) && (scale <= 0 || scale.unsigned_abs() <= precision);
    if fits {
        PgType::Decimal { precision, scale }
    } else {
        PgType::NumericText
    }
}

/// A text field for a column of PostgreSQL type `type_name` that the server casts to text.
pub(super) fn text_cast_field(name: &str, type_name: &str) -> Field {
    let metadata = HashMap::from([
        (PG_TYPE_KEY.to_owned(), type_name.to_owned()),
        (
            NOTE_KEY.to_owned(),
            format!("PostgreSQL type {type_name} has no Arrow mapping; values are its text form"),
        ),
    ]);
    Field::new(name, DataType::Utf8, true).with_metadata(metadata)
}

/// `ident` as a quoted PostgreSQL identifier.
pub(super) fn quote_ident(ident: &str) -> String {
    nao_core::guard::SqlDialect::Postgres.quote_identifier(ident)
}

/// Wraps `sql` so that the columns flagged in `cast` come back as text, keeping every column's
/// name and position: `SELECT q."c1" AS "a", q."c2"::text AS "b" FROM (<sql>) AS q("c1", "c2")`.
///
/// The alias list renames the columns by position, so duplicate or odd names (`?column?`) are
/// no problem; the newlines keep a trailing `--` comment from swallowing the parenthesis.
pub(super) fn text_cast_sql(sql: &str, names: &[&str], cast: &[bool]) -> String {
    let body = sql.trim_end().trim_end_matches(';').trim_end();
    let select: Vec<String> = names
        .iter()
        .zip(cast)
        .enumerate()
        .map(|(i, (name, &cast))| {
            let cast = if cast { "::text" } else { "" };
            format!("q.\"c{i}\"{cast} AS {}", quote_ident(name))
        })
        .collect();
    let aliases: Vec<String> = (0..names.len()).map(|i| format!("\"c{i}\"")).collect();
    format!(
        "SELECT {} FROM (\n{body}\n) AS q({})",
        select.join(", "),
        aliases.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typmod(precision: i32, scale: i32) -> i32 {
        ((precision << 16) | (scale & 0x7ff)) + 4
    }

    #[test]
    fn numeric_modifiers_pick_the_decimal() {
        assert_eq!(
            numeric(typmod(12, 2)),
            PgType::Decimal {
                precision: 12,
                scale: 2
            }
        );
        assert_eq!(
            PgType::Decimal {
                precision: 50,
                scale: 5
            }
            .data_type(),
            DataType::Decimal256(50, 5)
        );
        assert_eq!(
            numeric(typmod(5, -2)),
            PgType::Decimal {
                precision: 5,
                scale: -2
            }
        );
        assert_eq!(numeric(-1), PgType::NumericText);
        assert_eq!(numeric(typmod(100, 2)), PgType::NumericText);
        assert_eq!(numeric(typmod(2, 5)), PgType::NumericText);
    }

    #[test]
    fn known_types_map_and_others_need_a_cast() {
        assert_eq!(PgType::of(&Type::INT4, -1), Some(PgType::Int4));
        assert_eq!(
            PgType::of(&Type::TEXT_ARRAY, -1),
            Some(PgType::List(Box::new(PgType::Text)))
        );
        assert_eq!(
            PgType::of(&Type::NUMERIC_ARRAY, typmod(10, 2)),
            Some(PgType::List(Box::new(PgType::Decimal {
                precision: 10,
                scale: 2
            })))
        );
        assert_eq!(PgType::of(&Type::INET, -1), None);
        assert_eq!(PgType::of(&Type::INT4_RANGE, -1), None);
        assert_eq!(PgType::of(&Type::POINT_ARRAY, -1), None);
    }

    #[test]
    fn text_casts_keep_names_and_positions() {
        assert_eq!(
            text_cast_sql(
                "SELECT a, b FROM t -- note\n;",
                &["a", "we\"ird"],
                &[false, true]
            ),
            "SELECT q.\"c0\" AS \"a\", q.\"c1\"::text AS \"we\"\"ird\" FROM (\nSELECT a, b FROM t \
             -- note\n) AS q(\"c0\", \"c1\")"
        );
    }
}
