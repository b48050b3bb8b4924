//! The MySQL or MariaDB server of `NAO_TEST_MYSQL_URL` (a user that may create databases, users
//! and roles, such as `mysql://root@127.0.0.1:3306/test`), and a [`Sandbox`] per test: a
//! database and a user that may only read it, dropped at the end.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Opts, OptsBuilder};
use nao_dialects::mysql::MySqlDialect;

/// The variable naming the server.
pub(crate) const URL_VAR: &str = "NAO_TEST_MYSQL_URL";

/// The admin URL of the server (`mariadb://` read as `mysql://`, which the driver needs), or
/// `None` (with the reason printed) when the tests skip.
pub(crate) fn server_url() -> Option<String> {
    super::url_from_env(URL_VAR, "mysql://root@127.0.0.1:3306/test")
        .map(|url| url.replacen("mariadb://", "mysql://", 1))
}

/// A random lowercase hex word, for names that must not collide with another test's.
pub(crate) fn unique() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    hasher.write_u128(nanos);
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u32(std::process::id());
    // Ten digits: user names are at most 32 characters on MySQL.
    format!("{:010x}", hasher.finish() & 0xff_ffff_ffff)
}

/// The hosts every user is created for, so it can log in however the server sees us.
pub(crate) const HOSTS: [&str; 3] = ["%", "localhost", "127.0.0.1"];

/// A database and a user of one test that may only `SELECT` from it, dropped on drop with every
/// database, user and role whose name holds the suffix (those a test adds, when it names them
/// so), even when the test fails.
pub(crate) struct Sandbox {
    /// The admin's connection options (`NAO_TEST_MYSQL_URL`).
    pub(crate) root: Opts,
    /// The admin URL.
    pub(crate) url: String,
    /// A [`unique`] word in every name the sandbox makes.
    pub(crate) suffix: String,
    /// `nao_<label>_<suffix>`.
    pub(crate) db: String,
    /// `nao_ro_<suffix>`, with `SELECT` on the database.
    pub(crate) user: String,
    /// The user's password.
    pub(crate) password: String,
}

impl Sandbox {
    /// Creates the database and the user, then runs `setup` as the admin in the database (the
    /// user may read what it makes). Panics when the server is unreachable.
    pub(crate) async fn new(url: &str, label: &str, setup: &[&str]) -> Sandbox {
        let root = Opts::from_url(url).unwrap();
        let suffix = unique();
        let sandbox = Sandbox {
            root,
            url: url.to_owned(),
            db: format!("nao_{label}_{suffix}"),
            user: format!("nao_ro_{suffix}"),
            password: format!("Pw{suffix}x9"),
            suffix,
        };
        let mut conn = Conn::new(sandbox.root.clone())
            .await
            .unwrap_or_else(|e| panic!("{URL_VAR} is set but the server is unreachable: {e}"));
        conn.query_drop(format!("CREATE DATABASE `{}`", sandbox.db))
            .await
            .unwrap();
        let _ = conn.disconnect().await;
        sandbox
            .add_user(&sandbox.user, &sandbox.password, &[])
            .await;
        sandbox.admin(setup).await;
        sandbox
    }

    /// The admin's connection options, with the database as default.
    pub(crate) fn root_opts(&self) -> Opts {
        OptsBuilder::from_opts(self.root.clone())
            .db_name(Some(self.db.clone()))
            .into()
    }

    /// A connection as the admin, in the database.
    pub(crate) async fn root_conn(&self) -> Conn {
        Conn::new(self.root_opts())
            .await
            .unwrap_or_else(|e| panic!("{URL_VAR} is set but the server is unreachable: {e}"))
    }

    /// Runs `statements` as the admin, in the database.
    pub(crate) async fn admin(&self, statements: &[&str]) {
        let mut conn = self.root_conn().await;
        for statement in statements {
            conn.query_drop(*statement)
                .await
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        let _ = conn.disconnect().await;
    }

    /// Creates `user` (for each of [`HOSTS`]) with `password`, `SELECT` on the database, and
    /// `grants` (`{user}` stands for the account, `{db}` for the database).
    pub(crate) async fn add_user(&self, user: &str, password: &str, grants: &[String]) {
        let mut statements = Vec::new();
        for host in HOSTS {
            let account = format!("'{user}'@'{host}'");
            statements.push(format!("CREATE USER {account} IDENTIFIED BY '{password}'"));
            statements.push(format!("GRANT SELECT ON `{}`.* TO {account}", self.db));
            for grant in grants {
                statements.push(grant.replace("{user}", &account).replace("{db}", &self.db));
            }
        }
        let refs: Vec<&str> = statements.iter().map(String::as_str).collect();
        self.admin(&refs).await;
    }

    /// A URL to the server as `user` with `password`, the database as default, and `params`
    /// (`?k=v`).
    pub(crate) fn url_as(&self, user: &str, password: &str, params: &str) -> String {
        format!(
            "mysql://{user}:{password}@{}:{}/{}{params}",
            self.root.ip_or_hostname(),
            self.root.tcp_port(),
            self.db
        )
    }

    /// The sandbox user's URL.
    pub(crate) fn ro_url(&self) -> String {
        self.url_as(&self.user, &self.password, "")
    }

    /// The adapter named `name`, connected as the sandbox user.
    pub(crate) async fn adapter(&self, name: &str) -> MySqlDialect {
        MySqlDialect::connect(name, &self.ro_url()).await.unwrap()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let opts = self.root.clone();
        let pattern = format!("%\\_{}%", self.suffix);
        super::clean_up(&self.db, async move {
            let mut conn = Conn::new(opts).await?;
            let databases: Vec<String> = conn
                .exec(
                    "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ?",
                    (&pattern,),
                )
                .await?;
            for db in databases {
                conn.query_drop(format!("DROP DATABASE IF EXISTS `{db}`"))
                    .await?;
            }
            let accounts: Vec<(String, String)> = conn
                .exec(
                    "SELECT User, Host FROM mysql.user WHERE User LIKE ?",
                    (&pattern,),
                )
                .await?;
            for (user, host) in accounts {
                // MariaDB's roles have an empty host and are dropped as roles.
                let statement = if host.is_empty() {
                    format!("DROP ROLE `{user}`")
                } else {
                    format!("DROP USER '{user}'@'{host}'")
                };
                conn.query_drop(statement).await?;
            }
            conn.disconnect().await
        });
    }
}
