//! ClickHouse's type names, as a result's header and `system.columns` spell them, and the
//! Arrow type each becomes.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, TimeUnit};

/// How deep type names may nest (`Array(Array(…))`): deeper names are refused, so a hostile
/// header cannot overflow the stack.
const MAX_DEPTH: usize = 32;

/// A ClickHouse column type, as far as the conversion to Arrow needs to know it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ChType {
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float32,
    Float64,
    /// `Bool` (modern servers): `true`/`false`.
    Bool,
    /// `Decimal(P, S)` (and `Decimal32/64/128(S)`), P ≤ 38.
    Decimal(u8, i8),
    /// Text: `String`, `Enum8/16` (their names), `UUID`, `IPv4`, `IPv6`, and any type this
    /// adapter does not know (its text as the server writes it).
    Text(Text),
    /// `FixedString(N)`: N bytes, zero-padded.
    FixedString(i32),
    /// Days since 1970 (`Date`, `Date32`).
    Date,
    /// Seconds since 1970, written as local time in the zone (the column's, else the
    /// server's).
    DateTime(Option<Arc<str>>),
    /// `DateTime64(P, zone)`: 10^-P seconds.
    DateTime64(u8, Option<Arc<str>>),
    /// `Nothing` (the type of a bare `NULL`).
    Nothing,
    Nullable(Box<ChType>),
    Array(Box<ChType>),
    /// Element names (named tuples of modern servers) and types.
    Tuple(Vec<(Option<String>, ChType)>),
    Map(Box<ChType>, Box<ChType>),
}

/// What a text column holds. The text formats write each as text; ArrowStream writes `Enum`
/// and `IPv4` as integers and `UUID` and `IPv6` as 16 bytes, which the adapter turns back
/// into text by this.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Text {
    /// `String`, or a type the adapter does not know.
    Plain,
    /// `Enum8/16`: each value and its name.
    Enum(Vec<(i16, String)>),
    Uuid,
    Ipv4,
    Ipv6,
}

impl ChType {
    /// Parses a type name; `None` when it is malformed or nests too deep.
    pub(crate) fn parse(name: &str) -> Option<ChType> {
        let mut parser = Parser {
            text: name.as_bytes(),
            at: 0,
        };
        let ty = parser.ty(0)?;
        parser.skip_spaces();
        (parser.at == parser.text.len()).then_some(ty)
    }

    /// Whether values of this type may be NULL at the top level.
    pub(crate) fn nullable(&self) -> bool {
        matches!(self, ChType::Nullable(_) | ChType::Nothing)
    }

    /// The type without its `Nullable`.
    pub(crate) fn base(&self) -> &ChType {
        match self {
            ChType::Nullable(inner) => inner,
            other => other,
        }
    }

    /// The Arrow type of its values; `server_zone` names the zone of `DateTime` columns
    /// without one.
    pub(crate) fn arrow(&self, server_zone: &str) -> DataType {
        match self {
            ChType::Int8 => DataType::Int8,
            ChType::Int16 => DataType::Int16,
            ChType::Int32 => DataType::Int32,
            ChType::Int64 => DataType::Int64,
            ChType::UInt8 => DataType::UInt8,
            ChType::UInt16 => DataType::UInt16,
            ChType::UInt32 => DataType::UInt32,
            ChType::UInt64 => DataType::UInt64,
            ChType::Float32 => DataType::Float32,
            ChType::Float64 => DataType::Float64,
            ChType::Bool => DataType::Boolean,
            ChType::Decimal(p, s) => DataType::Decimal128(*p, *s),
            ChType::Text(_) => DataType::Utf8,
            ChType::FixedString(n) => DataType::FixedSizeBinary(*n),
            ChType::Date => DataType::Date32,
            ChType::DateTime(zone) => DataType::Timestamp(
                TimeUnit::Second,
                Some(zone.as_deref().unwrap_or(server_zone).into()),
            ),
            ChType::DateTime64(precision, zone) => DataType::Timestamp(
                unit_of(*precision),
                Some(zone.as_deref().unwrap_or(server_zone).into()),
            ),
            ChType::Nothing => DataType::Null,
            ChType::Nullable(inner) => inner.arrow(server_zone),
            ChType::Array(item) => DataType::List(Arc::new(item.field("item", server_zone))),
            ChType::Tuple(elements) => DataType::Struct(tuple_fields(elements, server_zone)),
            ChType::Map(key, value) => {
                let entries = Fields::from(vec![
                    Field::new("key", key.arrow(server_zone), false),
                    value.field("value", server_zone),
                ]);
                DataType::Map(
                    Arc::new(Field::new("entries", DataType::Struct(entries), false)),
                    false,
                )
            }
        }
    }

