//! Where a Spark Connect server is and how to reach it: from an `sc://` URL or built in code.

use std::fmt;
use std::time::Duration;

use nao_core::guard::SqlDialect;

/// The port Spark Connect servers listen on unless told otherwise.
pub const DEFAULT_PORT: u16 = 15002;

/// Default for [`SparkConnectConfig::connect_timeout`].
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The user id sent when the URL names none.
pub const DEFAULT_USER_ID: &str = "nao";

/// The header that names a Databricks cluster; its presence makes the dialect Databricks SQL.
const DATABRICKS_CLUSTER_HEADER: &str = "x-databricks-cluster-id";

/// A Spark Connect server and how the adapter talks to it. Built with
/// [`SparkConnectConfig::new`] or from a URL with [`SparkConnectConfig::from_url`]. `Debug`
/// never shows the token, nor a header's value (headers carry credentials on some services).
#[non_exhaustive]
#[derive(Clone, PartialEq, Eq)]
pub struct SparkConnectConfig {
    /// The host name or address.
    pub host: String,
    /// The port.
    pub port: u16,
    /// Whether to speak TLS (with the system's roots).
    pub use_ssl: bool,
    /// A bearer token sent as `Authorization: Bearer` on every call.
    pub token: Option<String>,
    /// The Spark Connect session every statement runs in; `None`: a new random one. On
    /// servers whose temporary views and (on Sail) tables live in a session, this names the
    /// session that holds them. The adapter never releases it.
    pub session_id: Option<String>,
    /// The user id of every request's `UserContext`.
    pub user_id: String,
    /// Sent as the requests' `client_type` (with the adapter's own name).
    pub user_agent: Option<String>,
    /// Extra gRPC headers sent on every call (`x-databricks-cluster-id`, say).
    pub headers: Vec<(String, String)>,
    /// The SQL dialect statements are checked in: Databricks SQL when a Databricks cluster
    /// header is set or the host is a Databricks workspace, Spark SQL otherwise.
    pub dialect: SqlDialect,
    /// How long connecting may take.
    pub connect_timeout: Duration,
}

