//! The Arrow IPC stream inside each `ArrowBatch` response, decoded without copying.

use arrow_array::RecordBatch;
use arrow_buffer::Buffer;
use arrow_ipc::reader::StreamDecoder;
use arrow_schema::{ArrowError, SchemaRef};
use prost::bytes::Bytes;

/// The schema and batches of one `ArrowBatch`'s data (an Arrow IPC stream: a schema message,
/// then record batches). The batches point into `data`.
pub(super) fn decode(data: Bytes) -> Result<(Option<SchemaRef>, Vec<RecordBatch>), ArrowError> {
    let mut decoder = StreamDecoder::new();
    let mut buffer = Buffer::from(data);
    let mut batches = Vec::new();
    while !buffer.is_empty() {
        match decoder.decode(&mut buffer)? {
            Some(batch) => batches.push(batch),
            None if buffer.is_empty() => break,
            None => {}
        }
    }
    decoder.finish()?;
    Ok((decoder.schema(), batches))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::{Decimal128Array, Int32Array};
    use arrow_ipc::writer::StreamWriter;
    use arrow_schema::{DataType, Field, Schema};

    use super::*;

    fn ipc(schema: &SchemaRef, batches: &[RecordBatch]) -> Bytes {
        let mut out = Vec::new();
        let mut writer = StreamWriter::try_new(&mut out, schema).unwrap();
        for batch in batches {
            writer.write(batch).unwrap();
        }
        writer.finish().unwrap();
        drop(writer);
        Bytes::from(out)
    }

    #[test]
    fn batches_and_their_schema_come_back_exactly() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, false),
            Field::new("total", DataType::Decimal128(12, 2), true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int32Array::from(vec![1, 2])),
                Arc::new(
                    Decimal128Array::from(vec![Some(12_345), None])
                        .with_precision_and_scale(12, 2)
                        .unwrap(),
                ),
            ],
        )
        .unwrap();
        let (decoded_schema, batches) =
            decode(ipc(&schema, &[batch.clone(), batch.clone()])).unwrap();
        assert_eq!(decoded_schema.unwrap(), schema);
        assert_eq!(batches, [batch.clone(), batch]);
    }

    #[test]
    fn a_schema_alone_is_an_empty_result_with_columns() {
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, true)]));
        let (decoded, batches) = decode(ipc(&schema, &[])).unwrap();
        assert_eq!(decoded.unwrap(), schema);
        assert!(batches.is_empty());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for data in [
            &b"\xff\xff\xff\xff\x10\x00\x00\x00garbage!"[..],
            b"\x00",
            b"abc",
        ] {
            let _ = decode(Bytes::copy_from_slice(data));
        }
        assert!(
            decode(Bytes::from_static(
                b"\xff\xff\xff\xff\x08\x00\x00\x00zzzzzzzz"
            ))
            .is_err()
        );
    }
}
