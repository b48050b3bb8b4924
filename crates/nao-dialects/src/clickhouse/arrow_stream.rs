//! ArrowStream answers of modern servers (those whose `system.formats` lists it): Arrow IPC
//! decoded as it streams, then the columns Arrow cannot tell apart fixed by their ClickHouse
//! types, which the adapter reads first with `DESCRIBE (query)`: ClickHouse writes `DateTime`
//! and `IPv4` as `UInt32`, `Enum8/16` as their integers, `UUID` and `IPv6` as 16 bytes.
//! Fixed here, at any depth (inside `Nullable`, `Array`, `Tuple` and `Map`, keys included), so
//! both output paths give the same Arrow types.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int8Type, Int16Type, TimestampSecondType, UInt32Type};
use arrow_array::{Array, ArrayRef, ListArray, MapArray, RecordBatch, StringArray, StructArray};
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_schema::{DataType, Field, FieldRef, Fields, Schema, SchemaRef, TimeUnit};

use super::types::{ChType, Text};

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
    /// The items of an `Array`.
    List(Box<Fix>),
    /// The elements of a `Tuple`, in order.
    Struct(Vec<Fix>),
    /// The keys and values of a `Map`.
    Map(Box<Fix>, Box<Fix>),
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
        let fixes = types
            .iter()
            .map(|t| ChType::parse(t).map_or(Fix::Keep, |ty| fix_of(&ty, server_zone)))
            .collect();
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
        let fields = raw
            .fields()
            .iter()
            .zip(&self.fixes)
            .map(|(field, fix)| fixed_field(field, fix))
            .collect::<Result<Vec<_>, _>>()?;
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
            .zip(schema.fields())
            .map(|((column, fix), field)| fix_column(column, fix, field.data_type()))
            .collect::<Result<Vec<_>, _>>()?;
        RecordBatch::try_new(schema, columns).map_err(|e| e.to_string())
    }
}

/// The message of a block past the bound.
pub(crate) const TOO_LARGE: &str = "a block of the result is larger than the byte cap";

/// How a column of ClickHouse type `ty` is fixed.
fn fix_of(ty: &ChType, server_zone: &str) -> Fix {
    match ty {
        ChType::Nullable(inner) => fix_of(inner, server_zone),
        ChType::DateTime(zone) => Fix::DateTime(zone.clone().unwrap_or_else(|| server_zone.into())),
        ChType::Text(Text::Enum(values)) => Fix::Enum(values.clone()),
        ChType::Text(Text::Ipv4) => Fix::Ipv4,
        ChType::Text(Text::Ipv6) => Fix::Ipv6,
        ChType::Text(Text::Uuid) => Fix::Uuid,
        ChType::Array(item) => match fix_of(item, server_zone) {
            Fix::Keep => Fix::Keep,
            fix => Fix::List(Box::new(fix)),
        },
        ChType::Tuple(elements) => {
            let fixes: Vec<Fix> = elements
                .iter()
                .map(|(_, ty)| fix_of(ty, server_zone))
                .collect();
            if fixes.iter().all(|f| matches!(f, Fix::Keep)) {
                Fix::Keep
            } else {
                Fix::Struct(fixes)
            }
        }
        ChType::Map(key, value) => match (fix_of(key, server_zone), fix_of(value, server_zone)) {
            (Fix::Keep, Fix::Keep) => Fix::Keep,
            (key, value) => Fix::Map(Box::new(key), Box::new(value)),
        },
        _ => Fix::Keep,
    }
}

/// `field` as it is once fixed (same name and nullability).
fn fixed_field(field: &Field, fix: &Fix) -> Result<Field, String> {
    Ok(field
        .clone()
        .with_data_type(fixed_type(field.data_type(), fix)?))
}

/// The Arrow type a column of `raw` type has once fixed.
fn fixed_type(raw: &DataType, fix: &Fix) -> Result<DataType, String> {
    let wrong = || format!("a column of {raw} where ClickHouse's type needs another");
    Ok(match (fix, raw) {
        (Fix::Keep, _) => raw.clone(),
        (Fix::DateTime(zone), _) => DataType::Timestamp(TimeUnit::Second, Some(Arc::clone(zone))),
        (Fix::Enum(_) | Fix::Ipv4 | Fix::Ipv6 | Fix::Uuid, _) => DataType::Utf8,
        (Fix::List(item), DataType::List(field)) => {
            DataType::List(Arc::new(fixed_field(field, item)?))
        }
        (Fix::Struct(fixes), DataType::Struct(fields)) if fields.len() == fixes.len() => {
            DataType::Struct(fixed_fields(fields, fixes)?)
        }
        (Fix::Map(key, value), DataType::Map(entries, sorted)) => {
            let DataType::Struct(pair) = entries.data_type() else {
                return Err(wrong());
            };
            if pair.len() != 2 {
                return Err(wrong());
            }
            let pair = fixed_fields(pair, &[(**key).clone(), (**value).clone()])?;
            DataType::Map(
                Arc::new(
                    entries
                        .as_ref()
                        .clone()
                        .with_data_type(DataType::Struct(pair)),
                ),
                *sorted,
            )
        }
        _ => return Err(wrong()),
    })
}

fn fixed_fields(fields: &Fields, fixes: &[Fix]) -> Result<Fields, String> {
    fields
        .iter()
        .zip(fixes)
        .map(|(field, fix)| fixed_field(field, fix).map(Arc::new))
        .collect::<Result<Vec<FieldRef>, _>>()
        .map(Fields::from)
}

