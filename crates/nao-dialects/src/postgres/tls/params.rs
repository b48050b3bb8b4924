//! Taking libpq's TLS parameters (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) out of a
//! connection string, so tokio-postgres (which knows only `sslmode=disable|prefer|require`)
//! parses the rest. Both forms libpq accepts are handled: `postgres://…?k=v&…` URLs and
//! `key=value` strings with libpq's quoting.

/// The TLS parameters found, and the connection string without them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Extracted {
    /// What tokio-postgres parses: the input without the parameters below.
    pub(super) rest: String,
    /// `sslmode`, as written.
    pub(super) sslmode: Option<String>,
    /// `sslrootcert`: a PEM file or `system`.
    pub(super) sslrootcert: Option<String>,
    /// `sslcert`: the client certificate chain (PEM).
    pub(super) sslcert: Option<String>,
    /// `sslkey`: the client certificate's private key (PEM).
    pub(super) sslkey: Option<String>,
}

/// Parameters libpq has that this adapter refuses rather than ignores.
pub(super) const UNSUPPORTED: &[&str] = &["sslpassword", "sslcrl", "sslcrldir"];

/// Splits `input` into its TLS parameters and the rest. Errors name the problem, never the
/// text (which may hold a password).
pub(super) fn extract(input: &str) -> Result<Extracted, String> {
    let trimmed = input.trim_start();
    let lower = trimmed.get(..13).unwrap_or(trimmed).to_ascii_lowercase();
    if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        extract_from_url(input)
    } else {
        extract_from_key_values(input)
    }
}

impl Extracted {
    /// Records `key = value` if it is a TLS parameter; `Ok(false)` for any other key.
    fn take(&mut self, key: &str, value: String) -> Result<bool, String> {
        if UNSUPPORTED.contains(&key) {
            return Err(format!(
                "the connection parameter {key} is not supported (use an unencrypted PEM key; \
                 certificate revocation lists are not checked)"
            ));
        }
        let slot = match key {
            "sslmode" => &mut self.sslmode,
            "sslrootcert" => &mut self.sslrootcert,
            "sslcert" => &mut self.sslcert,
            "sslkey" => &mut self.sslkey,
            _ => return Ok(false),
        };
        *slot = Some(value);
        Ok(true)
    }
}

fn extract_from_url(url: &str) -> Result<Extracted, String> {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut extracted = Extracted::default();
    let mut kept = Vec::new();
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = crate::url::percent_decode(key)?;
        if !extracted.take(&key, crate::url::percent_decode(value)?)? {
            kept.push(pair);
        }
    }
    extracted.rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok(extracted)
}

fn extract_from_key_values(input: &str) -> Result<Extracted, String> {
    let mut extracted = Extracted::default();
    let mut kept = Vec::new();
    let mut chars = input.chars().peekable();
    loop {
        skip_whitespace(&mut chars);
        if chars.peek().is_none() {
            break;
        }
        let mut key = String::new();
        while let Some(&c) = chars.peek() {
            if c == '=' || c.is_whitespace() {
                break;
            }
            key.push(c);
            chars.next();
        }
        skip_whitespace(&mut chars);
        if chars.next() != Some('=') {
            return Err("a connection parameter has no `=` and value".into());
        }
        skip_whitespace(&mut chars);
        let value = read_value(&mut chars)?;
        if !extracted.take(&key, value.clone())? {
            kept.push(format!("{key}='{}'", quote(&value)));
        }
    }
    extracted.rest = kept.join(" ");
    Ok(extracted)
}

fn skip_whitespace(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while chars.next_if(|c| c.is_whitespace()).is_some() {}
}

/// A bare value (up to whitespace) or a single-quoted one; a backslash escapes the next
/// character in both.
fn read_value(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, String> {
    let quoted = chars.next_if_eq(&'\'').is_some();
    let mut value = String::new();
    loop {
        match chars.next() {
            None if quoted => return Err("a quoted connection parameter is not closed".into()),
            None => return Ok(value),
            Some('\'') if quoted => return Ok(value),
            Some(c) if c.is_whitespace() && !quoted => return Ok(value),
            Some('\\') => match chars.next() {
                Some(escaped) => value.push(escaped),
                None => return Err("a connection parameter ends with a lone backslash".into()),
            },
            Some(c) => value.push(c),
        }
    }
}

/// `value` escaped for a single-quoted libpq value.
fn quote(value: &str) -> String {
    value.replace('\\', "\\\\").replace('\'', "\\'")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(input: &str) -> Extracted {
        extract(input).unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    #[test]
    fn urls_lose_only_their_tls_parameters() {
        let e = ok(
            "postgres://u:pw@db:5432/shop?sslmode=verify-full&connect_timeout=5\
                    &sslrootcert=%2Fetc%2Fca%20certs%2Froot.pem&application_name=x",
        );
        assert_eq!(
            e.rest,
            "postgres://u:pw@db:5432/shop?connect_timeout=5&application_name=x"
        );
        assert_eq!(e.sslmode.as_deref(), Some("verify-full"));
        assert_eq!(e.sslrootcert.as_deref(), Some("/etc/ca certs/root.pem"));

        let e = ok("postgresql://db/shop?sslcert=/c.pem&sslkey=/k.pem");
        assert_eq!(e.rest, "postgresql://db/shop");
        assert_eq!(
            (e.sslcert.as_deref(), e.sslkey.as_deref()),
            (Some("/c.pem"), Some("/k.pem"))
        );
        assert_eq!(ok("POSTGRES://db/shop").rest, "POSTGRES://db/shop");
    }

    #[test]
    fn key_value_strings_keep_libpq_quoting() {
        let e =
            ok(r"host=db  user = 'o\'brien' password=p\ w sslmode=require sslrootcert='/a b.pem'");
        assert_eq!(e.sslmode.as_deref(), Some("require"));
        assert_eq!(e.sslrootcert.as_deref(), Some("/a b.pem"));
        assert_eq!(e.rest, r"host='db' user='o\'brien' password='p w'");
        let reparsed = ok(&e.rest);
        assert_eq!(reparsed.rest, e.rest);
    }

    #[test]
    fn bad_input_is_an_error_that_does_not_repeat_it() {
        for bad in [
            "host=db password='secret",
            "host=db secret",
            "host=db password=secret\\",
            "postgres://db/x?sslrootcert=%zz",
            "postgres://db/x?sslpassword=secret",
            "host=db sslcrl=/x.pem",
        ] {
            let error = extract(bad).map(|_| ()).unwrap_err();
            assert!(!error.contains("secret"), "{bad}: {error}");
        }
        assert!(
            extract("postgres://db/x?sslpassword=1")
                .unwrap_err()
                .contains("sslpassword")
        );
    }
}
