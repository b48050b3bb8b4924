//! ArrowStream answers of modern servers (those whose `system.formats` lists it): Arrow IPC
//! decoded as it streams, then the columns Arrow cannot tell apart fixed by their ClickHouse
//! types, which the adapter reads first with `DESCRIBE (query)`: ClickHouse writes `DateTime`
//! and `IPv4` as `UInt32`, `Enum8/16` as their integers, `UUID` and `IPv6` as 16 bytes.
//! Fixed here, top-level and inside `Nullable`, so both output paths give the same Arrow
//! types; nested inside `Array`, `Tuple` or `Map` they stay as ClickHouse wrote them.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int8Type, Int16Type, TimestampSecondType, UInt32Type};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};

use super::types::{self, ChType};

/// How one column is fixed.
#[derive(Debug, Clone)]
enum Fix {
    Keep,
    /// `UInt32` seconds into `Timestamp(Second, zone)`.
    DateTime(Arc<str>),
    /// Integers into their names.
    Enum(Vec<(i16, String)>),
    Ipv4,
    Ipv6,
    Uuid,
}

/// Decodes one ArrowStream answer.
pub(crate) struct ArrowStreamReader {
    decoder: StreamDecoder,
    fixes: Vec<Fix>,
    schema: Option<SchemaRef>,
    /// Bytes fed since the last batch came out.
    pending: usize,
    max_pending: usize,
}

impl std::fmt::Debug for ArrowStreamReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowStreamReader")
            .field("fixes", &self.fixes)
            .finish_non_exhaustive()
    }
}

impl ArrowStreamReader {
    /// A reader for a result whose columns have the ClickHouse `types` (from `DESCRIBE`, in
    /// order); `server_zone` is the zone of `DateTime` without one. One message (a block) may
    /// be at most `max_message` bytes.
    pub(crate) fn new(types: &[String], server_zone: &str, max_message: usize) -> Self {
        let fixes = types.iter().map(|t| fix_of(t, server_zone)).collect();
        ArrowStreamReader {
            decoder: StreamDecoder::new(),
            fixes,
            schema: None,
            pending: 0,
            max_pending: max_message,
        }
    }

    /// The result's schema (fixed), once the stream's schema message was read.
    pub(crate) fn schema(&mut self) -> Result<Option<SchemaRef>, String> {
        if self.schema.is_none()
            && let Some(raw) = self.decoder.schema()
        {
            self.schema = Some(self.fixed_schema(&raw)?);
        }
        Ok(self.schema.clone())
    }

    /// Feeds a chunk of the body; returns the batches it completed.
    pub(crate) fn push(&mut self, chunk: bytes::Bytes) -> Result<Vec<RecordBatch>, String> {
        self.pending = self.pending.saturating_add(chunk.len());
        let mut buffer = Buffer::from(chunk);
        let mut batches = Vec::new();
        while !buffer.is_empty() {
            let decoded = self
                .decoder
                .decode(&mut buffer)
                .map_err(|e| e.to_string())?;
            if let Some(batch) = decoded {
                self.pending = buffer.len();
                batches.push(self.fix(batch)?);
            }
        }
        if self.pending > self.max_pending {
            return Err(TOO_LARGE.to_owned());
        }
        Ok(batches)
    }

    /// Checks that the stream ended on a whole message.
    pub(crate) fn finish(&mut self) -> Result<(), String> {
        self.decoder.finish().map_err(|e| e.to_string())
    }

    fn fixed_schema(&self, raw: &Schema) -> Result<SchemaRef, String> {
        if raw.fields().len() != self.fixes.len() {
            return Err(format!(
                "{} columns in the Arrow answer, {} described",
                raw.fields().len(),
                self.fixes.len()
            ));
        }
        let fields: Vec<Field> = raw
            .fields()
            .iter()
            .zip(&self.fixes)
            .map(|(field, fix)| {
                let data_type = match fix {
                    Fix::Keep => return field.as_ref().clone(),
                    Fix::DateTime(zone) => {
                        DataType::Timestamp(TimeUnit::Second, Some(Arc::clone(zone)))
                    }
                    Fix::Enum(_) | Fix::Ipv4 | Fix::Ipv6 | Fix::Uuid => DataType::Utf8,
                };
                Field::new(field.name(), data_type, field.is_nullable())
            })
            .collect();
        Ok(Arc::new(Schema::new(fields)))
    }

    fn fix(&mut self, batch: RecordBatch) -> Result<RecordBatch, String> {
        let schema = match self.schema()? {
            Some(schema) => schema,
            None => self.fixed_schema(&batch.schema())?,
        };
        let columns = batch
            .columns()
            .iter()
            .zip(&self.fixes)
            .map(|(column, fix)| fix_column(column, fix))
            .collect::<Result<Vec<_>, _>>()?;
        RecordBatch::try_new(schema, columns).map_err(|e| e.to_string())
    }
}

