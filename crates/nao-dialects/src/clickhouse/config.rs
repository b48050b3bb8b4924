//! Where a ClickHouse server is and how to reach it: from a `clickhouse://` URL or built in
//! code.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// A ClickHouse server's HTTP interface and the credentials to use on it. Built with
/// [`ClickHouseConfig::new`] or from a URL with [`ClickHouseConfig::from_url`]. `Debug` never
/// shows the password.
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq)]
pub struct ClickHouseConfig {
    /// The host name or address.
    pub host: String,
    /// The HTTP(S) port (8123 for HTTP, 8443 for HTTPS by default).
    pub port: u16,
    /// Whether to speak HTTPS (`clickhouses://`).
    pub tls: bool,
    /// A private CA (a PEM file, read when the adapter connects) to trust instead of the
    /// system's roots, for HTTPS (`?tls_ca=/path/ca.pem`).
    pub tls_ca: Option<PathBuf>,
    /// The user (`default` when the URL names none).
    pub user: String,
    /// The password (empty: none).
    pub password: String,
    /// The database unqualified names resolve in (`default` when the URL names none).
    pub database: String,
    /// How long connecting may take.
    pub connect_timeout: Duration,
}

impl fmt::Debug for ClickHouseConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClickHouseConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("tls", &self.tls)
            .field("tls_ca", &self.tls_ca)
            .field("user", &self.user)
            .field("password", &"<redacted>")
            .field("database", &self.database)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// Default for [`ClickHouseConfig::connect_timeout`].
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why a `clickhouse://` URL was refused. Its `Display` never repeats the password.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClickHouseUrlError {
    /// Not a URL at all.
    #[error("not a valid URL: {0}")]
    Malformed(String),
    /// A scheme other than `clickhouse` or `clickhouses`.
    #[error("the scheme must be clickhouse:// (HTTP) or clickhouses:// (HTTPS), not {0}://")]
    Scheme(String),
    /// No host.
    #[error("the URL names no host")]
    NoHost,
    /// A path that is not one database name.
    #[error("the path must be one database name, as in clickhouse://host:8123/analytics")]
    Database,
    /// A query parameter the adapter does not know.
    #[error("unknown URL parameter {0:?} (tls_ca= is the only one)")]
    Parameter(String),
    /// `tls_ca=` on a plain HTTP URL.
    #[error("tls_ca= needs HTTPS: use clickhouses://")]
    CaWithoutTls,
}

impl ClickHouseConfig {
    /// A server at `host:port` over plain HTTP, as user `default` without a password, in
    /// database `default`.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        ClickHouseConfig {
            host: host.into(),
            port,
            tls: false,
            tls_ca: None,
            user: "default".to_owned(),
            password: String::new(),
            database: "default".to_owned(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Reads `clickhouse://user:password@host:port/database` (HTTP, port 8123 by default) or
    /// `clickhouses://…` (HTTPS, port 8443 by default, the system's roots). User and password
    /// are percent-decoded.
    ///
    /// ```
    /// use nao_dialects::clickhouse::ClickHouseConfig;
    ///
    /// let config = ClickHouseConfig::from_url("clickhouse://reader:s%40cret@db:8123/shop")?;
    /// assert_eq!((config.user.as_str(), config.password.as_str()), ("reader", "s@cret"));
    /// assert_eq!((config.port, config.database.as_str(), config.tls), (8123, "shop", false));
    /// assert!(!format!("{config:?}").contains("s@cret"));
    /// # Ok::<(), nao_dialects::clickhouse::ClickHouseUrlError>(())
    /// ```
    ///
    /// # Errors
    /// [`ClickHouseUrlError`] for anything else, without repeating the password.
    pub fn from_url(text: &str) -> Result<Self, ClickHouseUrlError> {
        // The url crate's own error never holds the input, so it cannot leak the password.
        let url =
            url::Url::parse(text).map_err(|e| ClickHouseUrlError::Malformed(e.to_string()))?;
        let tls = match url.scheme() {
            "clickhouse" => false,
            "clickhouses" => true,
            other => return Err(ClickHouseUrlError::Scheme(other.to_owned())),
        };
        let host = url
            .host_str()
            .filter(|h| !h.is_empty())
            .ok_or(ClickHouseUrlError::NoHost)?;
        // `[::1]` comes back bracketed; the HTTP URL built later needs the brackets again.
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = url.port().unwrap_or(if tls { 8443 } else { 8123 });
        let mut config = ClickHouseConfig::new(host, port);
        config.tls = tls;
        if !url.username().is_empty() {
            config.user = decode(url.username());
        }
        if let Some(password) = url.password() {
            config.password = decode(password);
        }
        let path = url.path().trim_start_matches('/');
        if !path.is_empty() {
            let database = decode(path);
            if database.contains('/') || database.trim().is_empty() {
                return Err(ClickHouseUrlError::Database);
            }
            config.database = database;
        }
        for (name, value) in url.query_pairs() {
            match name.as_ref() {
                "tls_ca" if tls => config.tls_ca = Some(PathBuf::from(value.into_owned())),
                "tls_ca" => return Err(ClickHouseUrlError::CaWithoutTls),
                _ => return Err(ClickHouseUrlError::Parameter(name.into_owned())),
            }
        }
        Ok(config)
    }

    /// The base HTTP(S) URL of the server (no credentials: they go in headers).
    pub(super) fn base_url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        if self.host.contains(':') {
            format!("{scheme}://[{}]:{}/", self.host, self.port)
        } else {
            format!("{scheme}://{}:{}/", self.host, self.port)
        }
    }
}

