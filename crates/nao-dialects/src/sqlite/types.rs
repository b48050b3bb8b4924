//! A column's declared SQLite type, read as the Arrow type its values become.

/// What a column's declared type promises about its values.
///
/// SQLite stores any value in any column, so a declared type is a promise the adapter checks
/// value by value (see `convert`); columns without one (expressions) take their type from the
/// storage classes of the first batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Declared {
    /// `INTEGER`, `INT`, `BIGINT`, … → Int64.
    Int64,
    /// `REAL`, `FLOAT`, `DOUBLE` → Float64.
    Float64,
    /// `TEXT`, `VARCHAR(n)`, `CHAR`, `CLOB` → Utf8.
    Utf8,
    /// `BLOB` → Binary.
    Binary,
    /// `DECIMAL(p,s)` / `NUMERIC(p,s)` → Decimal128(p, s).
    Decimal(u8, i8),
    /// `BOOLEAN` / `BOOL` → Boolean.
    Boolean,
    /// `DATE` → Date32.
    Date,
    /// `DATETIME` / `TIMESTAMP` → Timestamp(Microsecond, None).
    Timestamp,
    /// No declared type, or one without a faithful Arrow type: decided from the values.
    Dynamic,
}

impl Declared {
    /// Reads a declared type (`sqlite3_column_decltype`); `None` is an expression.
    pub(crate) fn from_decltype(decltype: Option<&str>) -> Declared {
        let Some(decltype) = decltype else {
            return Declared::Dynamic;
        };
        let upper = decltype.trim().to_ascii_uppercase();
        let (base, params) = match upper.split_once('(') {
            Some((base, rest)) => (base.trim(), rest.strip_suffix(')').map(str::trim)),
            None => (upper.as_str(), None),
        };
        let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
        match base.as_str() {
            "INTEGER" | "INT" | "TINYINT" | "SMALLINT" | "MEDIUMINT" | "BIGINT"
            | "UNSIGNED BIG INT" | "INT2" | "INT4" | "INT8" | "INT16" | "INT32" | "INT64" => {
                Declared::Int64
            }
            "REAL" | "FLOAT" | "DOUBLE" | "DOUBLE PRECISION" | "FLOAT4" | "FLOAT8" => {
                Declared::Float64
            }
            "BLOB" => Declared::Binary,
            "DECIMAL" | "NUMERIC" => params.and_then(decimal_params).unwrap_or(Declared::Dynamic),
            "BOOLEAN" | "BOOL" => Declared::Boolean,
            "DATE" => Declared::Date,
            "DATETIME" | "TIMESTAMP" => Declared::Timestamp,
            // SQLite gives these TEXT affinity, so their values are stored as text.
            _ if ["CHAR", "CLOB", "TEXT"].iter().any(|t| base.contains(t)) => Declared::Utf8,
            _ => Declared::Dynamic,
        }
    }
}

/// `p` or `p, s` with 1 ≤ p ≤ 38 and 0 ≤ s ≤ p (what Decimal128 holds); anything else is
/// left to the values.
fn decimal_params(params: &str) -> Option<Declared> {
    let mut parts = params.split(',').map(str::trim);
    let precision: u8 = parts.next()?.parse().ok()?;
    let scale: i8 = match parts.next() {
        Some(scale) => scale.parse().ok()?,
        None => 0,
    };
    if parts.next().is_some() || !(1..=38).contains(&precision) {
        return None;
    }
    if scale < 0 || scale.unsigned_abs() > precision {
        return None;
    }
    Some(Declared::Decimal(precision, scale))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_types_map_like_the_table_in_the_module_docs() {
        let cases = [
            ("INTEGER", Declared::Int64),
            ("bigint", Declared::Int64),
            ("UNSIGNED  BIG INT", Declared::Int64),
            ("REAL", Declared::Float64),
            ("double precision", Declared::Float64),
            ("TEXT", Declared::Utf8),
            ("VARCHAR(40)", Declared::Utf8),
            ("NATIVE CHARACTER(70)", Declared::Utf8),
            ("CLOB", Declared::Utf8),
            ("BLOB", Declared::Binary),
            ("DECIMAL(12, 2)", Declared::Decimal(12, 2)),
            ("numeric(38,10)", Declared::Decimal(38, 10)),
            ("DECIMAL(9)", Declared::Decimal(9, 0)),
            ("DECIMAL", Declared::Dynamic),
            ("DECIMAL(40,2)", Declared::Dynamic),
            ("DECIMAL(4,6)", Declared::Dynamic),
            ("BOOLEAN", Declared::Boolean),
            ("DATE", Declared::Date),
            ("datetime", Declared::Timestamp),
            ("TIMESTAMP", Declared::Timestamp),
            ("POINT", Declared::Dynamic),
            ("JSON", Declared::Dynamic),
            ("", Declared::Dynamic),
        ];
        for (decl, want) in cases {
            assert_eq!(Declared::from_decltype(Some(decl)), want, "{decl}");
        }
        assert_eq!(Declared::from_decltype(None), Declared::Dynamic);
    }
}
