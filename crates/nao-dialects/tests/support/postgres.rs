//! The PostgreSQL server of `NAO_TEST_POSTGRES_URL` (a superuser URL such as
//! `postgres://postgres@127.0.0.1:5432/test`), and a [`Sandbox`] per test: a schema and a
//! login role of its own, dropped at the end.

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use nao_dialects::postgres::PostgresDialect;
use nao_dialects::postgres::driver::config::Host;
use nao_dialects::postgres::driver::{Client, Config, NoTls};

/// The variable naming the server.
pub(crate) const URL_VAR: &str = "NAO_TEST_POSTGRES_URL";

/// The superuser URL of the server, or `None` (with the reason printed) when the tests skip.
pub(crate) fn server_url() -> Option<String> {
    super::url_from_env(URL_VAR, "postgres://postgres@127.0.0.1:5432/test")
}

/// A session as the superuser of `url`, without TLS. Panics when the server is unreachable:
/// with the variable set, that is a failure, not a skip.
pub(crate) async fn connect_admin(url: &str) -> Client {
    let (client, connection) = Config::from_str(url)
        .unwrap()
        .connect(NoTls)
        .await
        .unwrap_or_else(|e| panic!("{URL_VAR} is set but the server is unreachable: {e}"));
    tokio::spawn(connection);
    client
}

/// The role reads the schema: `USAGE` on it and `SELECT` on the tables and sequences the admin
/// makes there later (default privileges); unqualified names resolve to the schema, for the
/// role and for the sandbox's admin session.
pub(crate) const READER: &str = "
    GRANT USAGE ON SCHEMA {schema} TO {role};
    ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO {role};
    ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON SEQUENCES TO {role};
    ALTER ROLE {role} SET search_path = {schema};
    SET search_path = {schema};";

/// The role may log in and read what `PUBLIC` may, nothing more.
pub(crate) const LOGIN_ONLY: &str = "";

/// A schema and a login role of one test, dropped on drop with every role named
/// `nao_…_<suffix>` (roles a test adds, when it names them so) even when the test fails.
pub(crate) struct Sandbox {
    /// The superuser URL.
    pub(crate) url: String,
    /// What makes the sandbox's names unique: the label, the process, a counter and the time.
    pub(crate) suffix: String,
    /// `nao_test_<suffix>`.
    pub(crate) schema: String,
    /// `nao_ro_<suffix>`, a login role.
    pub(crate) role: String,
    /// A superuser session.
    pub(crate) admin: Client,
}

impl Sandbox {
    /// Creates the schema and the role, then runs `setup` as the superuser (`{schema}` and
    /// `{role}` stand for their names), e.g. [`READER`] or [`LOGIN_ONLY`].
    pub(crate) async fn new(url: &str, label: &str, setup: &str) -> Sandbox {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let suffix = format!("{label}_{}_{n}_{nanos:x}", std::process::id());
        let schema = format!("nao_test_{suffix}");
        let role = format!("nao_ro_{suffix}");
        let admin = connect_admin(url).await;
        let setup = setup.replace("{schema}", &schema).replace("{role}", &role);
        admin
            .batch_execute(&format!(
                "CREATE SCHEMA {schema}; CREATE ROLE {role} LOGIN; {setup}"
            ))
            .await
            .unwrap();
        Sandbox {
            url: url.to_owned(),
            suffix,
            schema,
            role,
            admin,
        }
    }

    /// Runs `sql` (one statement or several) as the superuser.
    pub(crate) async fn admin(&self, sql: &str) {
        self.admin
            .batch_execute(sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    /// The role's connection settings.
    pub(crate) fn role_config(&self) -> Config {
        let mut config = Config::from_str(&self.url).unwrap();
        config.user(&self.role);
        config
    }

    /// The adapter, connected as the role.
    pub(crate) async fn adapter(&self) -> PostgresDialect {
        PostgresDialect::connect("pg", self.role_config())
            .await
            .unwrap()
    }

    /// A URL to the server as `user` (no password, TLS off) with `params` (`&k=v`) added.
    pub(crate) fn url_as(&self, user: &str, params: &str) -> String {
        let config = Config::from_str(&self.url).unwrap();
        let host = match &config.get_hosts()[0] {
            Host::Tcp(h) => h.clone(),
            #[allow(unreachable_patterns)]
            _ => "127.0.0.1".to_owned(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let dbname = config.get_dbname().unwrap_or("postgres");
        format!("postgres://{user}@{host}:{port}/{dbname}?sslmode=disable{params}")
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let url = self.url.clone();
        let pattern = format!("nao\\_%\\_{}", self.suffix.replace('_', "\\_"));
        // The roles are found by their suffix, so one a test made before failing goes too.
        let cleanup = format!(
            "DO $$ DECLARE r record; BEGIN
               PERFORM pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE usename LIKE '{pattern}';
               EXECUTE 'DROP SCHEMA IF EXISTS {schema} CASCADE';
               FOR r IN SELECT rolname FROM pg_roles WHERE rolname LIKE '{pattern}' LOOP
                 EXECUTE format('DROP OWNED BY %I', r.rolname);
                 EXECUTE format('DROP ROLE %I', r.rolname);
               END LOOP;
             END $$",
            schema = self.schema
        );
        super::clean_up(&self.schema, async move {
            connect_admin(&url).await.batch_execute(&cleanup).await
        });
    }
}