/// The message of a block past the bound.
pub(crate) const TOO_LARGE: &str = "a block of the result is larger than the byte cap";

fn fix_of(type_name: &str, server_zone: &str) -> Fix {
    let Some(ty) = ChType::parse(type_name) else {
        return Fix::Keep;
    };
    let base = type_name
        .trim_start_matches("Nullable(")
        .trim_start_matches("LowCardinality(");
    match ty.base() {
        ChType::DateTime(zone) => Fix::DateTime(zone.clone().unwrap_or_else(|| server_zone.into())),
        ChType::String if base.starts_with("Enum") => {
            types::enum_values(type_name).map_or(Fix::Keep, Fix::Enum)
        }
        ChType::String if base.starts_with("IPv4") => Fix::Ipv4,
        ChType::String if base.starts_with("IPv6") => Fix::Ipv6,
        ChType::String if base.starts_with("UUID") => Fix::Uuid,
        _ => Fix::Keep,
    }
}

fn fix_column(column: &ArrayRef, fix: &Fix) -> Result<ArrayRef, String> {
    let wrong = || {
        format!(
            "a column of {} where ClickHouse's type needs another",
            column.data_type()
        )
    };
    Ok(match fix {
        Fix::Keep => Arc::clone(column),
        Fix::DateTime(zone) => {
            let seconds = column.as_primitive_opt::<UInt32Type>().ok_or_else(wrong)?;
            let times: arrow_array::PrimitiveArray<TimestampSecondType> = seconds.unary(i64::from);
            Arc::new(times.with_timezone(Arc::clone(zone)))
        }
        Fix::Enum(values) => {
            let name = |v: i16| {
                values
                    .iter()
                    .find(|(n, _)| *n == v)
                    .map(|(_, s)| s.as_str())
            };
            let names: StringArray = if let Some(a) = column.as_primitive_opt::<Int8Type>() {
                a.iter()
                    .map(|v| v.and_then(|v| name(i16::from(v))))
                    .collect()
            } else if let Some(a) = column.as_primitive_opt::<Int16Type>() {
                a.iter().map(|v| v.and_then(name)).collect()
            } else {
                return Err(wrong());
            };
            Arc::new(names)
        }
        Fix::Ipv4 => {
            let a = column.as_primitive_opt::<UInt32Type>().ok_or_else(wrong)?;
            let text: StringArray = a
                .iter()
                .map(|v| v.map(|v| Ipv4Addr::from(v).to_string()))
                .collect();
            Arc::new(text)
        }
        Fix::Ipv6 | Fix::Uuid => {
            let a = column.as_fixed_size_binary_opt().ok_or_else(wrong)?;
            if a.value_length() != 16 {
                return Err(wrong());
            }
            let text: StringArray = (0..a.len())
                .map(|i| {
                    (!a.is_null(i)).then(|| {
                        let mut bytes = [0_u8; 16];
                        bytes.copy_from_slice(a.value(i));
                        if matches!(fix, Fix::Uuid) {
                            crate::uuid_text::uuid_text(&bytes)
                        } else {
                            Ipv6Addr::from(bytes).to_string()
                        }
                    })
                })
                .collect();
            Arc::new(text)
        }
    })
}

#[cfg(test)]
mod tests {
    use arrow_array::types::{Date32Type, Decimal128Type, TimestampMillisecondType, UInt64Type};

    use super::*;

    const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clickhouse");

    /// Reads a recorded answer as the adapter does, in chunks of `chunk` bytes.
    fn read(name: &str, chunk: usize) -> (Option<SchemaRef>, Vec<RecordBatch>) {
        let describe = std::fs::read(format!("{FIXTURES}/{name}.describe.tsv")).unwrap();
        let types: Vec<String> = String::from_utf8(describe)
            .unwrap()
            .lines()
            .map(|l| {
                let t = l.split('\t').nth(1).unwrap();
                String::from_utf8(super::super::escape::unescape(t.as_bytes())).unwrap()
            })
            .collect();
        let body = std::fs::read(format!("{FIXTURES}/{name}.arrows")).unwrap();
        let mut reader = ArrowStreamReader::new(&types, "Europe/Paris", 1 << 20);
        let mut batches = Vec::new();
        for part in body.chunks(chunk) {
            batches.extend(reader.push(bytes::Bytes::copy_from_slice(part)).unwrap());
        }
        reader.finish().unwrap();
        (reader.schema().unwrap(), batches)
    }

