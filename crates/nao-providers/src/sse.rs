//! A bounded decoder for `text/event-stream` bodies (the server-sent events both APIs stream).

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field, empty when absent.
    pub(crate) event: String,
    /// The `data:` lines, joined with newlines.
    pub(crate) data: String,
}

/// A line or an event was longer than allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseTooLong {
    pub(crate) limit: usize,
}

/// Splits a byte stream into events; holds at most `max_line` bytes of an unfinished line and
/// `max_line` bytes of event data. Lines end with CRLF, LF or a bare CR, and a byte order mark
/// opening the stream is skipped, as the event-stream format says.
///
/// Hand-written rather than an SSE crate's: the bounds on a line and on an event's data are
/// what keeps a misbehaving server from growing the client's memory.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    buf: Vec<u8>,
    scanned: usize,
    event: String,
    data: String,
    has_data: bool,
    max_line: usize,
    /// Whether the stream's first bytes have been looked at for a byte order mark.
    past_bom: bool,
    /// Whether the last line ended with a CR at the end of a chunk: a LF opening the next
    /// chunk belongs to it.
    after_cr: bool,
}

/// UTF-8's byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl SseDecoder {
    pub(crate) fn new(max_line: usize) -> Self {
        SseDecoder {
            buf: Vec::new(),
            scanned: 0,
            event: String::new(),
            data: String::new(),
            has_data: false,
            max_line,
            past_bom: false,
            after_cr: false,
        }
    }

    /// Feeds a chunk, appending the events it completes to `out`.
    pub(crate) fn push(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseTooLong> {
        let mut chunk = chunk;
        if self.after_cr && !chunk.is_empty() {
            chunk = chunk.strip_prefix(b"\n").unwrap_or(chunk);
            self.after_cr = false;
        }
        self.buf.extend_from_slice(chunk);
        if !self.past_bom {
            if self.buf.len() < BOM.len() && BOM.starts_with(&self.buf) {
                // Maybe the start of a byte order mark: wait for the rest.
                return Ok(());
            }
            if self.buf.starts_with(BOM) {
                self.buf.drain(..BOM.len());
            }
            self.past_bom = true;
            self.scanned = 0;
        }
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(offset) = self.buf[from..]
            .iter()
            .position(|&b| b == b'\n' || b == b'\r')
        {
            let end = from + offset;
            let line = String::from_utf8_lossy(&self.buf[start..end]).into_owned();
            self.line(&line, out)?;
            let mut next = end + 1;
            if self.buf[end] == b'\r' {
                match self.buf.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            start = next;
            from = next;
        }
        self.buf.drain(..start);
        self.scanned = self.buf.len();
        if self.buf.len() > self.max_line {
            return Err(SseTooLong {
                limit: self.max_line,
            });
        }
        Ok(())
    }

    /// Ends the stream: a last event without its blank line still counts.
    pub(crate) fn finish(&mut self, out: &mut Vec<SseEvent>) -> Result<(), SseTooLong> {
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let line = String::from_utf8_lossy(&rest)
                .trim_end_matches('\r')
                .to_owned();
            self.line(&line, out)?;
        }
        self.scanned = 0;
        self.line("", out)
    }

    fn line(&mut self, line: &str, out: &mut Vec<SseEvent>) -> Result<(), SseTooLong> {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event.clear();
            self.has_data = false;
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(());
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
                if self.data.len() > self.max_line {
                    return Err(SseTooLong {
                        limit: self.max_line,
                    });
                }
            }
            "event" => value.clone_into(&mut self.event),
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut decoder = SseDecoder::new(1024);
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.push(chunk, &mut out).expect("within limits");
        }
        decoder.finish(&mut out).expect("within limits");
        out
    }

    #[test]
    fn events_split_across_chunks() {
        let events = decode(&[
            b"event: ping\r\ndata: {\"a\"",
            b":1}\r\n\r\n: comment\n\ndata: x\ndata: y\n\n",
            b"data: [DONE]",
        ]);
        assert_eq!(events.len(), 3);
        assert_eq!(events[0].event, "ping");
        assert_eq!(events[0].data, "{\"a\":1}");
        assert_eq!(events[1].data, "x\ny");
        assert_eq!(events[1].event, "");
        assert_eq!(events[2].data, "[DONE]");
    }

    #[test]
    fn overlong_lines_are_refused() {
        let mut decoder = SseDecoder::new(8);
        let mut out = Vec::new();
        assert!(decoder.push(b"data: 0123456789", &mut out).is_err());
        let mut decoder = SseDecoder::new(8);
        let many = b"data: 01234\ndata: 56789\n";
        assert!(decoder.push(many, &mut out).is_err());
    }

    #[test]
    fn lines_end_with_crlf_lf_or_a_bare_cr_even_split_across_chunks() {
        let bare_cr = decode(&[b"event: a\rdata: 1\r\rdata: 2\r\r"]);
        assert_eq!(bare_cr.len(), 2, "{bare_cr:?}");
        assert_eq!(
            (bare_cr[0].event.as_str(), bare_cr[0].data.as_str()),
            ("a", "1")
        );
        assert_eq!(bare_cr[1].data, "2");
        // A CRLF cut between its two bytes is one line end, not two (which would end the
        // event early and start an empty line).
        let split = decode(&[b"data: 1\r", b"\ndata: 2\r", b"\n\r", b"\n", b"data: 3\n\n"]);
        assert_eq!(split.len(), 2, "{split:?}");
        assert_eq!(split[0].data, "1\n2");
        assert_eq!(split[1].data, "3");
        let empty_chunks = decode(&[b"data: 1\r", b"", b"\n\n"]);
        assert_eq!(empty_chunks.len(), 1, "{empty_chunks:?}");
        assert_eq!(empty_chunks[0].data, "1");
    }

    #[test]
    fn a_byte_order_mark_opening_the_stream_is_skipped() {
        let whole = decode(&[b"\xEF\xBB\xBFevent: ping\ndata: 1\n\n"]);
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].event, "ping");
        let split = decode(&[b"\xEF", b"\xBB", b"\xBFevent: ping\ndata: 1\n\n"]);
        assert_eq!(split, whole);
        // Only at the start: later it is part of a value.
        let later = decode(&[b"data: \xEF\xBB\xBFx\n\n"]);
        assert_eq!(later[0].data, "\u{feff}x");
        // A stream of nothing but a partial mark ends cleanly.
        assert_eq!(decode(&[b"\xEF\xBB"]), []);
    }

    #[test]
    fn invalid_utf8_does_not_panic() {
        let events = decode(&[b"data: \xff\xfe\n\n"]);
        assert_eq!(events.len(), 1);
    }
}
