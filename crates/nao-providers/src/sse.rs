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
/// `max_line` bytes of event data.
#[derive(Debug)]
pub(crate) struct SseDecoder {
    buf: Vec<u8>,
    scanned: usize,
    event: String,
    data: String,
    has_data: bool,
    max_line: usize,
}

impl SseDecoder {
    pub(crate) fn new(max_line: usize) -> Self {
        SseDecoder {
            buf: Vec::new(),
            scanned: 0,
            event: String::new(),
            data: String::new(),
            has_data: false,
            max_line,
        }
    }

    /// Feeds a chunk, appending the events it completes to `out`.
    pub(crate) fn push(&mut self, chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseTooLong> {
        self.buf.extend_from_slice(chunk);
        let mut start = 0;
        let mut from = self.scanned;
        while let Some(offset) = self.buf[from..].iter().position(|&b| b == b'\n') {
            let end = from + offset;
            let mut line = &self.buf[start..end];
            if let Some(stripped) = line.strip_suffix(b"\r") {
                line = stripped;
            }
            let line = String::from_utf8_lossy(line).into_owned();
            self.line(&line, out)?;
            start = end + 1;
            from = start;
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
    fn invalid_utf8_does_not_panic() {
        let events = decode(&[b"data: \xff\xfe\n\n"]);
        assert_eq!(events.len(), 1);
    }
}
