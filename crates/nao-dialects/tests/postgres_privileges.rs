//! Gate 3 on a real PostgreSQL server (`NAO_TEST_POSTGRES_URL`, a superuser URL such as
//! `postgres://postgres@127.0.0.1:5432/test`): the adapter refuses to open as a role that can
//! do more than read, names the privilege and gives the SQL for a read-only role, unless the
//! host opts in; `set_role` switches to a read-only role on every connection.
//!
//! Each test makes its own schema and roles (unique names) and drops them at the end, even
//! when it fails. Without the variable the tests say so and pass.
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used)] // Tests: a failed unwrap is a failed test.

mod support;

use std::str::FromStr;

use arrow_array::cast::AsArray;
use nao_core::guard::{Policy, ReadOnlySql, SqlDialect, check};
use nao_core::{Dialect, DialectError, DialectExt, ExecOptions};
use nao_dialects::postgres::PostgresDialect;
use nao_dialects::postgres::driver::Config;
use nao_dialects::{OpenError, OpenOptions};
use support::postgres::{Sandbox, server_url};
use support::{SECRET, assert_secret_absent, refused};

/// One table in the schema; the sandbox's own role is not used, each test adds the roles it
/// needs ([`Sandbox::reader`], or named `nao_r_<label>_<suffix>` so they are dropped too).
const ITEMS: &str = "
    CREATE TABLE {schema}.items (id int PRIMARY KEY, name text);
    INSERT INTO {schema}.items VALUES (1, 'one'), (2, 'two');";

/// What only this file asks of the sandbox.
impl Sandbox {
    /// A login role that may read the schema (USAGE, SELECT), nothing else yet.
    async fn reader(&self, label: &str) -> String {
        let role = format!("nao_r_{label}_{}", self.suffix);
        self.admin(&format!(
            "CREATE ROLE {role} LOGIN;
             GRANT USAGE ON SCHEMA {schema} TO {role};
             GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role};
             ALTER ROLE {role} SET search_path = {schema};",
            schema = self.schema
        ))
        .await;
        role
    }

    /// The superuser's URL (as `NAO_TEST_POSTGRES_URL`) with `params` added.
    fn admin_url(&self, params: &str) -> String {
        let sep = if self.url.contains('?') { '&' } else { '?' };
        format!("{}{sep}sslmode=disable{params}", self.url)
    }
}

async fn current_user(db: &dyn Dialect) -> String {
    let sql = check(
        "SELECT current_user::text AS u",
        SqlDialect::Postgres,
        &Policy::default(),
    )
    .unwrap();
    let result = db.query(&sql, &ExecOptions::default()).await.unwrap();
    result.batches[0]
        .column(0)
        .as_string::<i32>()
        .value(0)
        .to_owned()
}

/// Whether the ADBC PostgreSQL driver can be loaded here: the `adbc` feature and
/// `NAO_ADBC_DRIVER_DIR` (set by `scripts/adbc/fetch-drivers.sh`, as `.ci/run` does).
fn adbc_available() -> bool {
    let dir = std::env::var("NAO_ADBC_DRIVER_DIR").unwrap_or_default();
    if cfg!(feature = "adbc") && !dir.is_empty() {
        return true;
    }
    eprintln!(
        "skipping the ADBC leg: it needs the adbc feature and NAO_ADBC_DRIVER_DIR \
         (eval \"$(scripts/adbc/fetch-drivers.sh)\")"
    );
    false
}