impl fmt::Debug for SparkConnectConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("SparkConnectConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("use_ssl", &self.use_ssl)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("session_id", &self.session_id)
            .field("user_id", &self.user_id)
            .field("user_agent", &self.user_agent)
            .field("headers", &headers)
            .field("dialect", &self.dialect)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// Why a URL does not describe a Spark Connect server. Never repeats a token or header value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid Spark Connect URL: {0}")]
pub struct SparkConnectUrlError(String);

impl SparkConnectConfig {
    /// A server at `host:port`, in plain text, with no token, in a new session.
    pub fn new(host: impl Into<String>, port: u16) -> Self {
        SparkConnectConfig {
            host: host.into(),
            port,
            use_ssl: false,
            token: None,
            session_id: None,
            user_id: DEFAULT_USER_ID.to_owned(),
            user_agent: None,
            headers: Vec::new(),
            dialect: SqlDialect::Spark,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }

    /// Reads a URL in Spark Connect's own convention (the one pyspark's `remote()` and
    /// Databricks Connect take):
    ///
    /// ```text
    /// sc://host[:port][/;param=value;param=value…]
    /// ```
    ///
    /// The port defaults to 15002. Parameters (values percent-encoded): `token=` a bearer
    /// token, which turns TLS on unless `use_ssl=false` says otherwise (a local test server);
    /// `use_ssl=true|false`; `session_id=` the session to run in (a UUID); `user_id=`;
    /// `user_agent=`; `dialect=spark|databricks` (read by nao-rs, not sent);
    /// `connect_timeout=` seconds. Any other parameter is sent as a gRPC header on every
    /// call, as Spark Connect clients do: Databricks Connect's
    /// `x-databricks-cluster-id=<cluster>` picks the cluster (and Databricks SQL as the
    /// dialect).
    ///
    /// ```
    /// use nao_core::guard::SqlDialect;
    /// use nao_dialects::spark_connect::SparkConnectConfig;
    ///
    /// let local = SparkConnectConfig::from_url("sc://127.0.0.1")?;
    /// assert_eq!((local.port, local.use_ssl), (15002, false));
    ///
    /// let databricks = SparkConnectConfig::from_url(
    ///     "sc://dbc-1234.cloud.databricks.com:443/;token=dapi0123;\
    ///      x-databricks-cluster-id=0123-456789-abcdefgh",
    /// )?;
    /// assert!(databricks.use_ssl);
    /// assert_eq!(databricks.dialect, SqlDialect::Databricks);
    /// assert!(!format!("{databricks:?}").contains("dapi0123"));
    /// # Ok::<(), nao_dialects::spark_connect::SparkConnectUrlError>(())
    /// ```
    ///
    /// # Errors
    /// [`SparkConnectUrlError`] naming what is wrong (never a secret).
    pub fn from_url(text: &str) -> Result<Self, SparkConnectUrlError> {
        let invalid = |message: &str| SparkConnectUrlError(message.to_owned());
        let rest = text
            .strip_prefix("sc://")
            .or_else(|| {
                text.get(..5)
                    .filter(|s| s.eq_ignore_ascii_case("sc://"))
                    .map(|_| &text[5..])
            })
            .ok_or_else(|| invalid("the scheme is not sc://"))?;
        let (authority, params) = match rest.split_once('/') {
            Some((authority, params)) => (authority, params),
            None => (rest, ""),
        };
        if authority.contains('@') {
            return Err(invalid(
                "Spark Connect URLs carry no user:password@; use ;token= (and ;user_id=)",
            ));
        }
        let (host, port) = split_host_port(authority).map_err(|e| invalid(&e))?;
        let mut config = SparkConnectConfig::new(host, port);
        if !params.is_empty() && !params.starts_with(';') {
            return Err(invalid(
                "a Spark Connect URL has no path; parameters follow as /;name=value",
            ));
        }
        let mut use_ssl = None;
        let mut dialect = None;
        for param in params.split(';').filter(|p| !p.is_empty()) {
            let Some((key, value)) = param.split_once('=') else {
                return Err(invalid("a parameter without =value (see from_url)"));
            };
            let value = crate::url::percent_decode(value).map_err(|e| invalid(&e))?;
            match key.to_ascii_lowercase().as_str() {
                "token" => config.token = Some(value),
                "use_ssl" => {
                    use_ssl =
                        Some(crate::url::parse_flag("use_ssl", &value).map_err(|e| invalid(&e))?);
                }
                "session_id" => {
                    if !is_uuid(&value) {
                        return Err(invalid("session_id= must be a UUID"));
                    }
                    config.session_id = Some(value.to_ascii_lowercase());
                }
                "user_id" => config.user_id = value,
                "user_agent" => config.user_agent = Some(value),
                "dialect" => {
                    dialect = Some(match value.to_ascii_lowercase().as_str() {
                        "spark" | "sparksql" => SqlDialect::Spark,
                        "databricks" => SqlDialect::Databricks,
                        _ => return Err(invalid("dialect= is spark or databricks")),
                    });
                }
                "connect_timeout" => {
                    let seconds = value
                        .parse::<f64>()
                        .ok()
                        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                        .ok_or_else(|| invalid("connect_timeout= wants seconds (0 < s ≤ 3600)"))?;
                    config.connect_timeout = Duration::from_secs_f64(seconds);
                }
                name if is_header_name(name) => {
                    config.headers.push((name.to_owned(), value));
                }
                // The key may hold a secret someone mistyped; name only its shape.
                _ => return Err(invalid("a parameter name that cannot be a gRPC header")),
            }
        }
        config.use_ssl = use_ssl.unwrap_or(config.token.is_some());
        config.dialect = dialect.unwrap_or_else(|| config.detected_dialect());
        Ok(config)
    }

    /// Databricks SQL for a Databricks cluster or workspace, Spark SQL otherwise.
    fn detected_dialect(&self) -> SqlDialect {
        let host = self.host.to_ascii_lowercase();
        let databricks_host =
            host.ends_with(".databricks.com") || host.ends_with(".azuredatabricks.net");
        let cluster = self
            .headers
            .iter()
            .any(|(name, _)| name == DATABRICKS_CLUSTER_HEADER);
        if databricks_host || cluster {
            SqlDialect::Databricks
        } else {
            SqlDialect::Spark
        }
    }

    /// The `http(s)://host:port` tonic connects to.
    pub(super) fn endpoint_uri(&self) -> String {
        let scheme = if self.use_ssl { "https" } else { "http" };
        if self.host.contains(':') {
            format!("{scheme}://[{}]:{}", self.host, self.port)
        } else {
            format!("{scheme}://{}:{}", self.host, self.port)
        }
    }
}

/// `host`, `host:port`, `[v6]` or `[v6]:port`.
fn split_host_port(authority: &str) -> Result<(String, u16), String> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, after) = v6
            .split_once(']')
            .ok_or("an IPv6 address without its closing ]")?;
        match after {
            "" => (host, None),
            _ => (
                host,
                Some(
                    after
                        .strip_prefix(':')
                        .ok_or("text after the IPv6 address")?,
                ),
            ),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if host.is_empty() {
        return Err("the URL names no host".to_owned());
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'))
    {
        return Err("the host is not a name or an address".to_owned());
    }
    let port = match port {
        None => DEFAULT_PORT,
        Some(port) => port
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or("the port is not a number from 1 to 65535")?,
    };
    Ok((host.to_owned(), port))
}

/// Whether `text` is a UUID in its usual 8-4-4-4-12 hex form (what Spark requires of session
/// and operation ids).
pub(super) fn is_uuid(text: &str) -> bool {
    let groups: Vec<&str> = text.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.chars().all(|c| c.is_ascii_hexdigit()))
}

/// Whether `name` can be sent as a gRPC header (lower-case token characters, not reserved).
fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with("grpc-")
        && !matches!(name, "authorization" | "te" | "content-type" | "user-agent")
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SESSION: &str = "de0e915c-1d62-49e6-a0f1-ead01b838828";

    #[test]
    fn urls_give_host_port_session_and_headers() {
        let plain = SparkConnectConfig::from_url("sc://localhost").unwrap();
        assert_eq!(
            (plain.host.as_str(), plain.port),
            ("localhost", DEFAULT_PORT)
        );
        assert_eq!(plain.endpoint_uri(), "http://localhost:15002");
        assert_eq!(plain.session_id, None);
        assert_eq!(plain.user_id, DEFAULT_USER_ID);
        assert_eq!(plain.dialect, SqlDialect::Spark);

        let sail = SparkConnectConfig::from_url(&format!(
            "sc://127.0.0.1:50051/;session_id={SESSION};user_id=alice;user_agent=notebook"
        ))
        .unwrap();
        assert_eq!(sail.port, 50051);
        assert_eq!(sail.session_id.as_deref(), Some(SESSION));
        assert_eq!(sail.user_id, "alice");
        assert_eq!(sail.user_agent.as_deref(), Some("notebook"));
        assert!(!sail.use_ssl);

        let v6 = SparkConnectConfig::from_url("sc://[::1]:1234/;use_ssl=true").unwrap();
        assert_eq!(v6.endpoint_uri(), "https://[::1]:1234");
    }

    #[test]
    fn databricks_urls_pick_the_databricks_dialect_and_tls() {
        let url = "sc://adb-123.4.azuredatabricks.net/;token=dapi%2Fabc;\
                   x-databricks-cluster-id=0123-456789-abcdefgh";
        let config = SparkConnectConfig::from_url(url).unwrap();
        assert!(config.use_ssl);
        assert_eq!(config.token.as_deref(), Some("dapi/abc"));
        assert_eq!(config.dialect, SqlDialect::Databricks);
        assert_eq!(
            config.headers,
            [(
                "x-databricks-cluster-id".to_owned(),
                "0123-456789-abcdefgh".to_owned()
            )]
        );
        let forced = SparkConnectConfig::from_url("sc://h/;dialect=databricks").unwrap();
        assert_eq!(forced.dialect, SqlDialect::Databricks);
        let local = SparkConnectConfig::from_url("sc://h:1/;token=t;use_ssl=false").unwrap();
        assert!(!local.use_ssl);
    }

    #[test]
    fn secrets_stay_out_of_debug_and_errors() {
        let config =
            SparkConnectConfig::from_url("sc://h:1/;token=hunter2;x-api-key=hunter3").unwrap();
        let debug = format!("{config:?}");
        assert!(
            !debug.contains("hunter2") && !debug.contains("hunter3"),
            "{debug}"
        );
        assert!(debug.contains("x-api-key"), "{debug}");
        // A mistyped parameter is a header, as in every Spark Connect client: its value is
        // hidden too.
        let typo = SparkConnectConfig::from_url("sc://h:1/;Tokn=hunter2").unwrap();
        assert!(!format!("{typo:?}").contains("hunter2"));
        for url in [
            "sc://h:1/;to ken=hunter2",
            "sc://h:1/;token=hunter2;session_id=hunter2",
            "sc://me:hunter2@h:1",
            "sc://h:1/;token=%zzhunter2",
        ] {
            let error = SparkConnectConfig::from_url(url).unwrap_err().to_string();
            assert!(!error.contains("hunter2"), "{url}: {error}");
        }
    }

    #[test]
    fn bad_urls_say_what_is_wrong() {
        for (url, needle) in [
            ("flightsql://db:1", "scheme"),
            ("sc://", "host"),
            ("sc://db:0", "port"),
            ("sc://db:x", "port"),
            ("sc://db/catalog", "path"),
            ("sc://db/;session_id=42", "UUID"),
            ("sc://db/;use_ssl=perhaps", "use_ssl"),
            ("sc://db/;dialect=cobol", "dialect"),
            ("sc://db/;connect_timeout=0", "connect_timeout"),
            ("sc://db/;grpc-timeout=1", "header"),
            ("sc://db/;novalue", "=value"),
        ] {
            let error = SparkConnectConfig::from_url(url).unwrap_err().to_string();
            assert!(error.contains(needle), "{url}: {error}");
        }
    }
}
