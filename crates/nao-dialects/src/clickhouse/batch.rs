//! Rows of a TabSeparatedWithNamesAndTypes result into Arrow record batches: the two header
//! lines give the schema, each later line one row.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_array::builder::{ArrayBuilder, make_builder};
use arrow_schema::{DataType, Field, Schema, SchemaRef};

use super::escape;
use super::types::ChType;
use super::values::{self, Zones};

/// Builds record batches from a result's rows.
pub(crate) struct BatchBuilder {
    schema: SchemaRef,
    types: Vec<ChType>,
    builders: Vec<Box<dyn ArrayBuilder>>,
    zones: Zones,
    capacity: usize,
    rows: usize,
    bytes: usize,
}

impl std::fmt::Debug for BatchBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchBuilder")
            .field("schema", &self.schema)
            .field("rows", &self.rows)
            .finish_non_exhaustive()
    }
}

impl BatchBuilder {
    /// From the header lines: column names, then type names (both TabSeparated-escaped).
    pub(crate) fn from_header(
        names: &[u8],
        types: &[u8],
        zones: Zones,
        capacity: usize,
    ) -> Result<Self, String> {
        let names: Vec<String> = names
            .split(|b| *b == b'\t')
            .map(|n| String::from_utf8_lossy(&escape::unescape(n)).into_owned())
            .collect();
        let types = types
            .split(|b| *b == b'\t')
            .map(|t| {
                let name = String::from_utf8_lossy(&escape::unescape(t)).into_owned();
                ChType::parse(&name).ok_or_else(|| format!("unreadable column type {name:?}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        if names.len() != types.len() {
            return Err(format!(
                "the header names {} columns and {} types",
                names.len(),
                types.len()
            ));
        }
        let fields: Vec<Field> = names
            .iter()
            .zip(&types)
            .map(|(name, ty)| ty.field(name, zones.server()))
            .collect();
        let schema = Arc::new(Schema::new(fields));
        let mut builder = BatchBuilder {
            schema,
            types,
            builders: Vec::new(),
            zones,
            capacity,
            rows: 0,
            bytes: 0,
        };
        builder.builders = builder.fresh_builders();
        Ok(builder)
    }

    fn fresh_builders(&self) -> Vec<Box<dyn ArrayBuilder>> {
        self.schema
            .fields()
            .iter()
            .map(|f| {
                // A FixedSizeBinary builder reserves capacity × width bytes at once: a
                // `FixedString(16777215)` column must grow with its values instead.
                let capacity = if has_fixed_width(f.data_type()) {
                    0
                } else {
                    self.capacity
                };
                make_builder(f.data_type(), capacity)
            })
            .collect()
    }

    /// The result's schema.
    pub(crate) fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }

    /// Rows since the last batch.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Text bytes of the rows since the last batch.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Adds one row (a line without its newline). On error the builders may hold part of
    /// the row: the result must stop there.
    pub(crate) fn push_row(&mut self, line: &[u8]) -> Result<(), String> {
        let mut fields = line.split(|b| *b == b'\t');
        for (index, (ty, builder)) in self.types.iter().zip(&mut self.builders).enumerate() {
            let Some(raw) = fields.next() else {
                return Err(format!(
                    "a row of {index} fields where {} columns were declared",
                    self.types.len()
                ));
            };
            values::append_field(ty, builder.as_mut(), raw, &mut self.zones).map_err(|e| {
                format!(
                    "column {:?} ({}): {e}",
                    self.schema.field(index).name(),
                    self.schema.field(index).data_type()
                )
            })?;
        }
        if fields.next().is_some() {
            return Err(format!(
                "a row of more fields than the {} columns declared",
                self.types.len()
            ));
        }
        self.rows += 1;
        self.bytes += line.len() + 1;
        Ok(())
    }

    /// The rows since the last batch as a batch.
    pub(crate) fn finish(&mut self) -> Result<RecordBatch, String> {
        let columns = self.builders.iter_mut().map(|b| b.finish()).collect();
        self.rows = 0;
        self.bytes = 0;
        RecordBatch::try_new(Arc::clone(&self.schema), columns).map_err(|e| e.to_string())
    }
}

/// Whether a type holds a `FixedSizeBinary` anywhere.
fn has_fixed_width(data_type: &DataType) -> bool {
    match data_type {
        DataType::FixedSizeBinary(_) => true,
        DataType::List(field) | DataType::Map(field, _) => has_fixed_width(field.data_type()),
        DataType::Struct(fields) => fields.iter().any(|f| has_fixed_width(f.data_type())),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Decimal128Type, Int32Type, TimestampSecondType, UInt8Type};
    use arrow_array::{Array, ListArray};

    use super::*;

    fn builder(names: &str, types: &str) -> BatchBuilder {
        BatchBuilder::from_header(
            names.as_bytes(),
            types.as_bytes(),
            Zones::new("UTC".into()),
            4,
        )
        .unwrap()
    }

    #[test]
    fn text_of_an_old_server_into_arrow() {
        // As ClickHouse 18.16 wrote it.
        let mut b = builder(
            "d\tt\ta\ttu\tu\tf\te\tn\tesc",
            "Decimal(18, 2)\tDateTime(\\'Asia/Tokyo\\')\tArray(Nullable(String))\tTuple(UInt8, String)\tUUID\tFixedString(3)\tEnum8(\\'a\\' = 1)\tNullable(Nothing)\tString",
        );
        b.push_row(
            br"1.50	2020-01-01 09:00:00	['a\tb','c\\d','e\'f',NULL]	(1,'x')	00000000-0000-0000-0000-000000000001	ab\0	a	\N	a\tb\nc\\d\0",
        )
        .unwrap();
        let batch = b.finish().unwrap();
        assert_eq!(batch.num_rows(), 1);
        assert_eq!(
            batch.column(0).as_primitive::<Decimal128Type>().value(0),
            150
        );
        assert_eq!(
            batch.schema().field(1).data_type(),
            &DataType::Timestamp(arrow_schema::TimeUnit::Second, Some("Asia/Tokyo".into()))
        );
        assert_eq!(
            batch
                .column(1)
                .as_primitive::<TimestampSecondType>()
                .value(0),
            1_577_836_800
        );
        let list = batch
            .column(2)
            .as_any()
            .downcast_ref::<ListArray>()
            .unwrap();
        let items = list.value(0);
        let items = items.as_string::<i32>();
        assert_eq!(items.value(0), "a\tb");
        assert_eq!(items.value(1), "c\\d");
        assert_eq!(items.value(2), "e'f");
        assert!(items.is_null(3));
        let tuple = batch.column(3).as_struct();
        assert_eq!(tuple.column(0).as_primitive::<UInt8Type>().value(0), 1);
        assert_eq!(tuple.column(1).as_string::<i32>().value(0), "x");
        assert_eq!(batch.column(5).as_fixed_size_binary().value(0), b"ab\0");
        assert_eq!(batch.column(6).as_string::<i32>().value(0), "a");
        assert_eq!(batch.column(7).data_type(), &DataType::Null);
        assert_eq!(batch.column(7).logical_null_count(), 1);
        assert_eq!(batch.column(8).as_string::<i32>().value(0), "a\tb\nc\\d\0");
    }

    #[test]
    fn modern_types_from_recorded_text() {
        // DateTime64 and Map, as ClickHouse 24 writes them (18.16 has neither).
        let mut b = builder(
            "ts\tm\tnt",
            "DateTime64(3, \\'UTC\\')\tMap(String, Nullable(Int32))\tTuple(a Int32, b String)",
        );
        b.push_row(b"2020-01-01 00:00:00.125\t{'k':1,'z':NULL}\t(7,'q')")
            .unwrap();
        b.push_row(b"1969-12-31 23:59:59.900\t{}\t(8,'r')").unwrap();
        let batch = b.finish().unwrap();
        let ts = batch
            .column(0)
            .as_primitive::<arrow_array::types::TimestampMillisecondType>();
        assert_eq!(ts.value(0), 1_577_836_800_125);
        assert_eq!(ts.value(1), -100);
        let map = batch.column(1).as_map();
        assert_eq!(map.value_length(0), 2);
        assert_eq!(map.value_length(1), 0);
        assert_eq!(map.values().as_primitive::<Int32Type>().value(0), 1);
        assert!(map.values().is_null(1));
        let tuple = batch.column(2).as_struct();
        assert_eq!(tuple.fields()[0].name(), "a");
        assert_eq!(tuple.column(1).as_string::<i32>().value(1), "r");
    }

    #[test]
    fn every_cut_and_every_odd_byte_is_a_row_or_an_error_never_a_panic() {
        let names = "a\tb\tc\td\te\tf";
        let types = "Array(Tuple(Nullable(String), Decimal(9, 2)))\tMap(String, Array(DateTime64(3)))\tDateTime(\\'Asia/Tokyo\\')\tFixedString(3)\tNullable(Float64)\tDate";
        let row: &[u8] = b"[('a\\'b',1.25),(NULL,-3)]\t{'k':['2020-01-01 00:00:00.125']}\t2020-03-29 02:30:00\tab\\0\t-inf\t2020-02-29";
        let mut good = builder(names, types);
        good.push_row(row).unwrap();
        good.finish().unwrap();
        let odd = [
            b'\\', b'\'', b'[', b']', b'(', b')', b'{', b'}', b',', b':', b'\t', b'N', b'-', b'.',
            0xff, b'9',
        ];
        for cut in 0..row.len() {
            let mut b = builder(names, types);
            let _ = b.push_row(&row[..cut]);
            for byte in odd {
                let mut mutated = row.to_vec();
                mutated[cut] = byte;
                let mut b = builder(names, types);
                if b.push_row(&mutated).is_ok() {
                    // A row that was accepted makes a valid batch.
                    assert_eq!(b.finish().unwrap().num_rows(), 1);
                }
            }
        }
    }

    #[test]
    fn a_huge_fixed_string_reserves_nothing_up_front() {
        let mut b = builder("f", "FixedString(16777215)");
        b.push_row(b"x").unwrap();
        let batch = b.finish().unwrap();
        assert_eq!(
            batch.column(0).as_fixed_size_binary().value_length(),
            16_777_215
        );
    }

    #[test]
    fn hostile_rows_are_errors() {
        let mut b = builder("x\ty", "UInt8\tArray(Int32)");
        for row in [
            &b"300\t[]"[..],
            b"1",
            b"1\t[]\textra",
            b"1\t[1,",
            b"\\N\t[]",
            b"1\t['a']",
            b"1\t[[1]]",
            b"1\t(1)",
        ] {
            let mut fresh = builder("x\ty", "UInt8\tArray(Int32)");
            assert!(
                fresh.push_row(row).is_err(),
                "{}",
                String::from_utf8_lossy(row)
            );
        }
        b.push_row(b"1\t[1,2]").unwrap();
        assert_eq!(b.finish().unwrap().num_rows(), 1);
        assert!(BatchBuilder::from_header(b"a\tb", b"UInt8", Zones::new("UTC".into()), 1).is_err());
        assert!(BatchBuilder::from_header(b"a", b"Nope(", Zones::new("UTC".into()), 1).is_err());
    }
}
