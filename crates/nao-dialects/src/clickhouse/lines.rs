//! Splitting a streamed response body into lines, each at most a bounded length.

/// The lines of a body that arrives in chunks. Holds at most one partial line (bounded by
/// `max_line`) beside the chunk being split.
#[derive(Debug)]
pub(crate) struct Lines {
    buffer: Vec<u8>,
    /// Where the next line starts in `buffer`.
    start: usize,
    /// Where to look for the next newline (bytes before it have none).
    scanned: usize,
    max_line: usize,
}

/// A line longer than the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineTooLong;

impl Lines {
    /// Lines of at most `max_line` bytes.
    pub(crate) fn new(max_line: usize) -> Self {
        Lines {
            buffer: Vec::new(),
            start: 0,
            scanned: 0,
            max_line,
        }
    }

    /// Adds a chunk of the body (dropping the lines already taken).
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.scanned -= self.start;
            self.start = 0;
        }
        self.buffer.extend_from_slice(chunk);
    }

    /// The next complete line, without its newline; `Ok(None)` until more of the body
    /// arrives; an error once a line grows past the bound.
    pub(crate) fn next_line(&mut self) -> Result<Option<&[u8]>, LineTooLong> {
        match self.buffer[self.scanned..].iter().position(|b| *b == b'\n') {
            Some(offset) => {
                let end = self.scanned + offset;
                if end - self.start > self.max_line {
                    return Err(LineTooLong);
                }
                let line = self.start..end;
                self.start = end + 1;
                self.scanned = self.start;
                Ok(Some(&self.buffer[line]))
            }
            None => {
                self.scanned = self.buffer.len();
                if self.buffer.len() - self.start > self.max_line {
                    return Err(LineTooLong);
                }
                Ok(None)
            }
        }
    }

    /// What is left after the last newline (the body's end without one: a server's error
    /// text, or a cut body).
    pub(crate) fn rest(&self) -> &[u8] {
        &self.buffer[self.start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_across_chunks() {
        let mut lines = Lines::new(8);
        lines.push(b"ab\ncd");
        assert_eq!(lines.next_line(), Ok(Some(&b"ab"[..])));
        assert_eq!(lines.next_line(), Ok(None));
        lines.push(b"e\n\nf");
        assert_eq!(lines.next_line(), Ok(Some(&b"cde"[..])));
        assert_eq!(lines.next_line(), Ok(Some(&b""[..])));
        assert_eq!(lines.next_line(), Ok(None));
        assert_eq!(lines.rest(), b"f");
    }

    #[test]
    fn a_long_line_is_refused_before_it_is_whole() {
        let mut lines = Lines::new(4);
        lines.push(b"abcdefgh");
        assert_eq!(lines.next_line(), Err(LineTooLong));
        let mut lines = Lines::new(4);
        lines.push(b"abcdefgh\n");
        assert_eq!(lines.next_line(), Err(LineTooLong));
    }
}
