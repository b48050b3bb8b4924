//! A guard on the bytes the server sends: every backend message declares its length in its
//! first five bytes, and the guard fails the read of any message longer than the current
//! statement's byte cap, before the driver buffers it.
//!
//! Why here: tokio-postgres reads each message whole into its buffer before handing it over,
//! so one 1 GB value would be 1 GB in memory (and the buffer keeps that size for the life of the
//! connection) whatever the adapter does with rows afterwards, and PostgreSQL has no setting that
//! caps what it sends. Rewriting the SQL to measure values first would change what runs; the
//! message header is the one place where the size is known before the bytes arrive. The
//! connection then fails ([`Refused`] says why), the statement reports the value as too large,
//! and the connection is dropped.

use std::io;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The smallest message limit, whatever the byte cap: row descriptions, errors and notices of
/// ordinary statements fit, so a tiny cap never breaks the protocol itself.
const MIN_LIMIT: usize = 1 << 20;

/// The DataRow message type.
const DATA_ROW: u8 = b'D';

/// A message the guard refused: its type, its size and what it saw of its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Refused {
    /// The message type (`b'D'` for a row).
    pub(super) tag: u8,
    /// The message's length after its header, in bytes.
    pub(super) size: usize,
    /// For a row: the largest column whose length arrived with the header (index, bytes).
    pub(super) column: Option<(usize, usize)>,
    /// The limit the message broke.
    pub(super) limit: usize,
}

impl Refused {
    /// Whether the refused message was a row.
    pub(super) fn is_row(&self) -> bool {
        self.tag == DATA_ROW
    }
}

/// The limit one connection's guard enforces, shared with the statement that uses the
/// connection.
#[derive(Debug)]
pub(super) struct WireLimit {
    limit: AtomicUsize,
    largest: AtomicUsize,
    refused: Mutex<Option<Refused>>,
}

impl WireLimit {
    /// A limit of `bytes` (at least [`MIN_LIMIT`]).
    pub(super) fn new(bytes: usize) -> Self {
        WireLimit {
            limit: AtomicUsize::new(bytes.max(MIN_LIMIT)),
            largest: AtomicUsize::new(0),
            refused: Mutex::new(None),
        }
    }

    /// Sets the limit for the next statement (at least [`MIN_LIMIT`]).
    pub(super) fn set(&self, bytes: usize) {
        self.limit.store(bytes.max(MIN_LIMIT), Ordering::Relaxed);
    }

    fn get(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// The largest message received so far: the driver's read buffer grew to about this size
    /// and keeps it for the life of the connection.
    pub(super) fn largest(&self) -> usize {
        self.largest.load(Ordering::Relaxed)
    }

    /// The message refused, if one was (the connection is then closed).
    pub(super) fn refused(&self) -> Option<Refused> {
        *self
            .refused
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn refuse(&self, refused: Refused) {
        *self
            .refused
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(refused);
    }
}

/// Where the guard is in the message stream.
#[derive(Debug, Default)]
struct Framing {
    /// The header bytes of the next message read so far.
    header: [u8; 5],
    have: usize,
    /// Body bytes of the current message still to come.
    body_left: usize,
}

impl Framing {
    /// Follows `bytes` through the message stream; `Err` at the first message over `limit`
    /// (what the guard saw of it).
    fn scan(&mut self, bytes: &[u8], limit: usize, largest: &AtomicUsize) -> Result<(), Refused> {
        let mut at = 0;
        while at < bytes.len() {
            if self.body_left > 0 {
                let skip = self.body_left.min(bytes.len() - at);
                self.body_left -= skip;
                at += skip;
                continue;
            }
            self.header[self.have] = bytes[at];
            self.have += 1;
            at += 1;
            if self.have < self.header.len() {
                continue;
            }
            self.have = 0;
            let [tag, a, b, c, d] = self.header;
            // The length counts itself; a malformed one is the driver's to report.
            let size = usize::try_from(u32::from_be_bytes([a, b, c, d]))
                .unwrap_or(usize::MAX)
                .saturating_sub(4);
            largest.fetch_max(size, Ordering::Relaxed);
            if size > limit {
                let column = (tag == DATA_ROW)
                    .then(|| largest_column(&bytes[at..]))
                    .flatten();
                return Err(Refused {
                    tag,
                    size,
                    column,
                    limit,
                });
            }
            self.body_left = size;
        }
        Ok(())
    }
}

/// The largest column whose length is in `body`, the start of a DataRow body (a 16-bit column
/// count, then a 32-bit length and the bytes of each column, -1 for NULL).
fn largest_column(body: &[u8]) -> Option<(usize, usize)> {
    let count = usize::from(u16::from_be_bytes([*body.first()?, *body.get(1)?]));
    let mut at = 2;
    let mut largest: Option<(usize, usize)> = None;
    for index in 0..count {
        let Some(word) = body.get(at..at + 4) else {
            break;
        };
        let length = i32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        at += 4;
        let Ok(length) = usize::try_from(length) else {
            continue;
        };
        if largest.is_none_or(|(_, most)| length > most) {
            largest = Some((index, length));
        }
        at = at.saturating_add(length);
    }
    largest
}

/// A stream whose reads fail at the first message longer than its [`WireLimit`].
#[derive(Debug)]
pub(super) struct Guarded<S> {
    inner: S,
    limit: std::sync::Arc<WireLimit>,
    framing: Framing,
    failed: bool,
}

impl<S> Guarded<S> {
    /// Guards `inner`, which must be at the start of the server's message stream (after any
    /// TLS negotiation).
    pub(super) fn new(inner: S, limit: std::sync::Arc<WireLimit>) -> Self {
        Guarded {
            inner,
            limit,
            framing: Framing::default(),
            failed: false,
        }
    }
}

fn refusal() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a message from the server is larger than the statement's byte cap",
    )
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarded<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.failed {
            return Poll::Ready(Err(refusal()));
        }
        let before = buf.filled().len();
        ready!(Pin::new(&mut self.inner).poll_read(cx, buf))?;
        let this = &mut *self;
        let limit = this.limit.get();
        let scanned = this
            .framing
            .scan(&buf.filled()[before..], limit, &this.limit.largest);
        if let Err(refused) = scanned {
            this.failed = true;
            this.limit.refuse(refused);
            // A read that fails hands over nothing.
            buf.set_filled(before);
            return Poll::Ready(Err(refusal()));
        }
        Poll::Ready(Ok(()))
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarded<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tokio::io::AsyncReadExt;

