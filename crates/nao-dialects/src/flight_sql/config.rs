//! Where a Flight SQL server is and how to reach it: from a URL or built in code.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use nao_core::guard::SqlDialect;

/// How the adapter proves who it is to the server.
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq, Default)]
pub enum FlightSqlAuth {
    /// No credentials (a server on a trusted network, or one that authenticates by TLS).
    #[default]
    None,
    /// `Authorization: Bearer <token>` on every call.
    Bearer(String),
    /// A Flight `Handshake` with `Authorization: Basic` (user and password); the bearer
    /// token the server answers with is sent on every later call.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
}

impl fmt::Debug for FlightSqlAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the secrets themselves.
        match self {
            FlightSqlAuth::None => f.write_str("None"),
            FlightSqlAuth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
            FlightSqlAuth::Basic { user, .. } => f
                .debug_struct("Basic")
                .field("user", user)
                .field("password", &"<redacted>")
                .finish(),
        }
    }
}

/// TLS towards the server.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FlightSqlTls {
    /// A PEM file of the certificate authority that signed the server's certificate (a
    /// private CA); without it, the system's roots.
    pub ca_file: Option<PathBuf>,
    /// The name the server's certificate must carry, when it is not the host connected to.
    pub domain: Option<String>,
}

/// A Flight SQL server and how the adapter talks to it. Built with [`FlightSqlConfig::new`]
/// or from a URL with [`FlightSqlConfig::from_url`]. `Debug` never shows a password or token.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlightSqlConfig {
    /// The host name or address.
    pub host: String,
    /// The port.
    pub port: u16,
    /// TLS, if the server speaks it.
    pub tls: Option<FlightSqlTls>,
    /// Credentials.
    pub auth: FlightSqlAuth,
    /// The SQL dialect statements are checked in; `None`: from the server's name
    /// (`GetSqlInfo`), generic SQL if it is not one nao-rs knows.
    pub dialect: Option<SqlDialect>,
    /// Extra gRPC headers sent on every call (a database or catalog selector some servers
    /// read, say).
    pub headers: Vec<(String, String)>,
    /// How long connecting (and the handshake) may take.
    pub connect_timeout: Duration,
    /// The most result endpoints read at once when a result is spread over several.
    pub parallel_endpoints: usize,
}

/// Default for [`FlightSqlConfig::connect_timeout`].
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Default for [`FlightSqlConfig::parallel_endpoints`].
pub const DEFAULT_PARALLEL_ENDPOINTS: usize = 4;

/// Why a URL does not describe a Flight SQL server. Never repeats a password or token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid Flight SQL URL: {0}")]
pub struct FlightSqlUrlError(String);

