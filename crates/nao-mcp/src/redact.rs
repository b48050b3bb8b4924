//! Keeping database passwords out of every message, log line and `Debug` output.
//!
//! A database URL comes in many shapes, and each can carry a secret: URL userinfo
//! (`postgres://me:pw@host/db`, `%`-encoded or not), a query parameter (`?password=pw`),
//! libpq key=value strings (`host=h password='p w'`), semicolon-separated ones
//! (`Server=h;Password=pw`), and text with no scheme at all (`me:pw@host/db`).
//! [`redact_url`] prints any of them with its secrets replaced by `***`; [`scrub`] takes a
//! URL's secrets, raw and decoded, out of a message another component wrote about it.
//!
//! ```
//! use nao_mcp::redact::{redact_url, scrub};
//!
//! assert_eq!(redact_url("postgres://me:pw@db/x"), "postgres://me:***@db/x");
//! assert_eq!(redact_url("host=db password='p w' dbname=x"), "host=db password=*** dbname=x");
//! let url = "mysql://me:p%40ss@db/x";
//! assert_eq!(scrub("access denied for me with p@ss", url), "access denied for me with ***");
//! ```

/// What a secret is replaced with.
pub const MASK: &str = "***";

/// Parameter names whose values are secrets, matched case-insensitively as substrings
/// (`password`, `sslpassword`, `PWD`, `access_token`, `api_key`, `sslkey`…). Masking a
/// harmless value (a key file's path) costs little; printing a password costs a lot.
const SECRET_KEYS: [&str; 7] = [
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "auth",
    "credential",
];

/// `text` (a database URL in any of the shapes above, or any command-line value) with every
/// password replaced by `***`, safe to log: `postgres://me:***@host/db`.
pub fn redact_url(text: &str) -> String {
    Redaction::of(text).text
}

/// `message` with `url` replaced by its redacted form and every secret of `url` (as written,
/// `%`-decoded, unquoted) replaced by `***`, for errors that other components wrote about
/// `url` and may quote it in any form.
pub fn scrub(message: &str, url: &str) -> String {
    let redaction = Redaction::of(url);
    let mut out = if url.is_empty() {
        message.to_owned()
    } else {
        message.replace(url, &redaction.text)
    };
    for secret in &redaction.secrets {
        out = out.replace(secret.as_str(), MASK);
    }
    out
}

/// A text's redacted form and the secrets taken out of it.
struct Redaction {
    text: String,
    /// Each secret as written and as decoded; longest first, so a secret that contains
    /// another is masked whole.
    secrets: Vec<String>,
}

impl Redaction {
    fn of(text: &str) -> Redaction {
        let mut secrets = Vec::new();
        let text = match text.split_once("://") {
            Some((scheme, rest)) if is_scheme(scheme) => {
                format!("{scheme}://{}", redact_after_scheme(rest, &mut secrets))
            }
            _ if looks_like_key_values(text) => redact_key_values(text, &mut secrets),
            _ if text.contains('@') => redact_after_scheme(text, &mut secrets),
            _ => redact_query(text, &mut secrets),
        };
        let mut all: Vec<String> = Vec::new();
        for secret in secrets {
            // Masked as written and as decoded (a malformed escape is kept as written).
            if let Ok(decoded) = percent_encoding::percent_decode_str(&secret).decode_utf8() {
                all.push(decoded.into_owned());
            }
            all.push(secret);
        }
        all.retain(|s| !s.is_empty());
        all.sort_by_key(|s| std::cmp::Reverse(s.len()));
        all.dedup();
        Redaction { text, secrets: all }
    }
}

