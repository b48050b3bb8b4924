//! Compact, deterministic names for Arrow types, as the header shows them
//! (`Decimal128(12, 2)`, `Timestamp(µs, UTC)`, `List(Int64)`, `Struct(a: Int64, b: Utf8)`).

use std::fmt::Write as _;

use arrow_schema::{DataType, IntervalUnit};

use crate::escape::push_escaped;
use crate::temporal::unit_symbol;

/// Deepest nesting spelled out; deeper types show as `…`.
const MAX_TYPE_DEPTH: usize = 8;
/// Longest type name written; a struct with many fields is cut after its fields reach this.
const MAX_TYPE_BYTES: usize = 200;

/// Appends the compact name of `data_type` to `out`.
pub(crate) fn push_type_name(out: &mut String, data_type: &DataType) {
    let limit = out.len() + MAX_TYPE_BYTES;
    write_type(out, data_type, 0, limit);
}

fn write_type(out: &mut String, data_type: &DataType, depth: usize, limit: usize) {
    if depth > MAX_TYPE_DEPTH {
        out.push('…');
        return;
    }
    let nested = |out: &mut String, inner: &DataType| write_type(out, inner, depth + 1, limit);
    let _ = match data_type {
        DataType::Timestamp(unit, None) => write!(out, "Timestamp({})", unit_symbol(*unit)),
        DataType::Timestamp(unit, Some(zone)) => {
            let _ = write!(out, "Timestamp({}, ", unit_symbol(*unit));
            push_escaped(out, zone, false);
            write!(out, ")")
        }
        DataType::Time32(unit) => write!(out, "Time32({})", unit_symbol(*unit)),
        DataType::Time64(unit) => write!(out, "Time64({})", unit_symbol(*unit)),
        DataType::Duration(unit) => write!(out, "Duration({})", unit_symbol(*unit)),
        DataType::Interval(IntervalUnit::YearMonth) => write!(out, "Interval(YearMonth)"),
        DataType::Interval(IntervalUnit::DayTime) => write!(out, "Interval(DayTime)"),
        DataType::Interval(IntervalUnit::MonthDayNano) => write!(out, "Interval(MonthDayNano)"),
        DataType::FixedSizeBinary(size) => write!(out, "FixedSizeBinary({size})"),
        DataType::Decimal32(precision, scale) => write!(out, "Decimal32({precision}, {scale})"),
        DataType::Decimal64(precision, scale) => write!(out, "Decimal64({precision}, {scale})"),
        DataType::Decimal128(precision, scale) => write!(out, "Decimal128({precision}, {scale})"),
        DataType::Decimal256(precision, scale) => write!(out, "Decimal256({precision}, {scale})"),
        DataType::List(field) => {
            out.push_str("List(");
            nested(out, field.data_type());
            write!(out, ")")
        }
        DataType::LargeList(field) => {
            out.push_str("LargeList(");
            nested(out, field.data_type());
            write!(out, ")")
        }
        DataType::ListView(field) => {
            out.push_str("ListView(");
            nested(out, field.data_type());
            write!(out, ")")
        }
        DataType::LargeListView(field) => {
            out.push_str("LargeListView(");
            nested(out, field.data_type());
            write!(out, ")")
        }
        DataType::FixedSizeList(field, size) => {
            let _ = write!(out, "FixedSizeList({size}, ");
            nested(out, field.data_type());
            write!(out, ")")
        }
        DataType::Struct(fields) => {
            out.push_str("Struct(");
            for (index, field) in fields.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                if out.len() >= limit {
                    let _ = write!(out, "… {} more", fields.len() - index);
                    break;
                }
                push_escaped(out, field.name(), false);
                out.push_str(": ");
                nested(out, field.data_type());
            }
            write!(out, ")")
        }
        DataType::Map(entries, _) => {
            out.push_str("Map(");
            match entries.data_type() {
                DataType::Struct(fields) if fields.len() == 2 => {
                    nested(out, fields[0].data_type());
                    out.push_str(", ");
                    nested(out, fields[1].data_type());
                }
                other => nested(out, other),
            }
            write!(out, ")")
        }
        DataType::Dictionary(keys, values) => {
            out.push_str("Dictionary(");
            nested(out, keys);
            out.push_str(", ");
            nested(out, values);
            write!(out, ")")
        }
        DataType::RunEndEncoded(run_ends, values) => {
            out.push_str("RunEndEncoded(");
            nested(out, run_ends.data_type());
            out.push_str(", ");
            nested(out, values.data_type());
            write!(out, ")")
        }
        DataType::Union(fields, mode) => {
            let _ = write!(out, "Union({mode:?}");
            for (_, field) in fields.iter() {
                out.push_str(", ");
                if out.len() >= limit {
                    out.push('…');
                    break;
                }
                nested(out, field.data_type());
            }
            write!(out, ")")
        }
        // The remaining types have no parameters: their Debug name is the Arrow name.
        other => write!(out, "{other:?}"),
    };
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{Field, Fields, TimeUnit};

    use super::*;

    fn name(data_type: &DataType) -> String {
        let mut out = String::new();
        push_type_name(&mut out, data_type);
        out
    }

    #[test]
    fn names_are_compact() {
        assert_eq!(name(&DataType::Int64), "Int64");
        assert_eq!(name(&DataType::Utf8View), "Utf8View");
        assert_eq!(name(&DataType::Decimal128(12, 2)), "Decimal128(12, 2)");
        assert_eq!(
            name(&DataType::Timestamp(
                TimeUnit::Microsecond,
                Some("UTC".into())
            )),
            "Timestamp(µs, UTC)"
        );
        let item = Arc::new(Field::new("item", DataType::Int64, true));
        assert_eq!(name(&DataType::List(item.clone())), "List(Int64)");
        assert_eq!(
            name(&DataType::FixedSizeList(item, 3)),
            "FixedSizeList(3, Int64)"
        );
        let fields = Fields::from(vec![
            Field::new("a|b", DataType::Int64, true),
            Field::new("c", DataType::Utf8, true),
        ]);
        assert_eq!(
            name(&DataType::Struct(fields)),
            "Struct(a\\|b: Int64, c: Utf8)"
        );
        assert_eq!(
            name(&DataType::Dictionary(
                Box::new(DataType::Int32),
                Box::new(DataType::Utf8)
            )),
            "Dictionary(Int32, Utf8)"
        );
    }

    #[test]
    fn deep_and_wide_types_are_bounded() {
        let mut deep = DataType::Int8;
        for _ in 0..1_000 {
            deep = DataType::List(Arc::new(Field::new("item", deep, true)));
        }
        assert_eq!(
            name(&deep),
            format!("{}…{}", "List(".repeat(9), ")".repeat(9))
        );
        let wide: Fields = (0..1_000)
            .map(|i| Field::new(format!("f{i}"), DataType::Int8, true))
            .collect();
        assert!(name(&DataType::Struct(wide)).len() < 260);
    }
}