/// Percent-decodes a URL part (`+` stays `+`, as in a URL's user info and path); lossy on
/// invalid UTF-8, which no header or database name could carry anyway. (The url crate leaves
/// user info and path encoded.)
fn decode(part: &str) -> String {
    percent_encoding::percent_decode_str(part)
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_parts() {
        let c = ClickHouseConfig::from_url("clickhouses://u:p@h.example/analytics").unwrap();
        assert_eq!(
            (
                c.host.as_str(),
                c.port,
                c.tls,
                c.user.as_str(),
                c.password.as_str()
            ),
            ("h.example", 8443, true, "u", "p")
        );
        assert_eq!(c.database, "analytics");
        assert_eq!(c.base_url(), "https://h.example:8443/");
        let d = ClickHouseConfig::from_url("clickhouse://127.0.0.1").unwrap();
        assert_eq!(
            (d.port, d.user.as_str(), d.database.as_str()),
            (8123, "default", "default")
        );
        let v6 = ClickHouseConfig::from_url("clickhouse://[::1]:9/").unwrap();
        assert_eq!(v6.base_url(), "http://[::1]:9/");
    }

    #[test]
    fn refusals_never_repeat_the_password() {
        for url in [
            "postgres://u:hunter2@h/db",
            "clickhouse://u:hunter2@h:1/a/b",
            "clickhouse://u:hunter2@h:1/a?x=1",
            "clickhouse://u:hunter2@h:99999/a",
            "clickhouse://u:hunter2@/a",
        ] {
            let error = ClickHouseConfig::from_url(url).unwrap_err();
            assert!(!error.to_string().contains("hunter2"), "{url}: {error}");
            assert!(!format!("{error:?}").contains("hunter2"), "{url}");
        }
        let ok = ClickHouseConfig::from_url("clickhouse://u:hunter2@h/a").unwrap();
        assert!(!format!("{ok:?}").contains("hunter2"));
    }

    #[test]
    fn a_private_ca_needs_https() {
        let https = ClickHouseConfig::from_url("clickhouses://h/a?tls_ca=/etc/nao/ca.pem").unwrap();
        assert_eq!(
            https.tls_ca.as_deref(),
            Some(std::path::Path::new("/etc/nao/ca.pem"))
        );
        assert_eq!(
            ClickHouseConfig::from_url("clickhouse://h/a?tls_ca=/etc/nao/ca.pem"),
            Err(ClickHouseUrlError::CaWithoutTls)
        );
    }

    #[test]
    fn decodes_user_info() {
        let c = ClickHouseConfig::from_url("clickhouse://a%20b:x+y%2Fz@h/").unwrap();
        assert_eq!((c.user.as_str(), c.password.as_str()), ("a b", "x+y/z"));
    }
}
