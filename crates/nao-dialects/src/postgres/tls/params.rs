//! Taking libpq's TLS parameters (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) and the
//! adapter's own (`allow_privileged`, `set_role`) out of a connection string, so
//! tokio-postgres (which knows only `sslmode=disable|prefer|require`, and refuses unknown
//! keys) parses the rest. Both forms libpq accepts are handled: `postgres://…?k=v&…` URLs and
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

/// The adapter's own parameters found, and the connection string without them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(in crate::postgres) struct OpenParameters {
    /// The input without `allow_privileged` and `set_role`.
    pub(in crate::postgres) rest: String,
    /// `allow_privileged=true|false`.
    pub(in crate::postgres) allow_privileged: Option<bool>,
    /// `set_role=<name>`.
    pub(in crate::postgres) set_role: Option<String>,
}

/// Takes `allow_privileged` and `set_role` out of `input`. Errors name the problem, never
/// the text (which may hold a password).
pub(in crate::postgres) fn take_open_parameters(input: &str) -> Result<OpenParameters, String> {
    let mut found = OpenParameters::default();
    let rest = split(input, |key, value| match key {
        "allow_privileged" => {
            found.allow_privileged = Some(crate::url::parse_flag(key, &value)?);
            Ok(true)
        }
        "set_role" if value.is_empty() => Err("set_role needs a role name".into()),
        "set_role" => {
            found.set_role = Some(value);
            Ok(true)
        }
        _ => Ok(false),
    })?;
    found.rest = rest;
    Ok(found)
}

/// Splits `input` into its TLS parameters and the rest. Errors name the problem, never the
/// text (which may hold a password).
pub(super) fn extract(input: &str) -> Result<Extracted, String> {
    let mut found = Extracted::default();
    let rest = split(input, |key, value| found.take(key, value))?;
    found.rest = rest;
    Ok(found)
}

/// Removes the parameters `take` accepts (it returns `Ok(true)` for those) from `input`, a
/// URL or a `key=value` string; returns what is left, in the same form.
fn split(
    input: &str,
    take: impl FnMut(&str, String) -> Result<bool, String>,
) -> Result<String, String> {
    let trimmed = input.trim_start();
    let lower = trimmed.get(..13).unwrap_or(trimmed).to_ascii_lowercase();
    if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
        split_url(input, take)
    } else {
        split_key_values(input, take)
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

fn split_url(
    url: &str,
    mut take: impl FnMut(&str, String) -> Result<bool, String>,
) -> Result<String, String> {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let mut kept = Vec::new();
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = crate::url::percent_decode(key)?;
        if !take(&key, crate::url::percent_decode(value)?)? {
            kept.push(pair);
        }
    }
    Ok(if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    })
}

fn split_key_values(
    input: &str,
    mut take: impl FnMut(&str, String) -> Result<bool, String>,
) -> Result<String, String> {
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
        if !take(&key, value.clone())? {
            kept.push(format!("{key}='{}'", quote(&value)));
        }
    }
    Ok(kept.join(" "))
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
    fn the_adapters_own_parameters_are_taken_out_of_both_forms() {
        let found = take_open_parameters(
            "postgres://u:pw@db/shop?allow_privileged=true&sslmode=require&set_role=nao%20reader",
        )
        .unwrap();
        assert_eq!(found.rest, "postgres://u:pw@db/shop?sslmode=require");
        assert_eq!(found.allow_privileged, Some(true));
        assert_eq!(found.set_role.as_deref(), Some("nao reader"));

        let found =
            take_open_parameters("host=db password='p w' set_role='Reader' allow_privileged=0")
                .unwrap();
        assert_eq!(found.rest, "host='db' password='p w'");
        assert_eq!(found.allow_privileged, Some(false));
        assert_eq!(found.set_role.as_deref(), Some("Reader"));

        let none = take_open_parameters("postgres://db/shop").unwrap();
        assert_eq!((none.allow_privileged, none.set_role), (None, None));
        for bad in [
            "postgres://u:secret@db/x?allow_privileged=maybe",
            "host=db password=secret allow_privileged=",
            "postgres://u:secret@db/x?set_role=",
        ] {
            let error = take_open_parameters(bad).map(|_| ()).unwrap_err();
            assert!(!error.contains("secret"), "{bad}: {error}");
        }
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
