//! The canonical text of a UUID, for the adapters whose engines send UUIDs as 16 bytes
//! (PostgreSQL, ClickHouse's ArrowStream) or want ids as UUID text (Spark Connect).

use std::fmt::Write;

/// `01234567-89ab-cdef-0123-456789abcdef`: the `8-4-4-4-12` lowercase hex digits of `bytes`.
pub(crate) fn uuid_text(bytes: &[u8; 16]) -> String {
    let mut out = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        // Writing to a String cannot fail.
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn groups_the_digits_8_4_4_4_12() {
        let bytes: [u8; 16] = std::array::from_fn(|i| u8::try_from(i * 17).unwrap_or(0));
        assert_eq!(
            super::uuid_text(&bytes),
            "00112233-4455-6677-8899-aabbccddeeff"
        );
    }
}
