//! The bearer token HTTP clients must present, when the server is given one.
//!
//! A server that listens beyond loopback serves whoever reaches its port; with a token
//! ([`HttpConfig::with_bearer_token`](crate::http::HttpConfig::with_bearer_token), or
//! `--auth-token-env` / `--auth-token-file` on the command line) every request must carry
//! `Authorization: Bearer <token>`, compared in constant time, or it gets 401 before anything
//! else is looked at. The token is never printed: not in `Debug`, not in logs.

use std::fmt;

/// A shared secret clients send as `Authorization: Bearer <token>`.
#[derive(Clone, PartialEq, Eq)]
pub struct BearerToken(String);

impl BearerToken {
    /// The token, without surrounding white space (a file's final newline); `None` when
    /// nothing is left, or when it holds characters an HTTP header cannot carry.
    pub fn new(token: &str) -> Option<Self> {
        let token = token.trim();
        let sendable = token.bytes().all(|b| b.is_ascii_graphic());
        (!token.is_empty() && sendable).then(|| BearerToken(token.to_owned()))
    }

    /// Whether an `Authorization` header value presents this token (scheme `Bearer`, any
    /// case, as RFC 6750 allows). The token is compared in constant time.
    pub fn authorizes(&self, header: Option<&[u8]>) -> bool {
        use subtle::ConstantTimeEq;
        let Some(header) = header else { return false };
        let Some(scheme) = header.get(..7) else {
            return false;
        };
        if !scheme.eq_ignore_ascii_case(b"bearer ") {
            return false;
        }
        let presented = header[7..].trim_ascii();
        presented.ct_eq(self.0.as_bytes()).into()
    }
}

impl fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BearerToken(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_bearer_scheme_with_the_same_token_authorizes() {
        let token = BearerToken::new("s3cret-token\n").unwrap();
        assert!(token.authorizes(Some(b"Bearer s3cret-token")));
        assert!(token.authorizes(Some(b"bearer   s3cret-token ")));
        for refused in [
            &b"Bearer s3cret-toke"[..],
            b"Bearer s3cret-token2",
            b"Basic s3cret-token",
            b"s3cret-token",
            b"Bearer",
            b"Bearer ",
            b"",
        ] {
            assert!(!token.authorizes(Some(refused)), "{refused:?}");
        }
        assert!(!token.authorizes(None));
    }

    #[test]
    fn empty_or_unsendable_tokens_are_none_and_debug_hides_the_token() {
        assert_eq!(BearerToken::new("  \n"), None);
        assert_eq!(BearerToken::new("two words"), None);
        assert_eq!(BearerToken::new("tøken"), None);
        let token = BearerToken::new("s3cret").unwrap();
        assert!(!format!("{token:?}").contains("s3cret"));
    }
}
