//! The backslash escapes of ClickHouse's TabSeparated format (`\t`, `\n`, `\\`, `\0`, `\'`,
//! `\xHH`, …), undone; and the quoted strings inside nested values (`['a\'b']`).

/// Undoes backslash escapes: `\b \f \r \n \t \0 \a \v`, `\xHH`, and a backslash before any
/// other byte stands for that byte (`\\`, `\'`, `\"`). A lone trailing backslash stays.
pub(crate) fn unescape(raw: &[u8]) -> Vec<u8> {
    if !raw.contains(&b'\\') {
        return raw.to_vec();
    }
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let byte = raw[i];
        if byte != b'\\' || i + 1 == raw.len() {
            out.push(byte);
            i += 1;
            continue;
        }
        let (decoded, used) = escape_at(&raw[i + 1..]);
        out.push(decoded);
        i += 1 + used;
    }
    out
}

/// The byte an escape stands for, and how many bytes after the backslash it used. `rest` is
/// not empty.
pub(crate) fn escape_at(rest: &[u8]) -> (u8, usize) {
    let hex = |b: u8| (b as char).to_digit(16);
    match rest[0] {
        b'b' => (0x08, 1),
        b'f' => (0x0c, 1),
        b'r' => (b'\r', 1),
        b'n' => (b'\n', 1),
        b't' => (b'\t', 1),
        b'0' => (0, 1),
        b'a' => (0x07, 1),
        b'v' => (0x0b, 1),
        b'x' => match (
            rest.get(1).and_then(|b| hex(*b)),
            rest.get(2).and_then(|b| hex(*b)),
        ) {
            (Some(h), Some(l)) => ((h * 16 + l) as u8, 3),
            _ => (b'x', 1),
        },
        other => (other, 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_escape() {
        assert_eq!(
            unescape(b"a\\tb\\nc\\\\d\\0e\\'f\\x41\\bg\\fh\\ri\\aj\\vk\\\"l\\q"),
            b"a\tb\nc\\d\0e'fA\x08g\x0ch\ri\x07j\x0bk\"lq"
        );
        assert_eq!(unescape(br"end\"), b"end\\");
        assert_eq!(unescape(br"\x4"), b"x4");
    }
}
