//! What the adapter and a worker process say to each other over the worker's stdin and stdout.
//!
//! Every message is a frame: one tag byte, the payload's length (u32, little-endian) and the
//! payload. The adapter sends [`Request`]s; the worker answers [`Tag::Ready`] once the database
//! is open, then for each request the schema, its batches (each an Arrow IPC stream of its own)
//! and [`Tag::Done`], or an error. Hand-written rather than a serialisation crate: five message
//! kinds, and Arrow IPC already encodes the data.

use arrow_array::RecordBatch;
use arrow_ipc::reader::StreamReader;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{Schema, SchemaRef};
use nao_core::DialectError;
use std::io::{self, Read, Write};

/// The largest frame either side accepts: a batch is at most about the byte cap, and a request
/// at most a statement.
const MAX_FRAME: usize = 1 << 30;

/// What a frame holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Tag {
    /// Worker: the database is open.
    Ready = b'R',
    /// Adapter: run a statement ([`Request`]).
    Run = b'Q',
    /// Worker: the statement's schema (an IPC stream with no batches).
    Schema = b'S',
    /// Worker: one batch (an IPC stream with one batch).
    Batch = b'B',
    /// Worker: the statement failed ([`encode_error`]).
    Error = b'E',
    /// Worker: the statement ended; the worker waits for the next request.
    Done = b'D',
}

impl Tag {
    fn from_byte(byte: u8) -> Option<Tag> {
        [
            Tag::Ready,
            Tag::Run,
            Tag::Schema,
            Tag::Batch,
            Tag::Error,
            Tag::Done,
        ]
        .into_iter()
        .find(|tag| *tag as u8 == byte)
    }
}

/// Writes one frame and flushes it.
pub(super) fn write_frame(out: &mut impl Write, tag: Tag, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .ok()
        .filter(|len| (*len as usize) <= MAX_FRAME)
        .ok_or_else(|| io::Error::other("a worker frame over 1 GiB"))?;
    out.write_all(&[tag as u8])?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(payload)?;
    out.flush()
}

/// Reads one frame; `None` at a clean end of input.
pub(super) fn read_frame(input: &mut impl Read) -> io::Result<Option<(Tag, Vec<u8>)>> {
    let mut head = [0u8; 5];
    match input.read_exact(&mut head[..1]) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    input.read_exact(&mut head[1..])?;
    let tag = Tag::from_byte(head[0])
        .ok_or_else(|| io::Error::other(format!("unknown worker frame tag {}", head[0])))?;
    let len = u32::from_le_bytes([head[1], head[2], head[3], head[4]]) as usize;
    if len > MAX_FRAME {
        return Err(io::Error::other("a worker frame over 1 GiB"));
    }
    let mut payload = vec![0u8; len];
    input.read_exact(&mut payload)?;
    Ok(Some((tag, payload)))
}

/// One statement for the worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Request {
    /// The SQL, proved read-only by the guard unless `unchecked`.
    pub(super) sql: String,
    /// The SQL comes without the guard's reading (the escape hatch).
    pub(super) unchecked: bool,
    /// Rows to send before stopping (the worker sends one more, as adapters do).
    pub(super) max_rows: u64,
    /// Arrow bytes to send before stopping.
    pub(super) max_bytes: u64,
}

impl Request {
    /// The payload of a [`Tag::Run`] frame.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(17 + self.sql.len());
        out.extend_from_slice(&self.max_rows.to_le_bytes());
        out.extend_from_slice(&self.max_bytes.to_le_bytes());
        out.push(u8::from(self.unchecked));
        out.extend_from_slice(self.sql.as_bytes());
        out
    }

    /// Reads a [`Tag::Run`] payload.
    pub(super) fn decode(payload: &[u8]) -> io::Result<Request> {
        let number = |range: std::ops::Range<usize>| {
            payload
                .get(range)
                .and_then(|bytes| bytes.try_into().ok())
                .map(u64::from_le_bytes)
                .ok_or_else(|| io::Error::other("a truncated worker request"))
        };
        let max_rows = number(0..8)?;
        let max_bytes = number(8..16)?;
        let unchecked = match payload.get(16) {
            Some(0) => false,
            Some(1) => true,
            _ => {
                return Err(io::Error::other(
                    "a worker request without its checked flag",
                ));
            }
        };
        let sql = String::from_utf8(payload[17..].to_vec())
            .map_err(|_| io::Error::other("a worker request whose SQL is not UTF-8"))?;
        Ok(Request {
            sql,
            unchecked,
            max_rows,
            max_bytes,
        })
    }
}

/// An Arrow IPC stream holding `schema` and `batch` (if any).
pub(super) fn encode_batch(schema: &Schema, batch: Option<&RecordBatch>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    let mut writer = StreamWriter::try_new(&mut bytes, schema).map_err(io::Error::other)?;
    if let Some(batch) = batch {
        writer.write(batch).map_err(io::Error::other)?;
    }
    writer.finish().map_err(io::Error::other)?;
    drop(writer);
    Ok(bytes)
}

/// The schema and the batch (if any) of an IPC stream [`encode_batch`] wrote.
pub(super) fn decode_batch(payload: &[u8]) -> io::Result<(SchemaRef, Option<RecordBatch>)> {
    let mut reader = StreamReader::try_new(payload, None).map_err(io::Error::other)?;
    let schema = reader.schema();
    let batch = reader.next().transpose().map_err(io::Error::other)?;
    Ok((schema, batch))
}