impl FlightSqlConfig {
    /// A server at `host:port`, in plain text, with no credentials.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        FlightSqlConfig {
            host: host.into(),
            port,
            tls: None,
            auth: FlightSqlAuth::None,
            dialect: None,
            headers: Vec::new(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            parallel_endpoints: DEFAULT_PARALLEL_ENDPOINTS,
        }
    }

    /// Reads a URL:
    ///
    /// ```text
    /// flightsql://[user[:password]@]host:port[?parameters]
    /// flightsql+tls://…                (the same over TLS)
    /// ```
    ///
    /// Parameters (percent-encoded): `token=` a bearer token; `tls=true`; `tls_ca=` a PEM
    /// file of a private CA (implies TLS); `tls_domain=` the certificate's name;
    /// `dialect=` the SQL dialect to check statements in (`spark`, `duckdb`, `postgres`, …);
    /// `header.<name>=` an extra gRPC header; `connect_timeout=` seconds. A user without a
    /// token does a basic-auth handshake. The port is required: Flight SQL has no default.
    ///
    /// ```
    /// use nao_dialects::flight_sql::{FlightSqlAuth, FlightSqlConfig};
    ///
    /// let config = FlightSqlConfig::from_url("flightsql://127.0.0.1:32010?dialect=spark")?;
    /// assert_eq!(config.port, 32010);
    /// assert_eq!(config.auth, FlightSqlAuth::None);
    /// let tls = FlightSqlConfig::from_url("flightsql+tls://me:pw@db.example.com:443")?;
    /// assert!(tls.tls.is_some());
    /// assert!(!format!("{tls:?}").contains("pw"));
    /// # Ok::<(), nao_dialects::flight_sql::FlightSqlUrlError>(())
    /// ```
    ///
    /// # Errors
    /// [`FlightSqlUrlError`] naming what is wrong (never a secret).
    pub fn from_url(text: &str) -> Result<Self, FlightSqlUrlError> {
        let invalid = |message: &str| FlightSqlUrlError(message.to_owned());
        let url = url::Url::parse(text).map_err(|e| FlightSqlUrlError(e.to_string()))?;
        let tls = match url.scheme() {
            "flightsql" | "grpc" | "grpc+tcp" => false,
            "flightsql+tls" | "grpc+tls" => true,
            _ => {
                return Err(invalid(
                    "the scheme is not flightsql:// or flightsql+tls://",
                ));
            }
        };
        let host = url
            .host_str()
            .filter(|host| !host.is_empty())
            .ok_or_else(|| invalid("the URL names no host"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let port = url
            .port()
            .ok_or_else(|| invalid("the URL names no port (Flight SQL has no default port)"))?;
        if !matches!(url.path(), "" | "/") {
            return Err(invalid(
                "a Flight SQL URL has no path; select a catalog with a header.<name> parameter",
            ));
        }
        let mut config = FlightSqlConfig::new(host, port);
        if tls {
            config.tls = Some(FlightSqlTls::default());
        }
        let user = decode(url.username())?;
        let password = url.password().map(decode).transpose()?;
        let mut token = None;
        for (key, value) in url.query_pairs() {
            let value = value.into_owned();
            match key.as_ref() {
                "token" => token = Some(value),
                "tls" => {
                    if crate::url::parse_flag("tls", &value).map_err(|e| invalid(&e))? {
                        config.tls.get_or_insert_with(FlightSqlTls::default);
                    } else if tls {
                        return Err(invalid("tls=false contradicts the flightsql+tls scheme"));
                    }
                }
                "tls_ca" => {
                    config.tls.get_or_insert_with(FlightSqlTls::default).ca_file =
                        Some(PathBuf::from(value));
                }
                "tls_domain" => {
                    config.tls.get_or_insert_with(FlightSqlTls::default).domain = Some(value);
                }
                "dialect" => {
                    let dialect = value.parse::<SqlDialect>().map_err(|_| {
                        invalid("dialect= names no SQL dialect nao-rs knows (spark, duckdb, …)")
                    })?;
                    config.dialect = Some(dialect);
                }
                "connect_timeout" => {
                    let seconds = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                        .ok_or_else(|| invalid("connect_timeout= wants seconds (0 < s ≤ 3600)"))?;
                    config.connect_timeout = Duration::from_secs_f64(seconds);
                }
                other => match other.strip_prefix("header.") {
                    Some(name) if !name.is_empty() => {
                        config.headers.push((name.to_ascii_lowercase(), value));
                    }
                    // The key may hold a secret someone mistyped; name only its shape.
                    _ => {
                        return Err(invalid(
                            "an unknown URL parameter (see FlightSqlConfig::from_url)",
                        ));
                    }
                },
            }
        }
        config.auth = match (token, user.is_empty()) {
            (Some(_), false) => {
                return Err(invalid("give either user:password@ or token=, not both"));
            }
            (Some(token), true) => FlightSqlAuth::Bearer(token),
            (None, false) => FlightSqlAuth::Basic {
                user,
                password: password.unwrap_or_default(),
            },
            (None, true) => FlightSqlAuth::None,
        };
        Ok(config)
    }

    /// The `http(s)://host:port` tonic connects to.
    pub(super) fn endpoint_uri(&self) -> String {
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        if self.host.contains(':') {
            format!("{scheme}://[{}]:{}", self.host, self.port)
        } else {
            format!("{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// A percent-decoded user or password.
fn decode(text: &str) -> Result<String, FlightSqlUrlError> {
    crate::url::percent_decode(text).map_err(FlightSqlUrlError)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_host_port_tls_and_credentials() {
        let plain = FlightSqlConfig::from_url("flightsql://localhost:50051").unwrap();
        assert_eq!((plain.host.as_str(), plain.port), ("localhost", 50051));
        assert_eq!(plain.tls, None);
        assert_eq!(plain.endpoint_uri(), "http://localhost:50051");

        let basic = FlightSqlConfig::from_url("flightsql+tls://me:p%40ss@db:443/").unwrap();
        assert_eq!(
            basic.auth,
            FlightSqlAuth::Basic {
                user: "me".into(),
                password: "p@ss".into()
            }
        );
        assert_eq!(basic.endpoint_uri(), "https://db:443");

        let bearer = FlightSqlConfig::from_url(
            "flightsql://[::1]:1234?token=s3cr%2Ft&tls_ca=/etc/ca.pem&tls_domain=sail.local\
             &dialect=spark&header.x-catalog=main&connect_timeout=2.5",
        )
        .unwrap();
        assert_eq!(bearer.auth, FlightSqlAuth::Bearer("s3cr/t".into()));
        assert_eq!(bearer.endpoint_uri(), "https://[::1]:1234");
        let tls = bearer.tls.clone().unwrap();
        assert_eq!(tls.ca_file, Some(PathBuf::from("/etc/ca.pem")));
        assert_eq!(tls.domain.as_deref(), Some("sail.local"));
        assert_eq!(bearer.dialect, Some(SqlDialect::Spark));
        assert_eq!(
            bearer.headers,
            [("x-catalog".to_owned(), "main".to_owned())]
        );
        assert_eq!(bearer.connect_timeout, Duration::from_millis(2500));
    }

    #[test]
    fn secrets_stay_out_of_debug_and_errors() {
        let config = FlightSqlConfig::from_url("flightsql://me:hunter2@db:1?token=").unwrap_err();
        assert!(!config.to_string().contains("hunter2"), "{config}");
        let basic = FlightSqlConfig::from_url("flightsql://me:hunter2@db:1").unwrap();
        assert!(!format!("{basic:?}").contains("hunter2"));
        let bearer = FlightSqlConfig::from_url("flightsql://db:1?token=hunter2").unwrap();
        assert!(!format!("{bearer:?}").contains("hunter2"));
        let typo = FlightSqlConfig::from_url("flightsql://db:1?tokn=hunter2").unwrap_err();
        assert!(!typo.to_string().contains("hunter2"), "{typo}");
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        for (url, needle) in [
            ("postgres://db:1", "scheme"),
            ("flightsql://db", "port"),
            ("flightsql://db:1/catalog", "path"),
            ("flightsql://db:1?dialect=cobol", "dialect"),
            ("flightsql+tls://db:1?tls=false", "contradicts"),
            ("flightsql://db:1?connect_timeout=-3", "connect_timeout"),
            ("flightsql://u@db:1?token=t", "either"),
        ] {
            let error = FlightSqlConfig::from_url(url).unwrap_err().to_string();
            assert!(error.contains(needle), "{url}: {error}");
        }
    }
}