/// Opens `url` (a `postgres://` URL, nao's parameters included) through every client of this
/// build, each of which must refuse it with the same message: the native adapter, and the
/// ADBC PostgreSQL driver (`adbc:` + `url`) where [`adbc_available`]. Gate 3 holds whichever
/// client opens the connection.
async fn refused_by_every_client(url: &str, context: &str) -> String {
    let message = refused(PostgresDialect::open_url("pg", url).await, context);
    if adbc_available() {
        let through_adbc = match nao_dialects::open("pg", &format!("adbc:{url}")).await {
            Err(OpenError::Dialect(error)) => refused(Err::<(), _>(error), context),
            Err(other) => panic!("{context} (ADBC): expected a refusal, got {other:?}"),
            Ok(db) => panic!("{context} (ADBC): opened a privileged connection: {db:?}"),
        };
        assert_eq!(through_adbc, message, "{context}: ADBC's refusal differs");
    }
    message
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_superuser_is_refused_with_the_privilege_and_the_sql() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "super", ITEMS).await;
    let message = refused_by_every_client(&sandbox.admin_url(""), "superuser").await;
    for expected in [
        "SUPERUSER",
        "CREATE ROLE nao_reader LOGIN PASSWORD '<choose a password>';",
        "GRANT CONNECT ON DATABASE",
        "GRANT USAGE ON SCHEMA",
        "GRANT SELECT ON ALL TABLES IN SCHEMA",
        "ALTER DEFAULT PRIVILEGES IN SCHEMA",
        "set_role=nao_reader",
        "allow_privileged=true",
    ] {
        assert!(
            message.contains(expected),
            "missing {expected:?} in: {message}"
        );
    }
    // The same through the URL front door, as the MCP server opens databases.
    match nao_dialects::open("pg", &sandbox.admin_url("")).await {
        Err(OpenError::Dialect(DialectError::Permission { message, .. })) => {
            assert!(message.contains("SUPERUSER"), "{message}");
        }
        other => panic!("open must refuse the superuser: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opt_in_opens_the_superuser() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "optin", ITEMS).await;
    let options = OpenOptions::new().allow_privileged(true);
    let by_option = nao_dialects::open_with("pg", &sandbox.admin_url(""), &options)
        .await
        .unwrap();
    let admin_user: String = sandbox
        .admin
        .query_one("SELECT current_user::text", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(current_user(&*by_option).await, admin_user);
    let by_url = nao_dialects::open("pg", &sandbox.admin_url("&allow_privileged=true"))
        .await
        .unwrap();
    assert_eq!(current_user(&*by_url).await, admin_user);
    // The URL wins over the options: `false` there refuses even with the option set.
    let mut clients = vec![""];
    if adbc_available() {
        clients.push("adbc:");
        let by_option =
            nao_dialects::open_with("pg", &format!("adbc:{}", sandbox.admin_url("")), &options)
                .await
                .unwrap();
        assert_eq!(current_user(&*by_option).await, admin_user);
        let by_url = nao_dialects::open(
            "pg",
            &format!("adbc:{}", sandbox.admin_url("&allow_privileged=true")),
        )
        .await
        .unwrap();
        assert_eq!(current_user(&*by_url).await, admin_user);
    }
    for client in clients {
        let vetoed = nao_dialects::open_with(
            "pg",
            &format!("{client}{}", sandbox.admin_url("&allow_privileged=false")),
            &options,
        )
        .await;
        assert!(
            matches!(
                vetoed,
                Err(OpenError::Dialect(DialectError::Permission { .. }))
            ),
            "{client}: {vetoed:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_role_opens_and_reads() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "plain", ITEMS).await;
    let role = sandbox.reader("plain").await;
    let db = nao_dialects::open("pg", &sandbox.url_as(&role, ""))
        .await
        .unwrap();
    assert_eq!(current_user(&*db).await, role);
    // pg_read_all_settings is allowed: settings, not data.
    sandbox
        .admin(&format!("GRANT pg_read_all_settings TO {role}"))
        .await;
    nao_dialects::open("pg", &sandbox.url_as(&role, ""))
        .await
        .unwrap();
}

/// Every role attribute and predefined role the adapter refuses, each granted alone to an
/// otherwise read-only role (the ones this server version lacks are skipped).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_privileged_attribute_and_role_alone_is_refused() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "each", ITEMS).await;
    let attributes = [
        "SUPERUSER",
        "BYPASSRLS",
        "CREATEROLE",
        "CREATEDB",
        "REPLICATION",
    ];
    let predefined = [
        "pg_read_server_files",
        "pg_write_server_files",
        "pg_execute_server_program",
        "pg_signal_backend",
        "pg_signal_autovacuum_worker",
        "pg_read_all_data",
        "pg_write_all_data",
        "pg_read_all_stats",
        "pg_monitor",
        "pg_maintain",
        "pg_checkpoint",
        "pg_create_subscription",
    ];
    let existing: Vec<String> = sandbox
        .admin
        .query(
            "SELECT rolname::text FROM pg_roles WHERE rolname = ANY ($1)",
            &[&predefined.to_vec()],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert!(existing.len() >= 9, "predefined roles found: {existing:?}");
    let mut cases: Vec<(String, String, String)> = attributes
        .iter()
        .map(|a| {
            (
                a.to_lowercase(),
                format!("ALTER ROLE {{role}} {a}"),
                (*a).to_owned(),
            )
        })
        .collect();
    for role in &existing {
        // pg_monitor is refused for the pg_read_all_stats it carries.
        let named = if role == "pg_monitor" {
            "pg_read_all_stats"
        } else {
            role
        };
        cases.push((
            role.trim_start_matches("pg_").to_owned(),
            format!("GRANT {role} TO {{role}}"),
            named.to_owned(),
        ));
    }
    for (label, grant, named) in &cases {
        let role = sandbox.reader(label).await;
        sandbox.admin(&grant.replace("{role}", &role)).await;
        let message = refused_by_every_client(&sandbox.url_as(&role, ""), grant).await;
        assert!(
            message.contains(named),
            "{grant}: {named} not named in {message}"
        );
        assert!(message.contains("CREATE ROLE nao_reader"), "{message}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn membership_counts_when_inherited_and_when_not() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "inherit", ITEMS).await;
    let role = sandbox.reader("inh").await;
    let middle = format!("nao_r_mid_{}", sandbox.suffix);
    // NOINHERIT: the role does not use the middle role's rights until it SETs ROLE to it,
    // which it may; membership is what counts.
    sandbox
        .admin(&format!(
            "CREATE ROLE {middle} NOLOGIN; GRANT pg_signal_backend TO {middle};
             GRANT {middle} TO {role}; ALTER ROLE {role} NOINHERIT;"
        ))
        .await;
    let message = refused_by_every_client(&sandbox.url_as(&role, ""), "indirect membership").await;
    assert!(message.contains("pg_signal_backend"), "{message}");
}

/// Each write privilege on one table (or its columns, or a sequence, or the schema, or the
/// database), granted alone, refuses and names where it applies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_write_privilege_alone_is_refused_naming_the_object() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "writes", ITEMS).await;
    let schema = &sandbox.schema;
    let dbname: String = sandbox
        .admin
        .query_one("SELECT current_database()::text", &[])
        .await
        .unwrap()
        .get(0);
    sandbox
        .admin(&format!("CREATE SEQUENCE {schema}.counter"))
        .await;
    let table = format!("{schema}.items");
    let mut cases: Vec<(String, String, String)> = [
        "INSERT",
        "UPDATE",
        "DELETE",
        "TRUNCATE",
        "REFERENCES",
        "TRIGGER",
    ]
    .iter()
    .map(|p| {
        (
            p.to_lowercase(),
            format!("GRANT {p} ON {table} TO {{role}}"),
            format!("{p} on {table}"),
        )
    })
    .collect();
    for p in ["INSERT", "UPDATE", "REFERENCES"] {
        cases.push((
            format!("col_{}", p.to_lowercase()),
            format!("GRANT {p} (name) ON {table} TO {{role}}"),
            format!("{p} on {table}"),
        ));
    }
    for p in ["USAGE", "UPDATE"] {
        cases.push((
            format!("seq_{}", p.to_lowercase()),
            format!("GRANT {p} ON SEQUENCE {schema}.counter TO {{role}}"),
            format!("{p} on {schema}.counter"),
        ));
    }
    cases.extend([
        (
            "owner".to_owned(),
            format!(
                "CREATE TABLE {schema}.owned (x int); ALTER TABLE {schema}.owned OWNER TO {{role}}"
            ),
            format!("owner of {schema}.owned"),
        ),
        (
            "schema_create".to_owned(),
            format!("GRANT CREATE ON SCHEMA {schema} TO {{role}}"),
            format!("CREATE on schema {schema}"),
        ),
        (
            "db_create".to_owned(),
            format!("GRANT CREATE ON DATABASE \"{dbname}\" TO {{role}}"),
            "CREATE on database".to_owned(),
        ),
    ]);
    for (label, grant, named) in &cases {
        let role = sandbox.reader(label).await;
        let grant = grant.replace("{role}", &role);
        sandbox.admin(&grant).await;
        let message = refused_by_every_client(&sandbox.url_as(&role, ""), &grant).await;
        assert!(
            message.contains(named),
            "{grant}: {named:?} not named in {message}"
        );
        if label == "owner" {
            sandbox.admin(&format!("DROP TABLE {schema}.owned")).await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_writable_tables_are_counted_not_listed() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "many", ITEMS).await;
    let schema = &sandbox.schema;
    let creates: String = (0..25)
        .map(|i| format!("CREATE TABLE {schema}.t{i:02} (x int);"))
        .collect();
    sandbox.admin(&creates).await;
    let role = sandbox.reader("many").await;
    sandbox
        .admin(&format!(
            "GRANT INSERT ON ALL TABLES IN SCHEMA {schema} TO {role}"
        ))
        .await;
    let message = refused_by_every_client(&sandbox.url_as(&role, ""), "many tables").await;
    assert!(
        message.contains(&format!("INSERT on {schema}.items")),
        "{message}"
    );
    assert!(
        message.contains(&format!("INSERT on {schema}.t00")),
        "{message}"
    );
    assert!(!message.contains(&format!("{schema}.t24")), "{message}");
    // 26 tables, 10 named.
    assert!(message.contains("and 16 more"), "{message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_role_reads_as_the_role_and_statements_cannot_undo_it() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "setrole", ITEMS).await;
    let role = sandbox.reader("target").await;
    // The superuser's login, switched to the read-only role on every connection.
    let by_url = nao_dialects::open("pg", &sandbox.admin_url(&format!("&set_role={role}")))
        .await
        .unwrap();
    assert_eq!(current_user(&*by_url).await, role);
    if adbc_available() {
        let params = format!("&set_role={role}");
        let by_adbc = nao_dialects::open("pg", &format!("adbc:{}", sandbox.admin_url(&params)))
            .await
            .unwrap();
        assert_eq!(current_user(&*by_adbc).await, role, "ADBC");
        let options = OpenOptions::new().set_role(role.clone());
        let by_options =
            nao_dialects::open_with("pg", &format!("adbc:{}", sandbox.admin_url("")), &options)
                .await
                .unwrap();
        assert_eq!(current_user(&*by_options).await, role, "ADBC with options");
    }
    let options = OpenOptions::new().set_role(role.clone());
    let db = PostgresDialect::open_url_with("pg", &sandbox.admin_url(""), &options)
        .await
        .unwrap();
    assert_eq!(current_user(&db).await, role);
    let items = check(
        &format!("SELECT count(*) AS n FROM {}.items", sandbox.schema),
        SqlDialect::Postgres,
        &Policy::default(),
    )
    .unwrap();
    db.query(&items, &ExecOptions::default()).await.unwrap();

    // The guard refuses every way back to the login role.
    let undo = [
        "RESET ROLE",
        "SET ROLE postgres",
        "SET ROLE NONE",
        "SET SESSION AUTHORIZATION DEFAULT",
        "RESET ALL",
        "DISCARD ALL",
        "SELECT set_config('role', 'none', false)",
        "SELECT set_config('session_authorization', 'postgres', false)",
        "SELECT current_setting('role'), set_config('role', 'postgres', true)",
    ];
    for sql in undo {
        assert!(
            check(sql, SqlDialect::Postgres, &Policy::default()).is_err(),
            "the guard let {sql:?} through"
        );
    }
    // Past the guard, the adapter refuses the statements that return no rows...
    for sql in &undo[..6] {
        let unchecked = ReadOnlySql::new_unchecked_allowing_writes(*sql, SqlDialect::Postgres);
        let error = db
            .query(&unchecked, &ExecOptions::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error, DialectError::Permission { .. }),
            "{sql}: {error:?}"
        );
        assert_eq!(current_user(&db).await, role, "after {sql}");
    }
    // ...and a set_config that does run is undone by the statement's ROLLBACK: only the
    // guard keeps it from running at all (the session user is still the superuser).
    let unchecked = ReadOnlySql::new_unchecked_allowing_writes(
        "SELECT set_config('role', 'none', false) AS r",
        SqlDialect::Postgres,
    );
    db.query(&unchecked, &ExecOptions::default()).await.unwrap();
    assert_eq!(current_user(&db).await, role);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_role_to_a_privileged_role_is_refused() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "setpriv", ITEMS).await;
    let login = sandbox.reader("login").await;
    let writer = sandbox.reader("writer").await;
    sandbox
        .admin(&format!(
            "GRANT INSERT ON {}.items TO {writer}; GRANT {writer} TO {login}",
            sandbox.schema
        ))
        .await;
    // The login alone is a member of the writer, so it is refused as well...
    let message = refused_by_every_client(&sandbox.url_as(&login, ""), "member of a writer").await;
    assert!(message.contains("INSERT on"), "{message}");
    // ...and switching to the writer is refused: the check runs as the role.
    let message = refused_by_every_client(
        &sandbox.url_as(&login, &format!("&set_role={writer}")),
        "set_role to a writer",
    )
    .await;
    assert!(message.contains(&writer), "{message}");
    assert!(message.contains("INSERT on"), "{message}");
}

/// A password planted in every form of URL never shows in an error, its sources, or a
/// `Debug`, whether opening fails early, late, or on privileges.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_password_in_any_output() {
    let Some(url) = server_url() else { return };
    let sandbox = Sandbox::new(&url, "secret", ITEMS).await;
    let role = sandbox.reader("secret").await;
    let writer = sandbox.reader("secretw").await;
    sandbox
        .admin(&format!(
            "GRANT DELETE ON {}.items TO {writer}",
            sandbox.schema
        ))
        .await;
    let config = Config::from_str(&url).unwrap();
    let dbname = config.get_dbname().unwrap_or("postgres").to_owned();
    let admin = config.get_user().unwrap_or("postgres").to_owned();
    let encoded = SECRET.replace('-', "%2D");
    // Trust authentication accepts any password; the URLs still carry one.
    let failing = [
        format!("postgres://{admin}:{SECRET}@127.0.0.1:5432/{dbname}?sslmode=disable"),
        format!("postgresql://{admin}:{encoded}@127.0.0.1:5432/{dbname}?sslmode=disable"),
        format!("postgres://{writer}:{SECRET}@127.0.0.1:5432/{dbname}?sslmode=disable"),
        format!(
            "host=127.0.0.1 port=5432 dbname={dbname} user={admin} password={SECRET} sslmode=disable"
        ),
        format!("host=127.0.0.1 dbname={dbname} user={writer} password='{SECRET}' sslmode=disable"),
        format!("host=127.0.0.1 user = {admin}  password = '{SECRET} x' dbname={dbname}"),
        format!("postgres://{admin}:{SECRET}@127.0.0.1:1/{dbname}?connect_timeout=5"),
        format!("host=127.0.0.1 port=1 password={SECRET} connect_timeout=5"),
        format!(
            "postgres://{admin}:{SECRET}@127.0.0.1:5432/{dbname}?sslmode=verify-full&sslrootcert=/nonexistent.pem"
        ),
        format!("postgres://{admin}:{SECRET}@127.0.0.1:5432/{dbname}?sslmode=bogus"),
        format!("postgres://{admin}:{SECRET}@127.0.0.1:5432/{dbname}?bogus_option=1"),
        format!("postgres://{admin}:{SECRET}@127.0.0.1:5432/{dbname}?allow_privileged=maybe"),
        format!("postgres://{admin}:{SECRET}@127.0.0.1:5432/{dbname}?set_role=nao_no_such_role_x"),
        format!("postgres://{admin}:{SECRET}@[::1/{dbname}"),
        format!("host=127.0.0.1 password='{SECRET}"),
        format!("host=127.0.0.1 password={SECRET} sslpassword=x"),
        format!("host=127.0.0.1 password:{SECRET}"),
        format!("user={admin} password={SECRET}"),
        format!("{admin}:{SECRET}@127.0.0.1:5432/{dbname}"),
        format!("postgress://{admin}:{SECRET}@127.0.0.1/{dbname}"),
        SECRET.to_owned(),
    ];
    for url in &failing {
        match nao_dialects::open("pg", url).await {
            Err(error) => assert_secret_absent(url, &error),
            Ok(db) => panic!("{url}: expected a failure, opened {db:?}"),
        }
        if let Err(error) = PostgresDialect::open_url("pg", url).await {
            assert_secret_absent(url, &error);
        }
    }
    // The same URLs through the ADBC PostgreSQL driver (libpq reads them there).
    if adbc_available() {
        for url in failing.iter().filter(|u| u.starts_with("postgres")) {
            let adbc_url = format!("adbc:{url}");
            match nao_dialects::open("pg", &adbc_url).await {
                Err(error) => assert_secret_absent(&adbc_url, &error),
                Ok(db) => panic!("{adbc_url}: expected a failure, opened {db:?}"),
            }
        }
    }
    let opening = [
        format!("postgres://{role}:{SECRET}@127.0.0.1:5432/{dbname}?sslmode=disable"),
        format!("host=127.0.0.1 dbname={dbname} user={role} password='{SECRET}' sslmode=disable"),
        format!(
            "postgres://{admin}:{encoded}@127.0.0.1:5432/{dbname}?sslmode=disable&set_role={role}"
        ),
    ];
    for url in &opening {
        let db = PostgresDialect::open_url("pg", url).await.unwrap();
        let debug = format!("{db:?}");
        assert!(!debug.contains(SECRET), "{debug}");
        let error = db
            .query(
                &ReadOnlySql::new_unchecked_allowing_writes("SELEC 1", SqlDialect::Postgres),
                &ExecOptions::default(),
            )
            .await
            .unwrap_err();
        assert_secret_absent(url, &error);
    }
    let options = OpenOptions::new()
        .set_role(role.clone())
        .allow_privileged(true);
    assert!(!format!("{options:?}").contains(SECRET));
}