/// The kinds of error a worker reports (timeouts and cancellations are the adapter's: it ends
/// the worker).
const KINDS: &[&str] = &[
    "syntax",
    "unknown_object",
    "permission",
    "resource_limit",
    "connection",
    "unsupported",
    "engine",
];

/// The payload of a [`Tag::Error`] frame: the kind, then the code, the limit and the message,
/// each as a length-prefixed string.
pub(super) fn encode_error(error: &DialectError) -> Vec<u8> {
    let (message, code, limit) = match error {
        DialectError::Syntax { message, code, .. }
        | DialectError::UnknownObject { message, code, .. }
        | DialectError::Permission { message, code, .. }
        | DialectError::Engine { message, code, .. } => (message.clone(), code.clone(), None),
        DialectError::ResourceLimit {
            message,
            code,
            limit,
            ..
        } => (message.clone(), code.clone(), Some(limit.clone())),
        DialectError::Connection { message, .. } => (message.clone(), None, None),
        DialectError::Unsupported { what, .. } => (what.clone(), None, None),
        other => (other.to_string(), None, None),
    };
    let kind = error.kind_code();
    let kind = if KINDS.contains(&kind) {
        kind
    } else {
        "engine"
    };
    let mut out = Vec::new();
    for part in [
        kind,
        code.as_deref().unwrap_or(""),
        limit.as_deref().unwrap_or(""),
        &message,
    ] {
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
        out.extend_from_slice(part.as_bytes());
    }
    out
}

/// The error a [`Tag::Error`] payload describes, for `database`.
pub(super) fn decode_error(database: &str, payload: &[u8]) -> DialectError {
    let mut parts = Vec::with_capacity(4);
    let mut rest = payload;
    while parts.len() < 4 {
        let Some((len, tail)) = rest.split_first_chunk::<4>() else {
            break;
        };
        let len = u32::from_le_bytes(*len) as usize;
        let Some((text, tail)) = tail.split_at_checked(len) else {
            break;
        };
        parts.push(String::from_utf8_lossy(text).into_owned());
        rest = tail;
    }
    let [kind, code, limit, message]: [String; 4] = match parts.try_into() {
        Ok(parts) => parts,
        Err(_) => {
            return DialectError::Engine {
                database: database.to_owned(),
                message: "the DuckDB worker sent a malformed error".to_owned(),
                code: None,
                source: None,
            };
        }
    };
    let database = database.to_owned();
    let code = (!code.is_empty()).then_some(code);
    match kind.as_str() {
        "syntax" => DialectError::Syntax {
            database,
            message,
            code,
        },
        "unknown_object" => DialectError::UnknownObject {
            database,
            message,
            code,
        },
        "permission" => DialectError::Permission {
            database,
            message,
            code,
        },
        "resource_limit" => DialectError::ResourceLimit {
            database,
            limit,
            message,
            code,
        },
        "connection" => DialectError::Connection {
            database,
            message,
            source: None,
        },
        "unsupported" => DialectError::Unsupported {
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use arrow_array::Int64Array;
    use arrow_schema::{DataType, Field};

    #[test]
    fn frames_requests_batches_and_errors_round_trip() {
        let request = Request {
            sql: "SELECT 'é' AS x".into(),
            unchecked: true,
            max_rows: 10,
            max_bytes: 1 << 20,
        };
        let mut wire = Vec::new();
        write_frame(&mut wire, Tag::Run, &request.encode()).unwrap();
        write_frame(&mut wire, Tag::Done, &[]).unwrap();
        let mut input = wire.as_slice();
        let (tag, payload) = read_frame(&mut input).unwrap().unwrap();
        assert_eq!(tag, Tag::Run);
        assert_eq!(Request::decode(&payload).unwrap(), request);
        assert_eq!(read_frame(&mut input).unwrap().unwrap().0, Tag::Done);
        assert!(read_frame(&mut input).unwrap().is_none());

        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
        let batch = RecordBatch::try_new(
            Arc::clone(&schema),
            vec![Arc::new(Int64Array::from(vec![1, 2, 3]))],
        )
        .unwrap();
        let (decoded_schema, decoded) =
            decode_batch(&encode_batch(&schema, Some(&batch)).unwrap()).unwrap();
        assert_eq!(decoded_schema, schema);
        assert_eq!(decoded.unwrap(), batch);

        let error = DialectError::ResourceLimit {
            database: "w".into(),
            limit: "memory limit".into(),
            message: "Out of Memory Error: x".into(),
            code: Some("Out of Memory Error".into()),
        };
        let back = decode_error("db", &encode_error(&error));
        assert_eq!(back.kind_code(), "resource_limit");
        assert_eq!(back.code(), Some("Out of Memory Error"));
        assert!(back.to_string().starts_with("db: "), "{back}");
        assert!(back.to_string().contains("memory limit"), "{back}");
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        assert!(read_frame(&mut [b'Z', 0, 0, 0, 0].as_slice()).is_err());
        assert!(read_frame(&mut [b'B', 9, 0, 0, 0, 1].as_slice()).is_err());
        assert!(read_frame(&mut [b'B', 255, 255, 255, 255].as_slice()).is_err());
        assert!(Request::decode(&[1, 2, 3]).is_err());
        assert!(decode_batch(b"not arrow").is_err());
        assert_eq!(decode_error("db", &[1, 0]).kind_code(), "engine");
    }
}