    /// An Arrow field of this type, nullable when the type is.
    pub(crate) fn field(&self, name: &str, server_zone: &str) -> Field {
        Field::new(name, self.arrow(server_zone), self.nullable())
    }
}

/// A tuple's elements as struct fields: their names, else `1`, `2`, … (ClickHouse's own
/// `tupleElement` indexes).
pub(crate) fn tuple_fields(elements: &[(Option<String>, ChType)], server_zone: &str) -> Fields {
    elements
        .iter()
        .enumerate()
        .map(|(i, (name, ty))| {
            let name = name.clone().unwrap_or_else(|| (i + 1).to_string());
            ty.field(&name, server_zone)
        })
        .collect()
}

/// The Arrow unit holding 10^-precision seconds exactly (precisions between units are scaled
/// up to the next).
pub(crate) fn unit_of(precision: u8) -> TimeUnit {
    match precision {
        0 => TimeUnit::Second,
        1..=3 => TimeUnit::Millisecond,
        4..=6 => TimeUnit::Microsecond,
        _ => TimeUnit::Nanosecond,
    }
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_spaces();
        if self.text.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<&str> {
        self.skip_spaces();
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.at += 1;
        }
        (self.at > start)
            .then(|| std::str::from_utf8(&self.text[start..self.at]).ok())
            .flatten()
    }

    fn number(&mut self) -> Option<u64> {
        self.ident()?.parse().ok()
    }

    /// A quoted string argument (`'Asia/Tokyo'`), with `\'` and `\\` escapes.
    fn quoted(&mut self) -> Option<String> {
        self.skip_spaces();
        if !self.eat(b'\'') {
            return None;
        }
        let mut out = Vec::new();
        loop {
            match *self.text.get(self.at)? {
                b'\\' => {
                    out.push(*self.text.get(self.at + 1)?);
                    self.at += 2;
                }
                b'\'' => {
                    self.at += 1;
                    return String::from_utf8(out).ok();
                }
                other => {
                    out.push(other);
                    self.at += 1;
                }
            }
        }
    }

    /// The arguments of `Enum8(…)` or `Enum16(…)`: each name and its value.
    fn enum_arguments(&mut self) -> Option<Vec<(i16, String)>> {
        if !self.eat(b'(') {
            return None;
        }
        let mut values = Vec::new();
        loop {
            let label = self.quoted()?;
            if !self.eat(b'=') {
                return None;
            }
            let negative = self.eat(b'-');
            let magnitude = i16::try_from(self.number()?).ok()?;
            values.push((if negative { -magnitude } else { magnitude }, label));
            if self.eat(b')') {
                return Some(values);
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// Skips the balanced argument list of a type whose arguments do not matter (`Enum8(…)`,
    /// `AggregateFunction(…)`), quotes included.
    fn skip_arguments(&mut self) -> Option<()> {
        if !self.eat(b'(') {
            return Some(());
        }
        let mut depth = 1_usize;
        while depth > 0 {
            match *self.text.get(self.at)? {
                b'(' => depth += 1,
                b')' => depth -= 1,
                b'\'' => {
                    self.quoted()?;
                    continue;
                }
                _ => {}
            }
            self.at += 1;
        }
        Some(())
    }

    fn ty(&mut self, depth: usize) -> Option<ChType> {
        if depth > MAX_DEPTH {
            return None;
        }
        let name = self.ident()?.to_owned();
        let inner = |p: &mut Self| -> Option<ChType> {
            if !p.eat(b'(') {
                return None;
            }
            let ty = p.ty(depth + 1)?;
            p.eat(b')').then_some(ty)
        };
        Some(match name.as_str() {
            "Int8" => ChType::Int8,
            "Int16" => ChType::Int16,
            "Int32" => ChType::Int32,
            "Int64" => ChType::Int64,
            "UInt8" => ChType::UInt8,
            "UInt16" => ChType::UInt16,
            "UInt32" => ChType::UInt32,
            "UInt64" => ChType::UInt64,
            "Float32" => ChType::Float32,
            "Float64" => ChType::Float64,
            "Bool" => ChType::Bool,
            "String" => ChType::Text(Text::Plain),
            "UUID" => ChType::Text(Text::Uuid),
            "IPv4" => ChType::Text(Text::Ipv4),
            "IPv6" => ChType::Text(Text::Ipv6),
            "Date" | "Date32" => ChType::Date,
            "Nothing" => ChType::Nothing,
            "Enum8" | "Enum16" => ChType::Text(Text::Enum(self.enum_arguments()?)),
            "FixedString" => {
                if !self.eat(b'(') {
                    return None;
                }
                // ClickHouse's own bound (MAX_FIXEDSTRING_SIZE): a larger width is not a
                // server's, and would make each value that large.
                let n = i32::try_from(self.number()?)
                    .ok()
                    .filter(|n| *n <= 0xFF_FFFF)?;
                if !self.eat(b')') {
                    return None;
                }
                ChType::FixedString(n)
            }
            "Decimal" => {
                if !self.eat(b'(') {
                    return None;
                }
                let p = self.number()?;
                let s = if self.eat(b',') { self.number()? } else { 0 };
                if !self.eat(b')') {
                    return None;
                }
                decimal(p, s)?
            }
            "Decimal32" | "Decimal64" | "Decimal128" => {
                let p = match name.as_str() {
                    "Decimal32" => 9,
                    "Decimal64" => 18,
                    _ => 38,
                };
                if !self.eat(b'(') {
                    return None;
                }
                let s = self.number()?;
                if !self.eat(b')') {
                    return None;
                }
                decimal(p, s)?
            }
            "DateTime" => {
                let zone = if self.eat(b'(') {
                    let zone = self.quoted()?;
                    if !self.eat(b')') {
                        return None;
                    }
                    Some(zone.into())
                } else {
                    None
                };
                ChType::DateTime(zone)
            }
            "DateTime64" => {
                if !self.eat(b'(') {
                    return None;
                }
                let precision = u8::try_from(self.number()?).ok().filter(|p| *p <= 9)?;
                let zone = if self.eat(b',') {
                    Some(self.quoted()?.into())
                } else {
                    None
                };
                if !self.eat(b')') {
                    return None;
                }
                ChType::DateTime64(precision, zone)
            }
            "Nullable" => ChType::Nullable(Box::new(inner(self)?)),
            // Dictionary encoding is the server's business: the values are the inner type's.
            "LowCardinality" => inner(self)?,
            "Array" => ChType::Array(Box::new(inner(self)?)),
            "Tuple" => {
                if !self.eat(b'(') {
                    return None;
                }
                let mut elements = Vec::new();
                loop {
                    elements.push(self.tuple_element(depth)?);
                    if self.eat(b')') {
                        break;
                    }
                    if !self.eat(b',') {
                        return None;
                    }
                }
                ChType::Tuple(elements)
            }
            "Map" => {
                if !self.eat(b'(') {
                    return None;
                }
                let key = self.ty(depth + 1)?;
                if !self.eat(b',') {
                    return None;
                }
                let value = self.ty(depth + 1)?;
                if !self.eat(b')') {
                    return None;
                }
                ChType::Map(Box::new(key), Box::new(value))
            }
            // Anything else (AggregateFunction, Nested, Int128, Object, …): its text.
            _ => {
                self.skip_arguments()?;
                ChType::Text(Text::Plain)
            }
        })
    }

    /// `T` or `name T` (a named tuple's element).
    fn tuple_element(&mut self, depth: usize) -> Option<(Option<String>, ChType)> {
        let start = self.at;
        if let Some(first) = self.ident().map(str::to_owned) {
            self.skip_spaces();
            let next = self.text.get(self.at);
            if next.is_some_and(|b| b.is_ascii_alphabetic()) {
                return Some((Some(first), self.ty(depth + 1)?));
            }
        }
        self.at = start;
        Some((None, self.ty(depth + 1)?))
    }
}

fn decimal(precision: u64, scale: u64) -> Option<ChType> {
    let p = u8::try_from(precision)
        .ok()
        .filter(|p| (1..=38).contains(p))?;
    let s = i8::try_from(scale)
        .ok()
        .filter(|s| u64::from(s.unsigned_abs()) <= precision)?;
    Some(ChType::Decimal(p, s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_what_servers_write() {
        assert_eq!(
            ChType::parse("Decimal(18, 2)"),
            Some(ChType::Decimal(18, 2))
        );
        assert_eq!(
            ChType::parse("DateTime('Asia/Tokyo')"),
            Some(ChType::DateTime(Some("Asia/Tokyo".into())))
        );
        assert_eq!(
            ChType::parse("DateTime64(3, 'UTC')"),
            Some(ChType::DateTime64(3, Some("UTC".into())))
        );
        assert_eq!(
            ChType::parse("LowCardinality(Nullable(String))"),
            Some(ChType::Nullable(Box::new(ChType::Text(Text::Plain))))
        );
        assert_eq!(
            ChType::parse("Enum8('a\\'b' = 1, ')' = 2)"),
            Some(ChType::Text(Text::Enum(vec![
                (1, "a'b".to_owned()),
                (2, ")".to_owned())
            ])))
        );
        assert_eq!(
            ChType::parse("Array(Tuple(UInt8, String))"),
            Some(ChType::Array(Box::new(ChType::Tuple(vec![
                (None, ChType::UInt8),
                (None, ChType::Text(Text::Plain))
            ]))))
        );
        assert_eq!(
            ChType::parse("Tuple(a UInt8, b Nullable(String))"),
            Some(ChType::Tuple(vec![
                (Some("a".into()), ChType::UInt8),
                (
                    Some("b".into()),
                    ChType::Nullable(Box::new(ChType::Text(Text::Plain)))
                )
            ]))
        );
        assert_eq!(
            ChType::parse("Map(String, UInt64)"),
            Some(ChType::Map(
                Box::new(ChType::Text(Text::Plain)),
                Box::new(ChType::UInt64)
            ))
        );
        assert_eq!(
            ChType::parse("AggregateFunction(uniq, UInt64)"),
            Some(ChType::Text(Text::Plain))
        );
        assert_eq!(ChType::parse("Decimal128(40)"), None);
        assert_eq!(ChType::parse("FixedString(16777216)"), None);
        assert_eq!(ChType::parse("Array(UInt8"), None);
        assert_eq!(ChType::parse("UInt8 junk"), None);
    }

    #[test]
    fn hostile_names_end_in_none() {
        let deep = format!("{}UInt8{}", "Array(".repeat(10_000), ")".repeat(10_000));
        assert_eq!(ChType::parse(&deep), None);
        for junk in [
            "",
            "(",
            "Decimal(",
            "DateTime('x",
            "Enum8('a",
            "FixedString(-1)",
            "Tuple()",
        ] {
            assert_eq!(ChType::parse(junk), None, "{junk}");
        }
    }

    #[test]
    fn enum_values_by_name() {
        assert_eq!(
            ChType::parse("Nullable(Enum8('a\\'b' = -1, 'c' = 2))"),
            Some(ChType::Nullable(Box::new(ChType::Text(Text::Enum(vec![
                (-1, "a'b".to_owned()),
                (2, "c".to_owned())
            ])))))
        );
        assert_eq!(ChType::parse("Enum16('a' = 99999)"), None);
        assert_eq!(ChType::parse("Enum8('a' 1)"), None);
        assert_eq!(
            ChType::parse("Array(Map(UUID, IPv6))"),
            Some(ChType::Array(Box::new(ChType::Map(
                Box::new(ChType::Text(Text::Uuid)),
                Box::new(ChType::Text(Text::Ipv6))
            ))))
        );
    }

    #[test]
    fn arrow_types() {
        let zone = "Europe/Paris";
        assert_eq!(
            ChType::parse("DateTime").unwrap().arrow(zone),
            DataType::Timestamp(TimeUnit::Second, Some(zone.into()))
        );
        assert_eq!(
            ChType::parse("DateTime64(6)").unwrap().arrow("UTC"),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        let field = ChType::parse("Nullable(Decimal(12, 2))")
            .unwrap()
            .field("a", zone);
        assert!(field.is_nullable());
        assert_eq!(field.data_type(), &DataType::Decimal128(12, 2));
    }
}