/// `column` fixed by `fix` into the type `target` (from [`fixed_type`]).
fn fix_column(column: &ArrayRef, fix: &Fix, target: &DataType) -> Result<ArrayRef, String> {
    let wrong = || {
        format!(
            "a column of {} where ClickHouse's type needs another",
            column.data_type()
        )
    };
    Ok(match fix {
        Fix::Keep => Arc::clone(column),
        Fix::List(item) => {
            let (list, DataType::List(field)) = (column.as_list_opt::<i32>(), target) else {
                return Err(wrong());
            };
            let list = list.ok_or_else(wrong)?;
            let values = fix_column(list.values(), item, field.data_type())?;
            let fixed = ListArray::try_new(
                Arc::clone(field),
                list.offsets().clone(),
                values,
                list.nulls().cloned(),
            );
            Arc::new(fixed.map_err(|e| e.to_string())?)
        }
        Fix::Struct(fixes) => {
            let (tuple, DataType::Struct(fields)) = (column.as_struct_opt(), target) else {
                return Err(wrong());
            };
            let tuple = tuple.ok_or_else(wrong)?;
            let columns = fix_children(tuple.columns(), fixes, fields)?;
            let fixed = StructArray::try_new(fields.clone(), columns, tuple.nulls().cloned());
            Arc::new(fixed.map_err(|e| e.to_string())?)
        }
        Fix::Map(key, value) => {
            let (map, DataType::Map(entries_field, sorted)) = (column.as_map_opt(), target) else {
                return Err(wrong());
            };
            let map = map.ok_or_else(wrong)?;
            let DataType::Struct(pair) = entries_field.data_type() else {
                return Err(wrong());
            };
            let fixes = [(**key).clone(), (**value).clone()];
            let columns = fix_children(map.entries().columns(), &fixes, pair)?;
            let entries =
                StructArray::try_new(pair.clone(), columns, None).map_err(|e| e.to_string())?;
            let fixed = MapArray::try_new(
                Arc::clone(entries_field),
                map.offsets().clone(),
                entries,
                map.nulls().cloned(),
                *sorted,
            );
            Arc::new(fixed.map_err(|e| e.to_string())?)
        }
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

/// The children of a tuple or a map's entries, each fixed into its field's type.
fn fix_children(
    columns: &[ArrayRef],
    fixes: &[Fix],
    fields: &Fields,
) -> Result<Vec<ArrayRef>, String> {
    if columns.len() != fixes.len() || fields.len() != fixes.len() {
        return Err(format!(
            "{} elements in the Arrow answer, {} described",
            columns.len(),
            fixes.len()
        ));
    }
    columns
        .iter()
        .zip(fixes)
        .zip(fields)
        .map(|((column, fix), field)| fix_column(column, fix, field.data_type()))
        .collect()
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

    /// DateTime, Enum, IPv4/6 and UUID nested in Array, Tuple and Map (keys too) come out as
    /// the text path types them.
    #[test]
    fn recorded_nested_types_of_clickhouse_26() {
        for chunk in [5, 1 << 20] {
            let (schema, batches) = read("nested", chunk);
            let schema = schema.unwrap();
            assert_eq!(batches.len(), 1);
            let b = &batches[0];
            let column = |name: &str| b.column(schema.index_of(name).unwrap()).clone();
            let dts = column("dts");
            let dts = dts.as_list::<i32>().value(0);
            assert_eq!(
                dts.data_type(),
                &DataType::Timestamp(TimeUnit::Second, Some("UTC".into()))
            );
            let dts = dts.as_primitive::<TimestampSecondType>();
            assert_eq!(dts.values().to_vec(), [1_577_836_800, 1_577_836_801]);
            let ndts = column("ndts");
            let ndts = ndts.as_list::<i32>().value(0);
            let ndts = ndts.as_primitive::<TimestampSecondType>();
            assert!(ndts.is_null(0));
            assert_eq!(ndts.value(1), 1_577_836_800);
            assert_eq!(ndts.timezone(), Some("Asia/Tokyo"));
            let tup = column("tup");
            let tup = tup.as_struct();
            let texts: Vec<&str> = (0..3)
                .map(|i| tup.column(i).as_string::<i32>().value(0))
                .collect();
            assert_eq!(texts, ["1.2.3.4", "green", "plain"]);
            let m = column("m");
            let m = m.as_map();
            assert_eq!(
                m.keys().as_string::<i32>().value(0),
                "01234567-89ab-cdef-0123-456789abcdef"
            );
            assert_eq!(m.values().as_string::<i32>().value(0), "2001:db8::1");
            let deep = column("deep");
            let inner = deep.as_list::<i32>().value(0);
            let inner = inner.as_list::<i32>().value(0);
            assert_eq!(inner.as_string::<i32>().value(0), "red");
            let tuples = column("list_of_tuples");
            let tuples = tuples.as_list::<i32>().value(0);
            let tuples = tuples.as_struct();
            assert_eq!(tuples.column(1).as_string::<i32>().value(0), "10.0.0.1");
            // The same types as the text path gives these columns.
            let describe =
                std::fs::read_to_string(format!("{FIXTURES}/nested.describe.tsv")).unwrap();
            for (line, field) in describe.lines().zip(schema.fields()) {
                let text = line.split('\t').nth(1).unwrap();
                let text =
                    String::from_utf8(super::super::escape::unescape(text.as_bytes())).unwrap();
                let typed = ChType::parse(&text).unwrap().arrow("Europe/Paris");
                assert!(
                    typed.equals_datatype(field.data_type()),
                    "{}: {typed} in text, {} in Arrow",
                    field.name(),
                    field.data_type()
                );
            }
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