/// A URL scheme: short, starts with a letter, then letters, digits, `+`, `-` or `.`.
fn is_scheme(text: &str) -> bool {
    text.len() <= 32
        && text.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// `user:password@host/path?query` with the password and secret parameters masked. The
/// userinfo ends at the last `@` before the query, so a password holding an unencoded `/` or
/// `@` is still masked whole.
fn redact_after_scheme(rest: &str, secrets: &mut Vec<String>) -> String {
    let query_start = rest.find('?').unwrap_or(rest.len());
    let Some(at) = rest[..query_start].rfind('@') else {
        return redact_query(rest, secrets);
    };
    let (userinfo, tail) = (&rest[..at], &rest[at + 1..]);
    let tail = redact_query(tail, secrets);
    match userinfo.split_once(':') {
        Some((user, password)) => {
            secrets.push(password.to_owned());
            // A parser that ends the authority at the first `/` sees only this much of it.
            if let Some((head, _)) = password.split_once('/') {
                secrets.push(head.to_owned());
            }
            format!("{user}:{MASK}@{tail}")
        }
        None => format!("{userinfo}@{tail}"),
    }
}

/// `path?a=b&password=c` with secret parameters masked.
fn redact_query(text: &str, secrets: &mut Vec<String>) -> String {
    let Some((path, query)) = text.split_once('?') else {
        return text.to_owned();
    };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, value)) if is_secret_key(key) => {
                secrets.push(value.to_owned());
                format!("{key}={MASK}")
            }
            _ => pair.to_owned(),
        })
        .collect();
    format!("{path}?{}", pairs.join("&"))
}

fn is_secret_key(key: &str) -> bool {
    let key = key.trim().to_ascii_lowercase();
    SECRET_KEYS.iter().any(|marker| key.contains(marker))
}

/// `host=h port=5432 …` (libpq) or `Server=h;Password=p` (ADO-style): a `key=` first, with no
/// `:`, `/` or `@` in the key.
fn looks_like_key_values(text: &str) -> bool {
    match text.split_once('=') {
        Some((key, _)) => {
            let key = key.trim();
            !key.is_empty()
                && key
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ' ' | '.' | '-'))
        }
        None => false,
    }
}

/// Masks the values of secret keys in a key=value string. Values are libpq's: single-quoted
/// with backslash escapes, or a run up to whitespace; in a string with `;` outside quotes
/// (ADO-style) a bare value runs up to the `;`. Everything else is copied as written.
fn redact_key_values(text: &str, secrets: &mut Vec<String>) -> String {
    let semicolons = has_unquoted_semicolon(text);
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        // Separators between pairs.
        if chars[i].is_whitespace() || chars[i] == ';' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        // The key, up to `=` (ADO keys may hold spaces: `User Id`).
        let key_start = i;
        while i < chars.len()
            && chars[i] != '='
            && chars[i] != ';'
            && (semicolons || !chars[i].is_whitespace())
        {
            i += 1;
        }
        let key: String = chars[key_start..i].iter().collect();
        out.push_str(&key);
        // libpq allows spaces around `=`.
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        if j >= chars.len() || chars[j] != '=' {
            continue;
        }
        out.extend(&chars[i..=j]);
        i = j + 1;
        while i < chars.len() && chars[i] == ' ' {
            out.push(' ');
            i += 1;
        }
        let (raw, unquoted, end) = read_value(&chars, i, semicolons);
        if is_secret_key(&key) {
            secrets.push(raw);
            secrets.push(unquoted);
            out.push_str(MASK);
        } else {
            out.push_str(&raw);
        }
        i = end;
    }
    out
}

/// One value starting at `start`: (as written, unquoted and unescaped, index past it).
fn read_value(chars: &[char], start: usize, semicolons: bool) -> (String, String, usize) {
    let mut i = start;
    let mut unquoted = String::new();
    if let Some(&quote) = chars.get(i).filter(|c| matches!(c, '\'' | '"')) {
        i += 1;
        while i < chars.len() && chars[i] != quote {
            if chars[i] == '\\' && i + 1 < chars.len() {
                i += 1;
            }
            unquoted.push(chars[i]);
            i += 1;
        }
        i = (i + 1).min(chars.len());
    } else {
        while i < chars.len() && chars[i] != ';' && (semicolons || !chars[i].is_whitespace()) {
            if chars[i] == '\\' && i + 1 < chars.len() {
                i += 1;
            }
            unquoted.push(chars[i]);
            i += 1;
        }
    }
    let raw: String = chars[start..i].iter().collect();
    (raw, unquoted, i)
}

