//! The planted shop on the MySQL or MariaDB server of `NAO_TEST_MYSQL_URL` (a user that may
//! create databases and users, such as `mysql://root@127.0.0.1:3306/test`): a database and a
//! user that may only read it, both dropped at the end.

use nao_dialects::mysql::driver::prelude::Queryable;
use nao_dialects::mysql::driver::{Conn, Opts, OptsBuilder};

use super::planted::{self, Engine};

/// The variable naming the server.
pub(crate) const URL_VAR: &str = "NAO_TEST_MYSQL_URL";

/// The hosts the user is created for, so it can log in however the server sees us.
const HOSTS: [&str; 3] = ["%", "localhost", "127.0.0.1"];

/// The admin URL (`mariadb://` read as `mysql://`, which the driver needs), or `None` (with
/// the reason printed) when the engine is skipped.
pub(crate) fn server_url() -> Option<String> {
    super::url_from_env(URL_VAR, "mysql://root@127.0.0.1:3306/test")
        .map(|url| url.replacen("mariadb://", "mysql://", 1))
}

/// Runs `statements` as the admin, in `db` when given. Panics when the server is
/// unreachable: with the variable set, that is a failure, not a skip.
async fn run_as_admin(admin: &Opts, db: Option<&str>, statements: &[String]) {
    let opts = OptsBuilder::from_opts(admin.clone()).db_name(db.map(str::to_owned));
    let mut conn = Conn::new(opts)
        .await
        .unwrap_or_else(|e| panic!("{URL_VAR} is set but the server is unreachable: {e}"));
    for statement in statements {
        conn.query_drop(statement.as_str())
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let _ = conn.disconnect().await;
}

/// The planted shop in a database of its own, read by a user of its own that may only
/// `SELECT` from it; dropped on drop, even when the test fails.
pub(crate) struct PlantedDatabase {
    admin: Opts,
    /// `nao_gov_<unique>`.
    pub(crate) db: String,
    /// `nao_gro_<unique>`.
    pub(crate) user: String,
    password: String,
}

impl PlantedDatabase {
    /// Creates the database, the user and the planted shop.
    pub(crate) async fn new(admin_url: &str) -> PlantedDatabase {
        let suffix = super::unique();
        let planted = PlantedDatabase {
            admin: Opts::from_url(admin_url).unwrap(),
            db: format!("nao_gov_{suffix}"),
            user: format!("nao_gro_{suffix}"),
            password: format!("Pw{suffix}x9"),
        };
        let mut setup = vec![format!("CREATE DATABASE `{}`", planted.db)];
        for host in HOSTS {
            let account = format!("'{}'@'{host}'", planted.user);
            setup.push(format!(
                "CREATE USER {account} IDENTIFIED BY '{}'",
                planted.password
            ));
            setup.push(format!("GRANT SELECT ON `{}`.* TO {account}", planted.db));
        }
        run_as_admin(&planted.admin, None, &setup).await;
        run_as_admin(
            &planted.admin,
            Some(&planted.db),
            &planted::statements(Engine::MySql),
        )
        .await;
        planted
    }

    /// A URL to the server as the user, the planted database as default.
    pub(crate) fn reader_url(&self) -> String {
        format!(
            "mysql://{}:{}@{}:{}/{}",
            self.user,
            self.password,
            self.admin.ip_or_hostname(),
            self.admin.tcp_port(),
            self.db
        )
    }
}

impl Drop for PlantedDatabase {
    fn drop(&mut self) {
        let admin = self.admin.clone();
        let mut statements = vec![format!("DROP DATABASE IF EXISTS `{}`", self.db)];
        for host in HOSTS {
            statements.push(format!("DROP USER IF EXISTS '{}'@'{host}'", self.user));
        }
        super::clean_up(&self.db, async move {
            let mut conn = Conn::new(admin).await?;
            for statement in statements {
                conn.query_drop(statement).await?;
            }
            conn.disconnect().await
        });
    }
}