    #[test]
    fn recorded_types_of_clickhouse_26() {
        for chunk in [7, 4096, 1 << 20] {
            let (schema, batches) = read("types", chunk);
            let schema = schema.unwrap();
            assert_eq!(batches.len(), 1);
            let b = &batches[0];
            let column = |name: &str| b.column(schema.index_of(name).unwrap()).clone();
            assert_eq!(
                column("u64").as_primitive::<UInt64Type>().value(0),
                u64::MAX
            );
            assert_eq!(
                column("d").as_primitive::<Decimal128Type>().value(0),
                123_456_789_012_345_678_900_123_456_789
            );
            assert_eq!(column("s").as_string::<i32>().value(0), "tab\tnl\nq'");
            assert_eq!(column("fs").as_fixed_size_binary().value(0), b"ab\0\0");
            assert_eq!(column("lc").as_string::<i32>().value(0), "low");
            assert_eq!(column("day").as_primitive::<Date32Type>().value(0), 18_321);
            assert_eq!(column("d32").as_primitive::<Date32Type>().value(0), -25_567);
            assert_eq!(
                schema.field_with_name("tokyo").unwrap().data_type(),
                &DataType::Timestamp(TimeUnit::Second, Some("Asia/Tokyo".into()))
            );
            assert_eq!(
                column("ts").as_primitive::<TimestampSecondType>().value(0),
                1_577_836_800
            );
            assert_eq!(
                column("tokyo")
                    .as_primitive::<TimestampSecondType>()
                    .value(0),
                1_577_836_800
            );
            assert_eq!(
                column("ts64")
                    .as_primitive::<TimestampMillisecondType>()
                    .value(0),
                1_577_836_800_125
            );
            assert!(column("ns").is_null(0) && column("nts").is_null(0));
            assert!(schema.field_with_name("nts").unwrap().is_nullable());
            assert_eq!(column("e").as_string::<i32>().value(0), "green");
            assert_eq!(
                column("u").as_string::<i32>().value(0),
                "01234567-89ab-cdef-0123-456789abcdef"
            );
            assert_eq!(column("ip4").as_string::<i32>().value(0), "1.2.3.4");
            assert_eq!(column("ip6").as_string::<i32>().value(0), "2001:db8::1");
            assert!(column("b").as_boolean().value(0));
            assert_eq!(
                column("tup")
                    .as_struct()
                    .column(1)
                    .as_string::<i32>()
                    .value(0),
                "x"
            );
            assert_eq!(column("m").as_map().value_length(0), 1);
            assert_eq!(column("arr").as_list::<i32>().value(0).null_count(), 1);
        }
    }

    #[test]
    fn recorded_blocks_and_an_empty_result() {
        let (_, batches) = read("numbers", 1000);
        assert_eq!(
            batches
                .iter()
                .map(RecordBatch::num_rows)
                .collect::<Vec<_>>(),
            [1000, 1000, 1000]
        );
        assert_eq!(batches[2].column(1).as_string::<i32>().value(999), "2999");
        let (schema, batches) = read("empty", 3);
        assert!(batches.is_empty());
        let schema = schema.unwrap();
        assert_eq!(
            schema.field(1).data_type(),
            &DataType::Timestamp(TimeUnit::Second, Some("UTC".into()))
        );
    }

    #[test]
    fn hostile_answers_are_errors() {
        let body = std::fs::read(format!("{FIXTURES}/types.arrows")).unwrap();
        // Cut short: the stream does not end on a whole message.
        let mut reader = ArrowStreamReader::new(&[], "UTC", 1 << 20);
        let cut = bytes::Bytes::copy_from_slice(&body[..body.len() / 2]);
        let outcome = reader.push(cut).and_then(|_| reader.finish());
        assert!(outcome.is_err());
        // A block past the bound.
        let big = std::fs::read(format!("{FIXTURES}/numbers.arrows")).unwrap();
        let mut reader = ArrowStreamReader::new(&["UInt64".into(), "String".into()], "UTC", 64);
        let error = reader
            .push(bytes::Bytes::from(big[..4096].to_vec()))
            .unwrap_err();
        assert_eq!(error, TOO_LARGE);
        // Garbage.
        let mut reader = ArrowStreamReader::new(&[], "UTC", 1 << 20);
        let garbage = bytes::Bytes::from_static(&[0xff; 64]);
        assert!(reader.push(garbage).and_then(|_| reader.finish()).is_err());
        // A column of another type than described.
        let mut reader =
            ArrowStreamReader::new(&["DateTime".into(), "String".into()], "UTC", 1 << 20);
        assert!(reader.push(bytes::Bytes::from(big)).is_err());
    }
}
