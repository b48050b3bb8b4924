//! [`Secrets`]: the values of a configuration that no error, log line or `Debug` output may
//! show (passwords, tokens, key material), and the scrubbing of driver messages that might
//! repeat them.

use std::fmt;

/// What stands for a secret in any text the adapter shows.
pub(super) const MASK: &str = "***";

/// Secret values to scrub from text. Values shorter than three characters are not scrubbed
/// (they would mangle ordinary words, and guess nothing).
#[derive(Clone, Default)]
pub(super) struct Secrets {
    values: Vec<String>,
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secrets({} hidden)", self.values.len())
    }
}

impl Secrets {
    /// Remembers `value` (and its percent-decoded form, as a driver may echo either).
    pub(super) fn add(&mut self, value: &str) {
        for form in [value.to_owned(), percent_decoded(value)] {
            if form.chars().count() >= 3 && !self.values.contains(&form) {
                self.values.push(form);
            }
        }
        // Longest first, so a secret containing another is masked whole.
        self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    }

    /// `text` with every remembered secret replaced by [`MASK`].
    pub(super) fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for value in &self.values {
            if out.contains(value.as_str()) {
                out = out.replace(value.as_str(), MASK);
            }
        }
        out
    }
}

/// Whether an option of this key holds a secret, by the words drivers use for them.
pub(super) fn is_secret_key(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    [
        "password",
        "passwd",
        "token",
        "secret",
        "credential",
        "private_key",
        "authorization",
        "passcode",
    ]
    .iter()
    .any(|word| key.contains(word))
}

/// `%xx` escapes decoded (lossily), for secrets written percent-encoded in a URL.
fn percent_decoded(value: &str) -> String {
    percent_encoding::percent_decode_str(value)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_scrubbed_in_both_forms() {
        let mut secrets = Secrets::default();
        secrets.add("p%40ss:word");
        secrets.add("ab");
        let text = "login failed for p@ss:word (uri postgresql://u:p%40ss:word@h/db)";
        let scrubbed = secrets.scrub(text);
        assert!(
            !scrubbed.contains("p@ss") && !scrubbed.contains("p%40ss"),
            "{scrubbed}"
        );
        assert_eq!(secrets.scrub("ab cd"), "ab cd");
        assert!(!format!("{secrets:?}").contains("ss"));
    }

    #[test]
    fn secret_keys_are_recognised() {
        for key in [
            "password",
            "adbc.snowflake.sql.client_option.jwt_private_key",
            "adbc.bigquery.sql.auth_credentials",
            "adbc.flight.sql.authorization_header",
            "adbc.flight.sql.oauth.client_secret",
        ] {
            assert!(is_secret_key(key), "{key}");
        }
        assert!(!is_secret_key("adbc.snowflake.sql.warehouse"));
    }
}
