//! Nested values (`Array`, `Tuple`, `Map`) as ClickHouse writes them inside a TabSeparated
//! field: `['a\'b',NULL]`, `(1,'x')`, `{'k':1}`; elements are quoted strings with escapes,
//! bare tokens (numbers, `NULL`), or nested values again.

use std::borrow::Cow;

/// How deep values may nest; deeper text is refused (no stack overflow on hostile input).
const MAX_DEPTH: usize = 64;

/// One parsed value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Literal<'a> {
    /// A bare `NULL`.
    Null,
    /// A quoted string (escapes undone) or a bare token.
    Text(Cow<'a, [u8]>),
    /// `[…]`.
    List(Vec<Literal<'a>>),
    /// `(…)`.
    Tuple(Vec<Literal<'a>>),
    /// `{k:v, …}`.
    Map(Vec<(Literal<'a>, Literal<'a>)>),
}

/// Parses one whole value; `None` for malformed text, trailing bytes, or nesting past the
/// bound.
pub(crate) fn parse(text: &[u8]) -> Option<Literal<'_>> {
    let mut parser = Parser { text, at: 0 };
    let value = parser.value(0)?;
    (parser.at == text.len()).then_some(value)
}

struct Parser<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(|b| b == b' ') {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Literal<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_spaces();
        match self.peek()? {
            b'[' => self.sequence(b']', depth).map(Literal::List),
            b'(' => self.sequence(b')', depth).map(Literal::Tuple),
            b'{' => self.map(depth),
            b'\'' => self.quoted(),
            _ => self.bare(),
        }
    }

    /// Elements up to `close`, after the opening bracket.
    fn sequence(&mut self, close: u8, depth: usize) -> Option<Vec<Literal<'a>>> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_spaces();
        if self.peek()? == close {
            self.at += 1;
            return Some(items);
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_spaces();
            match self.peek()? {
                b',' => self.at += 1,
                b if b == close => {
                    self.at += 1;
                    return Some(items);
                }
                _ => return None,
            }
        }
    }

    fn map(&mut self, depth: usize) -> Option<Literal<'a>> {
        self.at += 1;
        let mut entries = Vec::new();
        self.skip_spaces();
        if self.peek()? == b'}' {
            self.at += 1;
            return Some(Literal::Map(entries));
        }
        loop {
            let key = self.value(depth + 1)?;
            self.skip_spaces();
            if self.peek()? != b':' {
                return None;
            }
            self.at += 1;
            let value = self.value(depth + 1)?;
            entries.push((key, value));
            self.skip_spaces();
            match self.peek()? {
                b',' => self.at += 1,
                b'}' => {
                    self.at += 1;
                    return Some(Literal::Map(entries));
                }
                _ => return None,
            }
        }
    }

    fn quoted(&mut self) -> Option<Literal<'a>> {
        self.at += 1;
        let start = self.at;
        let mut owned: Option<Vec<u8>> = None;
        loop {
            match self.peek()? {
                b'\'' => {
                    let text = match owned {
                        Some(bytes) => Cow::Owned(bytes),
                        None => Cow::Borrowed(&self.text[start..self.at]),
                    };
                    self.at += 1;
                    return Some(Literal::Text(text));
                }
                b'\\' => {
                    let rest = self.text.get(self.at + 1..).filter(|r| !r.is_empty())?;
                    let (byte, used) = super::escape::escape_at(rest);
                    owned
                        .get_or_insert_with(|| self.text[start..self.at].to_vec())
                        .push(byte);
                    self.at += 1 + used;
                }
                other => {
                    if let Some(bytes) = owned.as_mut() {
                        bytes.push(other);
                    }
                    self.at += 1;
                }
            }
        }
    }

    fn bare(&mut self) -> Option<Literal<'a>> {
        let start = self.at;
        while self.peek().is_some_and(|b| {
            !matches!(
                b,
                b',' | b']' | b')' | b'}' | b':' | b' ' | b'[' | b'(' | b'{' | b'\''
            )
        }) {
            self.at += 1;
        }
        let token = &self.text[start..self.at];
        match token {
            b"" => None,
            b"NULL" => Some(Literal::Null),
            _ => Some(Literal::Text(Cow::Borrowed(token))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Literal<'static> {
        Literal::Text(Cow::Owned(s.as_bytes().to_vec()))
    }

    #[test]
    fn what_servers_write() {
        assert_eq!(
            parse(br"['a\tb','c\\d','e\'f',NULL]"),
            Some(Literal::List(vec![
                text("a\tb"),
                text("c\\d"),
                text("e'f"),
                Literal::Null
            ]))
        );
        assert_eq!(
            parse(br"('x\ny',1.5,'2020-01-02')"),
            Some(Literal::Tuple(vec![
                text("x\ny"),
                text("1.5"),
                text("2020-01-02")
            ]))
        );
        assert_eq!(
            parse(b"[[1,2],[]]"),
            Some(Literal::List(vec![
                Literal::List(vec![text("1"), text("2")]),
                Literal::List(vec![])
            ]))
        );
        assert_eq!(
            parse(b"{'a':1,'b':NULL}"),
            Some(Literal::Map(vec![
                (text("a"), text("1")),
                (text("b"), Literal::Null)
            ]))
        );
    }

    #[test]
    fn hostile_text_is_refused() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(parse(deep.as_bytes()), None);
        for junk in [
            &b"["[..],
            b"['a",
            b"[1,",
            b"[1]]",
            b"{'a'}",
            b"'\\",
            b"",
            b"[,]",
            b"(1 2)",
        ] {
            assert_eq!(parse(junk), None, "{:?}", String::from_utf8_lossy(junk));
        }
    }
}
