//! The planted shop on the PostgreSQL server of `NAO_TEST_POSTGRES_URL` (a superuser URL such
//! as `postgres://postgres@127.0.0.1:5432/test`): a schema and a login role that may only read
//! it, both dropped at the end.

use std::str::FromStr;

use nao_dialects::postgres::driver::config::Host;
use nao_dialects::postgres::driver::{Client, Config, NoTls};

use super::planted::{self, Engine};

/// The variable naming the server.
pub(crate) const URL_VAR: &str = "NAO_TEST_POSTGRES_URL";

/// The superuser URL, or `None` (with the reason printed) when the engine is skipped.
pub(crate) fn server_url() -> Option<String> {
    super::url_from_env(URL_VAR, "postgres://postgres@127.0.0.1:5432/test")
}

/// A session as the superuser. Panics when the server is unreachable: with the variable set,
/// that is a failure, not a skip.
async fn connect_admin(url: &str) -> Client {
    let (client, connection) = Config::from_str(url)
        .unwrap()
        .connect(NoTls)
        .await
        .unwrap_or_else(|e| panic!("{URL_VAR} is set but the server is unreachable: {e}"));
    tokio::spawn(connection);
    client
}

/// The planted shop in a schema of its own, read by a role of its own whose search path is
/// that schema; dropped on drop, even when the test fails.
pub(crate) struct PlantedSchema {
    admin_url: String,
    /// `nao_gov_<unique>`.
    pub(crate) schema: String,
    /// `nao_gov_ro_<unique>`: may log in, use the schema and select from its tables.
    pub(crate) role: String,
}

impl PlantedSchema {
    /// Creates the schema, the role and the planted shop.
    pub(crate) async fn new(admin_url: &str) -> PlantedSchema {
        let suffix = super::unique();
        let planted = PlantedSchema {
            admin_url: admin_url.to_owned(),
            schema: format!("nao_gov_{suffix}"),
            role: format!("nao_gov_ro_{suffix}"),
        };
        let (schema, role) = (&planted.schema, &planted.role);
        let setup = format!(
            "CREATE SCHEMA {schema}; CREATE ROLE {role} LOGIN;
             GRANT USAGE ON SCHEMA {schema} TO {role};
             ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO {role};
             ALTER ROLE {role} SET search_path = {schema};
             SET search_path = {schema};
             {}",
            planted::script(Engine::Postgres)
        );
        let admin = connect_admin(admin_url).await;
        admin
            .batch_execute(&setup)
            .await
            .unwrap_or_else(|e| panic!("planting the shop failed: {e}"));
        planted
    }

    /// A URL to the server as the role (no password, TLS off).
    pub(crate) fn reader_url(&self) -> String {
        let config = Config::from_str(&self.admin_url).unwrap();
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            _ => "127.0.0.1".to_owned(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let dbname = config.get_dbname().unwrap_or("postgres");
        format!(
            "postgres://{}@{host}:{port}/{dbname}?sslmode=disable",
            self.role
        )
    }
}

impl Drop for PlantedSchema {
    fn drop(&mut self) {
        let url = self.admin_url.clone();
        let cleanup = format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{role}';
             DROP SCHEMA IF EXISTS {schema} CASCADE;
             DROP OWNED BY {role};
             DROP ROLE IF EXISTS {role};",
            schema = self.schema,
            role = self.role
        );
        super::clean_up(&self.schema, async move {
            connect_admin(&url).await.batch_execute(&cleanup).await
        });
    }
}