    use super::*;

    fn message(tag: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        out.extend_from_slice(&(body.len() as u32 + 4).to_be_bytes());
        out.extend_from_slice(body);
        out
    }

    fn data_row(columns: &[Option<&[u8]>]) -> Vec<u8> {
        let mut body = (columns.len() as u16).to_be_bytes().to_vec();
        for column in columns {
            match column {
                Some(bytes) => {
                    body.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
                    body.extend_from_slice(bytes);
                }
                None => body.extend_from_slice(&(-1_i32).to_be_bytes()),
            }
        }
        message(b'D', &body)
    }

    /// Reads all of `wire` through a guard, `chunk` bytes per read.
    async fn read_all(
        wire: Vec<u8>,
        limit: usize,
        chunk: usize,
    ) -> (io::Result<Vec<u8>>, Arc<WireLimit>) {
        let shared = Arc::new(WireLimit::new(limit));
        let (client, mut server) = tokio::io::duplex(chunk);
        tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let _ = server.write_all(&wire).await;
        });
        let mut guarded = Guarded::new(client, Arc::clone(&shared));
        // Reads as the driver does, into a buffer of some kilobytes.
        let mut out = Vec::new();
        let mut buffer = vec![0u8; 16 << 10];
        let result = loop {
            match guarded.read(&mut buffer).await {
                Ok(0) => break Ok(out),
                Ok(n) => out.extend_from_slice(&buffer[..n]),
                Err(e) => break Err(e),
            }
        };
        (result, shared)
    }

    #[tokio::test]
    async fn messages_under_the_limit_pass_whole_in_any_chunking() {
        let mut wire = message(b'T', b"a row description");
        wire.extend(data_row(&[Some(b"small"), None]));
        wire.extend(data_row(&[Some(&[7u8; 5000])]));
        wire.extend(message(b'Z', b"I"));
        for chunk in [1, 3, 5, 64, 4096] {
            let (read, shared) = read_all(wire.clone(), MIN_LIMIT, chunk).await;
            assert_eq!(read.expect("read"), wire, "chunk {chunk}");
            assert_eq!(shared.largest(), 5006, "chunk {chunk}");
            assert_eq!(shared.refused(), None);
        }
    }

    #[tokio::test]
    async fn a_row_over_the_limit_fails_the_read_and_names_its_largest_column() {
        let big = vec![b'x'; MIN_LIMIT + 10];
        let mut wire = message(b'T', b"description");
        wire.extend(data_row(&[Some(b"id"), None, Some(&big), Some(b"tail")]));
        let (read, shared) = read_all(wire, MIN_LIMIT, 64 << 10).await;
        assert_eq!(
            read.expect_err("refused").kind(),
            io::ErrorKind::InvalidData
        );
        let refused = shared.refused().expect("recorded");
        assert!(refused.is_row());
        assert_eq!(refused.size, 2 + 6 + 4 + 4 + big.len() + 8);
        assert_eq!(refused.column, Some((2, big.len())));
        assert_eq!(refused.limit, MIN_LIMIT);
    }

    #[tokio::test]
    async fn the_limit_follows_the_statement_and_never_drops_below_the_floor() {
        let shared = WireLimit::new(10);
        assert_eq!(shared.get(), MIN_LIMIT);
        shared.set(64 << 20);
        assert_eq!(shared.get(), 64 << 20);
        // A header split across reads is still read right.
        let mut framing = Framing::default();
        let wire = message(b'E', &[b'e'; 100]);
        let refused = wire
            .iter()
            .find_map(|byte| {
                framing
                    .scan(std::slice::from_ref(byte), 50, &shared.largest)
                    .err()
            })
            .expect("refused");
        assert_eq!(
            (refused.tag, refused.size, refused.column),
            (b'E', 100, None)
        );
    }

    #[test]
    fn a_truncated_or_malformed_row_start_never_panics() {
        assert_eq!(largest_column(&[]), None);
        assert_eq!(largest_column(&[0]), None);
        assert_eq!(largest_column(&[0, 2, 0, 0]), None);
        assert_eq!(largest_column(&[0, 2, 0, 0, 0, 9, 1]), Some((0, 9)));
        assert_eq!(
            largest_column(&[0xff, 0xff, 0x7f, 0xff, 0xff, 0xff]),
            Some((0, i32::MAX as usize))
        );
        let mut framing = Framing::default();
        let largest = AtomicUsize::new(0);
        // A length below 4 is the driver's to reject; the guard just moves on.
        assert!(
            framing
                .scan(&[b'D', 0, 0, 0, 0, b'Z'], 10, &largest)
                .is_ok()
        );
    }
}
