//! `adbc:` URLs as [`AdbcConfig`]s: which driver each scheme loads and which option each part
//! of the URL becomes (the table is in the [module docs](super#urls)).

use nao_core::guard::SqlDialect;
use url::Url;

use super::config::AdbcConfig;

/// Why an `adbc:` URL could not be read. Its message never repeats a password or token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid adbc: URL: {0}")]
pub struct AdbcUrlError(String);

fn invalid(message: impl Into<String>) -> AdbcUrlError {
    AdbcUrlError(message.into())
}

/// Parameters every `adbc:` URL may carry, taken out before the driver sees the rest.
struct Common {
    dialect: Option<SqlDialect>,
    pool: Option<usize>,
    driver: Option<String>,
    role: Option<String>,
    allow_privileged: Option<bool>,
    options: Vec<(String, String)>,
}

impl AdbcConfig {
    /// Reads an `adbc:` URL: `adbc:postgresql://…`, `adbc:sqlite:<path>`,
    /// `adbc:flightsql://host:port`, `adbc:flightsql+tls://…`, `adbc:snowflake://…`,
    /// `adbc:bigquery://…` (see the [module docs](super#urls) for what each part becomes).
    /// Every URL may add `dialect=` (the SQL dialect to check statements in), `pool=` (most
    /// connections), `driver=` (a driver name or path to load instead of the scheme's),
    /// `option.<key>=<value>` (any database option, passed to the driver as is), and the
    /// privilege settings `set_role=` ([`with_role`](Self::with_role)) and
    /// `allow_privileged=true` ([`with_allow_privileged`](Self::with_allow_privileged)).
    ///
    /// ```
    /// use nao_dialects::adbc::AdbcConfig;
    ///
    /// let config = AdbcConfig::from_url(
    ///     "adbc:snowflake://NAO_READER:s3cret@acme-eu1/SHOP/PUBLIC?warehouse=WH&role=READER",
    /// )?;
    /// assert_eq!(config.driver, "snowflake");
    /// assert_eq!(config.shown_option("adbc.snowflake.sql.account").as_deref(), Some("acme-eu1"));
    /// assert_eq!(config.shown_option("password").as_deref(), Some("***"));
    /// # Ok::<(), nao_dialects::adbc::AdbcUrlError>(())
    /// ```
    ///
    /// # Errors
    /// [`AdbcUrlError`] for a URL that is not `adbc:`, an unknown scheme, a missing host or
    /// port, or a parameter the scheme does not take.
    pub fn from_url(url: &str) -> Result<AdbcConfig, AdbcUrlError> {
        let rest = url
            .trim()
            .strip_prefix("adbc:")
            .ok_or_else(|| invalid("it must start with adbc:"))?;
        let scheme = rest
            .split([':', '/', '?'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match scheme.as_str() {
            "postgresql" | "postgres" => postgresql(rest),
            "sqlite" => sqlite(&rest["sqlite:".len().min(rest.len())..]),
            "flightsql" | "flightsql+tls" => flight_sql(rest, scheme.ends_with("+tls")),
            "snowflake" => snowflake(rest),
            "bigquery" => bigquery(rest),
            "" => Err(invalid("no driver scheme after adbc:")),
            other => Err(invalid(format!(
                "unknown scheme adbc:{other}; use adbc:postgresql://, adbc:sqlite:, \
                 adbc:flightsql://, adbc:snowflake:// or adbc:bigquery://, or build an \
                 AdbcConfig for any other driver"
            ))),
        }
    }
}

/// Takes the common parameters out of `pairs`, leaving the others.
fn common(pairs: &mut Vec<(String, String)>) -> Result<Common, AdbcUrlError> {
    let mut found = Common {
        dialect: None,
        pool: None,
        driver: None,
        role: None,
        allow_privileged: None,
        options: Vec::new(),
    };
    let mut kept = Vec::new();
    for (key, value) in pairs.drain(..) {
        match key.as_str() {
            "dialect" => {
                found.dialect = Some(value.parse().map_err(|_| {
                    invalid("dialect= names no SQL dialect nao-rs knows (postgres, sqlite, …)")
                })?);
            }
            "pool" => {
                found.pool = Some(
                    value
                        .parse::<usize>()
                        .ok()
                        .filter(|n| (1..=256).contains(n))
                        .ok_or_else(|| invalid("pool= must be a number from 1 to 256"))?,
                );
            }
            "driver" => found.driver = Some(value),
            "set_role" => found.role = Some(value),
            "allow_privileged" => {
                found.allow_privileged =
                    Some(crate::url::parse_flag("allow_privileged", &value).map_err(invalid)?);
            }
            _ => match key.strip_prefix("option.") {
                Some(option) if !option.is_empty() => found.options.push((option.into(), value)),
                _ => kept.push((key, value)),
            },
        }
    }
    *pairs = kept;
    Ok(found)
}

/// `config` with the common parameters applied.
fn finish(mut config: AdbcConfig, common: Common) -> AdbcConfig {
    if let Some(driver) = common.driver {
        config.driver = driver;
    }
    if let Some(dialect) = common.dialect {
        config = config.with_dialect(dialect);
    }
    if let Some(pool) = common.pool {
        config = config.with_max_connections(pool);
    }
    if let Some(role) = common.role {
        config = config.with_role(role);
    }
    if let Some(allow) = common.allow_privileged {
        config = config.with_allow_privileged(allow);
    }
    for (key, value) in common.options {
        config = config.with_option(key, value);
    }
    config
}

/// A URL of the `url` crate, with an error that does not repeat it.
fn parse(url: &str) -> Result<Url, AdbcUrlError> {
    Url::parse(url).map_err(|e| invalid(format!("it does not parse as a URL ({e})")))
}

fn pairs_of(url: &Url) -> Vec<(String, String)> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn endpoint(url: &Url, default_port: Option<u16>) -> String {
    let host = url.host_str().unwrap_or("localhost");
    match url.port().or(default_port) {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

fn decoded(text: &str) -> String {
    url::form_urlencoded::parse(format!("v={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// `adbc:postgresql://user:password@host:port/db?libpq parameters` → driver `postgresql`, option
/// `uri` = the URL without `adbc:` and without nao's parameters (libpq reads the rest).
fn postgresql(rest: &str) -> Result<AdbcConfig, AdbcUrlError> {
    let mut url = parse(rest)?;
    // `postgres:user:pw@host` parses as a URL without a host, whose "path" libpq would repeat
    // in its error, password and all.
    if !url.has_host() {
        return Err(invalid(
            "a PostgreSQL URL needs // and a host after its scheme (adbc:postgresql://host/db)",
        ));
    }
    let mut pairs = pairs_of(&url);
    let common = common(&mut pairs)?;
    let mut config = AdbcConfig::new("postgresql");
    if let Some(password) = url.password() {
        config = config.with_secret(password);
    }
    for (key, value) in &pairs {
        if key == "password" {
            config = config.with_secret(value);
        }
    }
    config = config.with_endpoint(endpoint(&url, Some(5432)));
    if pairs.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(&pairs);
    }
    let uri = url.as_str().replacen("postgres://", "postgresql://", 1);
    Ok(finish(config.with_option("uri", uri), common))
}

/// `adbc:sqlite:<path>` → driver `sqlite`, option `uri` = `file:<path>?mode=ro` (SQLite opens
/// it read-only).
fn sqlite(rest: &str) -> Result<AdbcConfig, AdbcUrlError> {
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let path = path.strip_prefix("//").unwrap_or(path);
    if path.is_empty() {
        return Err(invalid(
            "adbc:sqlite: needs a file path (adbc:sqlite:/data/shop.db)",
        ));
    }
    let mut pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let common = common(&mut pairs)?;
    if let Some((key, _)) = pairs.first() {
        return Err(invalid(format!(
            "adbc:sqlite: takes no parameter {key}= (use option.<key>= for a driver option)"
        )));
    }
    // The file is opened as a URI filename: `?` and `#` in the path must not end it.
    let escaped = path
        .replace('%', "%25")
        .replace('?', "%3f")
        .replace('#', "%23");
    let config = AdbcConfig::new("sqlite")
        .with_endpoint(path)
        .with_option("uri", format!("file:{escaped}?mode=ro"));
    Ok(finish(config, common))
}

/// `adbc:flightsql://user:password@host:port?token=…` → driver `flightsql`, `uri` =
/// `grpc://host:port` (`grpc+tls://` for `flightsql+tls`), `username`, `password`, and the
/// token as `adbc.flight.sql.authorization_header` = `Bearer <token>`.
fn flight_sql(rest: &str, tls: bool) -> Result<AdbcConfig, AdbcUrlError> {
    let url = parse(rest)?;
    let host = url
        .host_str()
        .filter(|h| !h.is_empty())
        .ok_or_else(|| invalid("adbc:flightsql:// needs a host"))?;
    let port = url
        .port()
        .ok_or_else(|| invalid("adbc:flightsql:// needs a port (host:port)"))?;
    let mut pairs = pairs_of(&url);
    let common = common(&mut pairs)?;
    let scheme = if tls { "grpc+tls" } else { "grpc" };
    let mut config = AdbcConfig::new("flightsql")
        .with_endpoint(format!("{host}:{port}"))
        .with_option("uri", format!("{scheme}://{host}:{port}"));
    if !url.username().is_empty() {
        config = config.with_option("username", decoded(url.username()));
    }
    if let Some(password) = url.password() {
        config = config.with_secret_option("password", decoded(password));
    }
    for (key, value) in pairs {
        config = match key.as_str() {
            "token" if url.password().is_some() => {
                return Err(invalid(
                    "adbc:flightsql:// takes a password or a token=, not both",
                ));
            }
            "token" => config.with_secret(&value).with_secret_option(
                "adbc.flight.sql.authorization_header",
                format!("Bearer {value}"),
            ),
            _ => {
                return Err(invalid(format!(
                    "adbc:flightsql:// takes no parameter {key}="
                )));
            }
        };
    }
    Ok(finish(config, common))
}

/// `adbc:snowflake://user:password@account/database/schema?warehouse=&role=` → driver
/// `snowflake`, `username`, `password`, `adbc.snowflake.sql.account`, `.db`, `.schema`,
/// `.warehouse`, `.role`; `auth_type=` → `adbc.snowflake.sql.auth_type`, `private_key_file=` →
/// `adbc.snowflake.sql.client_option.jwt_private_key`.
fn snowflake(rest: &str) -> Result<AdbcConfig, AdbcUrlError> {
    let url = parse(rest)?;
    let account = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| {
        invalid("adbc:snowflake:// needs an account (adbc:snowflake://user@account/db)")
    })?;
    let mut pairs = pairs_of(&url);
    let common = common(&mut pairs)?;
    let mut config = AdbcConfig::new("snowflake")
        .with_endpoint(account)
        .with_option("adbc.snowflake.sql.account", account);
    if !url.username().is_empty() {
        config = config.with_option("username", decoded(url.username()));
    }
    if let Some(password) = url.password() {
        config = config.with_secret_option("password", decoded(password));
    }
    let mut path = url
        .path_segments()
        .into_iter()
        .flatten()
        .filter(|s| !s.is_empty());
    if let Some(database) = path.next() {
        config = config.with_option("adbc.snowflake.sql.db", decoded(database));
    }
    if let Some(schema) = path.next() {
        config = config.with_option("adbc.snowflake.sql.schema", decoded(schema));
    }
    for (key, value) in pairs {
        let option = match key.as_str() {
            "warehouse" => "adbc.snowflake.sql.warehouse",
            "role" => "adbc.snowflake.sql.role",
            "auth_type" => "adbc.snowflake.sql.auth_type",
            "private_key_file" => "adbc.snowflake.sql.client_option.jwt_private_key",
            _ => {
                return Err(invalid(format!(
                    "adbc:snowflake:// takes no parameter {key}="
                )));
            }
        };
        config = config.with_option(option, value);
    }
    Ok(finish(config, common))
}

/// `adbc:bigquery://project/dataset?credentials_file=…&location=…` → driver `bigquery`,
/// `adbc.bigquery.sql.project_id`, `.dataset_id`, `.location`; `credentials_file=` (a service
/// account's JSON key file) or `credentials_json=` (its content) → `auth_type` and
/// `auth_credentials`; without either, Google's application default credentials.
fn bigquery(rest: &str) -> Result<AdbcConfig, AdbcUrlError> {
    let url = parse(rest)?;
    let project = url.host_str().filter(|h| !h.is_empty()).ok_or_else(|| {
        invalid("adbc:bigquery:// needs a project (adbc:bigquery://project/dataset)")
    })?;
    let mut pairs = pairs_of(&url);
    let common = common(&mut pairs)?;
    let mut config = AdbcConfig::new("bigquery")
        .with_endpoint(project)
        .with_option("adbc.bigquery.sql.project_id", project);
    if let Some(dataset) = url
        .path_segments()
        .into_iter()
        .flatten()
        .find(|s| !s.is_empty())
    {
        config = config.with_option("adbc.bigquery.sql.dataset_id", decoded(dataset));
    }
    for (key, value) in pairs {
        config = match key.as_str() {
            "location" => config.with_option("adbc.bigquery.sql.location", value),
            "credentials_file" => config
                .with_option(
                    "adbc.bigquery.sql.auth_type",
                    "adbc.bigquery.sql.auth_type.json_credential_file",
                )
                .with_secret_option("adbc.bigquery.sql.auth_credentials", value),
            "credentials_json" => config
                .with_option(
                    "adbc.bigquery.sql.auth_type",
                    "adbc.bigquery.sql.auth_type.json_credential_string",
                )
                .with_secret_option("adbc.bigquery.sql.auth_credentials", value),
            _ => {
                return Err(invalid(format!(
                    "adbc:bigquery:// takes no parameter {key}="
                )));
            }
        };
    }
    Ok(finish(config, common))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(config: &AdbcConfig, key: &str) -> Option<String> {
        config
            .database_options()
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    }

    #[test]
    fn postgresql_keeps_libpq_parameters_and_takes_out_nao_ones() {
        let config = AdbcConfig::from_url(
            "adbc:postgres://reader:p%40ss@db.internal:6543/shop?sslmode=require&dialect=postgres&pool=2&option.adbc.postgresql.batch_size_hint_bytes=65536&set_role=nao%20reader&allow_privileged=false",
        )
        .unwrap();
        assert_eq!(config.role.as_deref(), Some("nao reader"));
        assert!(config.said_allow_privileged() && !config.allows_privileged());
        assert_eq!(config.driver, "postgresql");
        assert_eq!(
            option(&config, "uri").as_deref(),
            Some("postgresql://reader:p%40ss@db.internal:6543/shop?sslmode=require")
        );
        assert_eq!(config.endpoint, "db.internal:6543");
        assert_eq!(config.dialect, Some(SqlDialect::Postgres));
        assert_eq!(config.max_connections, 2);
        assert_eq!(
            option(&config, "adbc.postgresql.batch_size_hint_bytes").as_deref(),
            Some("65536")
        );
        let debug = format!("{config:?}");
        assert!(
            !debug.contains("p%40ss") && !debug.contains("p@ss"),
            "{debug}"
        );
    }

    #[test]
    fn sqlite_opens_the_file_read_only() {
        let config = AdbcConfig::from_url("adbc:sqlite:/data/50%shop#1.db").unwrap();
        assert_eq!(
            option(&config, "uri").as_deref(),
            Some("file:/data/50%25shop%231.db?mode=ro")
        );
        let config = AdbcConfig::from_url("adbc:sqlite:///data/shop.db?driver=/opt/x.so").unwrap();
        assert_eq!(
            option(&config, "uri").as_deref(),
            Some("file:/data/shop.db?mode=ro")
        );
        assert_eq!(config.driver, "/opt/x.so");
        assert!(AdbcConfig::from_url("adbc:sqlite:").is_err());
        assert!(AdbcConfig::from_url("adbc:sqlite:/x.db?mode=rw").is_err());
    }

    #[test]
    fn flight_sql_maps_credentials_to_options() {
        let config =
            AdbcConfig::from_url("adbc:flightsql+tls://nao:pw123@flight.internal:443").unwrap();
        assert_eq!(
            option(&config, "uri").as_deref(),
            Some("grpc+tls://flight.internal:443")
        );
        assert_eq!(option(&config, "username").as_deref(), Some("nao"));
        assert_eq!(option(&config, "password").as_deref(), Some("pw123"));
        let debug = format!("{config:?}");
        assert!(!debug.contains("pw123"), "{debug}");
        let config =
            AdbcConfig::from_url("adbc:flightsql://flight.internal:32010?token=tok123").unwrap();
        assert_eq!(
            option(&config, "adbc.flight.sql.authorization_header").as_deref(),
            Some("Bearer tok123")
        );
        let debug = format!("{config:?}");
        assert!(!debug.contains("tok123"), "{debug}");
        // The driver refuses both at once ("Authentication conflict"): so does the URL.
        assert!(AdbcConfig::from_url("adbc:flightsql://u:p@host:1?token=t").is_err());
        assert!(AdbcConfig::from_url("adbc:flightsql://host").is_err());
        assert!(AdbcConfig::from_url("adbc:flightsql://host:1?tls=1").is_err());
    }

    #[test]
    fn snowflake_and_bigquery_map_every_part() {
        let config = AdbcConfig::from_url(
            "adbc:snowflake://NAO:pw999@acme-eu1/SHOP/PUBLIC?warehouse=WH&role=READER&auth_type=auth_jwt&private_key_file=/k.p8",
        )
        .unwrap();
        for (key, value) in [
            ("username", "NAO"),
            ("password", "pw999"),
            ("adbc.snowflake.sql.account", "acme-eu1"),
            ("adbc.snowflake.sql.db", "SHOP"),
            ("adbc.snowflake.sql.schema", "PUBLIC"),
            ("adbc.snowflake.sql.warehouse", "WH"),
            ("adbc.snowflake.sql.role", "READER"),
            ("adbc.snowflake.sql.auth_type", "auth_jwt"),
            ("adbc.snowflake.sql.client_option.jwt_private_key", "/k.p8"),
        ] {
            assert_eq!(option(&config, key).as_deref(), Some(value), "{key}");
        }
        let config = AdbcConfig::from_url(
            "adbc:bigquery://my-proj/sales?credentials_file=/sa.json&location=EU",
        )
        .unwrap();
        for (key, value) in [
            ("adbc.bigquery.sql.project_id", "my-proj"),
            ("adbc.bigquery.sql.dataset_id", "sales"),
            ("adbc.bigquery.sql.location", "EU"),
            (
                "adbc.bigquery.sql.auth_type",
                "adbc.bigquery.sql.auth_type.json_credential_file",
            ),
            ("adbc.bigquery.sql.auth_credentials", "/sa.json"),
        ] {
            assert_eq!(option(&config, key).as_deref(), Some(value), "{key}");
        }
        assert!(AdbcConfig::from_url("adbc:bigquery://p?nope=1").is_err());
    }

    #[test]
    fn malformed_urls_are_precise_and_secret_free() {
        for (url, says) in [
            ("postgresql://x", "adbc:"),
            ("adbc:", "no driver"),
            ("adbc:oracle://x", "unknown scheme"),
            ("adbc:postgresql://u:hunter22@h/db?pool=0", "pool="),
            (
                "adbc:postgresql://u:hunter22@h/db?dialect=cobol",
                "dialect=",
            ),
            (
                "adbc:postgresql://u:hunter22@h/db?allow_privileged=perhaps",
                "allow_privileged must be true or false",
            ),
            ("adbc:postgres:u:hunter22@h/db", "needs // and a host"),
            (
                "adbc:postgresql:///db?password=hunter22",
                "needs // and a host",
            ),
            ("adbc:flightsql:u:hunter22@h:1", "needs a host"),
            ("adbc:snowflake:u:hunter22@acct/db", "needs an account"),
            ("adbc:bigquery:u:hunter22@proj", "needs a project"),
        ] {
            let error = AdbcConfig::from_url(url).unwrap_err().to_string();
            assert!(error.contains(says), "{url}: {error}");
            assert!(!error.contains("hunter22"), "{error}");
        }
    }
}