fn has_unquoted_semicolon(text: &str) -> bool {
    let mut quote = None;
    let mut escaped = false;
    for c in text.chars() {
        match (quote, c) {
            _ if escaped => escaped = false,
            (_, '\\') => escaped = true,
            (None, '\'' | '"') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ';') => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cr3t-PLANTED";

    /// Every shape of URL with the planted secret, and what it should print as.
    fn cases() -> Vec<(String, &'static str)> {
        vec![
            (
                format!("postgres://me:{SECRET}@db:5432/x?sslmode=require"),
                "postgres://me:***@db:5432/x?sslmode=require",
            ),
            (
                "postgres://me:s3cr3t%2DPLANTED@db/x".to_owned(),
                "postgres://me:***@db/x",
            ),
            (
                format!("postgresql://me@db/x?password={SECRET}&sslmode=require"),
                "postgresql://me@db/x?password=***&sslmode=require",
            ),
            (
                format!("postgres://me:{SECRET}/a@b@db/x"),
                "postgres://me:***@db/x",
            ),
            (
                format!("host=db port=1 user=me password={SECRET} dbname=x"),
                "host=db port=1 user=me password=*** dbname=x",
            ),
            (
                format!("host=db password='{SECRET}' dbname=x"),
                "host=db password=*** dbname=x",
            ),
            (
                format!("host=db password = 'a {SECRET} \\' b' dbname=x"),
                "host=db password = *** dbname=x",
            ),
            (
                format!("Server=db,1;User Id=me;Password={SECRET};Database=x"),
                "Server=db,1;User Id=me;Password=***;Database=x",
            ),
            (format!("mysql://me:{SECRET}@db/x"), "mysql://me:***@db/x"),
            (format!("me:{SECRET}@db:1/x"), "me:***@db:1/x"),
            (format!("redis://me:{SECRET}@db/0"), "redis://me:***@db/0"),
            (
                format!("sqlite:///tmp/a.db?password={SECRET}"),
                "sqlite:///tmp/a.db?password=***",
            ),
            (
                format!("sqlite::memory:?pwd={SECRET}"),
                "sqlite::memory:?pwd=***",
            ),
        ]
    }

    #[test]
    fn redacts_every_shape() {
        for (url, expected) in cases() {
            assert_eq!(redact_url(&url), expected, "{url}");
        }
    }

    #[test]
    fn leaves_urls_without_secrets_alone() {
        for url in [
            "sqlite:///tmp/a.db",
            "duckdb::memory:",
            "postgres://me@db/x?sslmode=require",
            "many",
            "127.0.0.1:8080",
            "",
        ] {
            assert_eq!(redact_url(url), url);
        }
    }

    #[test]
    fn scrubs_the_url_and_its_secret_from_messages() {
        for (url, _) in cases() {
            let message = format!("could not connect to {url}");
            let scrubbed = scrub(&message, &url);
            assert!(!scrubbed.contains("s3cr3t"), "{url}: {scrubbed}");
        }
        // The password alone, as a driver would quote it.
        let url = format!("host=db password = 'a {SECRET} \\' b' dbname=x");
        let scrubbed = scrub(&format!("password \"a {SECRET} ' b\" rejected"), &url);
        assert_eq!(scrubbed, "password \"***\" rejected");
        // A %-encoded password is scrubbed as written and decoded.
        let url = "postgres://me:s3cr3t%2DPLANTED@db/x";
        for message in ["s3cr3t-PLANTED", "s3cr3t%2DPLANTED"] {
            assert_eq!(scrub(message, url), MASK);
        }
        // A password with an unencoded `/` is scrubbed whole and as a parser cut it.
        let url = "postgres://me:s3cr3t/x@db/x";
        assert_eq!(
            scrub("invalid port \"s3cr3t\"", url),
            "invalid port \"***\""
        );
    }
}
