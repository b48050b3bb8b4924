//! Engine errors about statements that read masked columns, with what may be their values
//! taken out. An engine can quote a value it failed on (DuckDB answers `email = 5` with
//! `Could not convert string 'ada@example.com' to INT32`), so an error about such a statement
//! is not shown as the engine wrote it.

use crate::DialectError;

/// What replaces a quoted text or a long number.
const SCRUBBED: &str = "…";

/// `error` with quoted texts (`'…'`, `"…"`) and runs of three or more digits replaced by `…`
/// in its message, and without its driver error (whose text is the engine's own).
pub(super) fn scrub_error(error: DialectError) -> DialectError {
    error.map_message(scrub).without_source()
}

/// `text` with every quoted run (single or double quotes, to the matching quote or the end)
/// and every run of three or more ASCII digits replaced by `…`.
fn scrub(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        match c {
            '\'' | '"' => {
                // Skip to the closing quote (a doubled quote inside stays inside).
                loop {
                    match chars.next() {
                        Some((_, q)) if q == c => {
                            if chars.peek().is_some_and(|&(_, n)| n == c) {
                                chars.next();
                                continue;
                            }
                            break;
                        }
                        Some(_) => {}
                        None => break,
                    }
                }
                out.push(c);
                out.push_str(SCRUBBED);
                out.push(c);
            }
            '0'..='9' => {
                let mut end = start + 1;
                while let Some(&(i, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = i + 1;
                    chars.next();
                }
                let digits = &text[start..end];
                if digits.len() >= 3 {
                    out.push_str(SCRUBBED);
                } else {
                    out.push_str(digits);
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_texts_and_long_numbers_go() {
        assert_eq!(
            scrub("Conversion Error: Could not convert string 'ada@example.com' to INT32"),
            "Conversion Error: Could not convert string '…' to INT32"
        );
        assert_eq!(
            scrub(r#"invalid input syntax for type integer: "SSN-0017" at line 1"#),
            r#"invalid input syntax for type integer: "…" at line 1"#
        );
        assert_eq!(
            scrub("value 5000000 out of range for INT8"),
            "value … out of range for INT8"
        );
        assert_eq!(scrub("name 'o''brien' here"), "name '…' here");
        assert_eq!(scrub("unterminated 'secret"), "unterminated '…'");
        assert_eq!(
            scrub("no values, just words: 12 é"),
            "no values, just words: 12 é"
        );
    }

    #[test]
    fn every_message_is_scrubbed_and_the_driver_error_dropped() {
        let error = DialectError::Engine {
            database: "shop".into(),
            message: "Could not convert string 'ada@example.com' to INT32".into(),
            code: None,
            source: Some("ada@example.com".into()),
        };
        let scrubbed = scrub_error(error);
        assert!(!scrubbed.to_string().contains("ada@"), "{scrubbed}");
        assert!(std::error::Error::source(&scrubbed).is_none());
    }
}
