//! The entries: what each engine keeps that a data agent must never read, and why.
//!
//! Each reason completes the sentence "`<name>` …" in a refusal message. Names follow the
//! matching rules of [`super`]: `pg_authid` in any schema, `mysql.user` only with its schema
//! written, `sys.x$*` by prefix, `performance_schema.*` for a whole schema; a column entry is its
//! relation's name and the column (`pg_stat_activity.query`).
//!
//! Decisions, for the entries that are not obvious:
//! - `pg_settings` is refused whole: SHOW of one ordinary setting stays allowed, but the view
//!   lists custom settings too, where deployments keep secrets (`app.settings.jwt_secret`), and
//!   DuckDB's `pg_settings` shows `http_proxy_password` in clear.
//! - `pg_roles`/`pg_user` stay readable (who owns what is a fair question); their password and
//!   per-role settings columns are refused. The password columns are masked by the server, and
//!   refused anyway: a wire-compatible engine that does not mask them must not leak.
//! - `pg_stats` stays readable for its shape (`n_distinct`, `null_frac`); its sampled values are
//!   refused because they show the values of columns this policy denies. `pg_statistic`, which
//!   holds the same values for every table whatever the role may read, is refused whole.
//! - `pg_stat_replication`, `pg_stat_ssl`, `pg_replication_slots` are allowed: replication
//!   topology and TLS facts, no secret and no statement text.
//! - `information_schema.USER_PRIVILEGES` (MySQL) is allowed: the role's own grants, without
//!   password hashes. `SHOW GRANTS` is refused because MariaDB and MySQL 5.x print hashes in it.
//! - MySQL's `sys` schema is refused by name, not whole: in SQL Server `sys` is the ordinary
//!   catalogue (`sys.tables`), and the parser dialect does not say which engine runs the text.
//! - `performance_schema` is refused whole: statement texts, other sessions' user variables,
//!   connection attributes and replication settings, and nothing a data question needs.

use super::{Rule, SensitiveEntry};

const fn relation(
    name: &'static str,
    engine: &'static str,
    reason: &'static str,
) -> SensitiveEntry {
    SensitiveEntry::new(name, Rule::Relation, engine, reason)
}

const fn column(name: &'static str, engine: &'static str, reason: &'static str) -> SensitiveEntry {
    SensitiveEntry::new(name, Rule::Column, engine, reason)
}

const fn table_function(
    name: &'static str,
    engine: &'static str,
    reason: &'static str,
) -> SensitiveEntry {
    SensitiveEntry::new(name, Rule::TableFunction, engine, reason)
}

const fn show(
    name: &'static str,
    rule: Rule,
    engine: &'static str,
    reason: &'static str,
) -> SensitiveEntry {
    SensitiveEntry::new(name, rule, engine, reason)
}

const PG: &str = "PostgreSQL";
const SETTINGS_SECRETS: &str = "holds per-role or per-database settings (ALTER … SET), where \
                                custom settings can hold secrets";
const SAMPLED: &str = "holds sampled column values, which would show columns this policy denies";
const MASKED: &str = "is a password column (masked by PostgreSQL, refused so that an engine \
                      which does not mask it cannot leak)";

/// PostgreSQL, and the engines that copy its catalogue (DuckDB, Redshift, CockroachDB).
pub(super) const POSTGRES: &[SensitiveEntry] = &[
    relation("pg_authid", PG, "holds every role's password hash"),
    relation(
        "pg_shadow",
        PG,
        "holds every role's password hash and settings",
    ),
    relation(
        "pg_user_mapping",
        PG,
        "holds user mappings for foreign servers, remote passwords included",
    ),
    relation(
        "pg_user_mappings",
        PG,
        "shows user mappings for foreign servers, remote passwords included, to their own role",
    ),
    relation(
        "_pg_user_mappings",
        PG,
        "shows user mappings for foreign servers, remote passwords included",
    ),
    relation(
        "user_mapping_options",
        PG,
        "shows user-mapping options, remote passwords included",
    ),
    relation(
        "foreign_server_options",
        PG,
        "shows foreign-server options, where some wrappers keep API keys and passwords",
    ),
    relation(
        "_pg_foreign_servers",
        PG,
        "shows foreign-server options, where some wrappers keep API keys and passwords",
    ),
    relation(
        "pg_hba_file_rules",
        PG,
        "shows the server's authentication rules (pg_hba.conf): who may connect from where, and how",
    ),
    relation(
        "pg_ident_file_mappings",
        PG,
        "shows the server's user-name maps (pg_ident.conf)",
    ),
    relation(
        "pg_file_settings",
        PG,
        "shows the configuration files, their paths and every setting in them",
    ),
    relation(
        "pg_settings",
        "PostgreSQL, DuckDB",
        "shows every setting, custom ones included, which some deployments use for secrets \
         (DuckDB's shows http_proxy_password in clear)",
    ),
    relation("pg_db_role_setting", PG, SETTINGS_SECRETS),
    relation(
        "pg_config",
        PG,
        "shows the server's build configuration and installation paths",
    ),
    relation(
        "pg_largeobject",
        PG,
        "holds the raw pages of every large object, bypassing each object's permissions",
    ),
    relation(
        "pg_statistic",
        PG,
        "holds sampled values of every column of every table, bypassing privileges",
    ),
    relation(
        "pg_statistic_ext_data",
        PG,
        "holds sampled value lists of extended statistics, bypassing privileges",
    ),
    relation(
        "pg_backend_memory_contexts",
        PG,
        "shows the server's memory contexts, whose names include statement text",
    ),
    relation(
        "pg_shmem_allocations",
        PG,
        "shows the server's shared-memory layout, internals with no use for a data question",
    ),
    column(
        "pg_stat_activity.query",
        PG,
        "holds the text of every session's current or last statement",
    ),
    column(
        "pg_stat_statements.query",
        PG,
        "holds the text of statements the server ran, utility statements such as ALTER ROLE … \
         PASSWORD verbatim",
    ),
    column(
        "pg_stat_wal_receiver.conninfo",
        PG,
        "holds the replication connection string",
    ),
    column(
        "pg_subscription.subconninfo",
        PG,
        "holds logical-replication connection strings, passwords included",
    ),
    column(
        "pg_foreign_server.srvoptions",
        PG,
        "holds foreign-server options, where some wrappers keep API keys and passwords",
    ),
    column("pg_roles.rolconfig", PG, SETTINGS_SECRETS),
    column("pg_roles.rolpassword", PG, MASKED),
    column("pg_user.useconfig", PG, SETTINGS_SECRETS),
    column("pg_user.passwd", PG, MASKED),
    column(
        "pg_proc.proconfig",
        PG,
        "holds per-function settings (ALTER FUNCTION … SET), where custom settings can hold \
         secrets",
    ),
    column("pg_stats.most_common_vals", PG, SAMPLED),
    column("pg_stats.most_common_elems", PG, SAMPLED),
    column("pg_stats.histogram_bounds", PG, SAMPLED),
    column("pg_stats_ext.most_common_vals", PG, SAMPLED),
    column("pg_stats_ext_exprs.most_common_vals", PG, SAMPLED),
    column("pg_stats_ext_exprs.most_common_elems", PG, SAMPLED),
    column("pg_stats_ext_exprs.histogram_bounds", PG, SAMPLED),
];

const RS: &str = "Redshift";
const STATEMENT_TEXT: &str = "holds the text of statements run by every user";

/// Amazon Redshift's system tables and views (parsed as PostgreSQL).
pub(super) const REDSHIFT: &[SensitiveEntry] = &[
    relation("stl_query", RS, STATEMENT_TEXT),
    relation("stl_querytext", RS, STATEMENT_TEXT),
    relation("stl_ddltext", RS, STATEMENT_TEXT),
    relation("stl_utilitytext", RS, STATEMENT_TEXT),
    relation("svl_statementtext", RS, STATEMENT_TEXT),
    relation("svl_qlog", RS, STATEMENT_TEXT),
    relation("stv_recents", RS, STATEMENT_TEXT),
    relation("stv_inflight", RS, STATEMENT_TEXT),
    relation("sys_query_history", RS, STATEMENT_TEXT),
    relation("sys_query_text", RS, STATEMENT_TEXT),
    relation(
        "pg_user_info",
        RS,
        "holds every user's password column and settings",
    ),
];

const CRDB: &str = "CockroachDB";

/// CockroachDB (parsed as PostgreSQL). `system.users` is ClickHouse's too.
pub(super) const COCKROACH: &[SensitiveEntry] = &[
    relation(
        "system.users",
        "CockroachDB, ClickHouse",
        "holds the accounts: password hashes (CockroachDB) or authentication settings (ClickHouse)",
    ),
    relation(
        "system.web_sessions",
        CRDB,
        "holds the admin UI's session secrets",
    ),
    relation(
        "crdb_internal.*",
        CRDB,
        "is CockroachDB's internals, including every session's active statements",
    ),
];

const MY: &str = "MySQL, MariaDB";
const GRANTS: &str = "holds the server's accounts and privileges";
const LOGS: &str = "holds the text of statements run by every session";

/// MySQL and MariaDB (and TiDB, StarRocks, Doris, which copy their catalogue).
pub(super) const MYSQL: &[SensitiveEntry] = &[
    relation(
        "mysql.user",
        MY,
        "holds every account's password hash (authentication_string)",
    ),
    relation(
        "mysql.global_priv",
        "MariaDB",
        "holds every account's password hash and privileges",
    ),
    relation("mysql.db", MY, GRANTS),
    relation("mysql.host", "MySQL 5.5", GRANTS),
    relation("mysql.tables_priv", MY, GRANTS),
    relation("mysql.columns_priv", MY, GRANTS),
    relation("mysql.procs_priv", MY, GRANTS),
    relation("mysql.proxies_priv", MY, GRANTS),
    relation("mysql.roles_mapping", "MariaDB", GRANTS),
    relation("mysql.default_roles", "MySQL", GRANTS),
    relation("mysql.role_edges", "MySQL", GRANTS),
    relation("mysql.global_grants", "MySQL", GRANTS),
    relation(
        "mysql.password_history",
        "MySQL",
        "holds every account's former password hashes",
    ),
    relation(
        "mysql.servers",
        MY,
        "holds FEDERATED/Spider server definitions, user names and passwords included",
    ),
    relation("mysql.general_log", MY, LOGS),
    relation("mysql.slow_log", MY, LOGS),
    relation(
        "mysql.slave_master_info",
        "MySQL",
        "holds the replication source's user and password in clear",
    ),
    relation(
        "mysql.slave_relay_log_info",
        "MySQL",
        "holds replication internals",
    ),
    relation(
        "mysql.slave_worker_info",
        "MySQL",
        "holds replication internals",
    ),
    relation(
        "mysql.column_stats",
        "MariaDB",
        "holds the minimum, maximum and histogram of columns, bypassing column privileges",
    ),
    column(
        "information_schema.column_statistics.histogram",
        "MySQL",
        SAMPLED,
    ),
    relation(
        "performance_schema.*",
        MY,
        "instruments every session: statement texts, other sessions' user variables, connection \
         attributes, replication settings",
    ),
    relation("sys.processlist", "MySQL sys schema", LOGS),
    relation("sys.session", "MySQL sys schema", LOGS),
    relation("sys.x$*", "MySQL sys schema", LOGS),
    relation("sys.statement_analysis", "MySQL sys schema", LOGS),
    relation("sys.statements_with_*", "MySQL sys schema", LOGS),
    column(
        "information_schema.processlist.info",
        MY,
        "holds the text of every session's current statement",
    ),
    column(
        "information_schema.processlist.info_binary",
        "MariaDB",
        "holds the text of every session's current statement",
    ),
    column(
        "information_schema.cluster_processlist.info",
        "TiDB",
        "holds the text of every session's current statement",
    ),
    relation("information_schema.slow_query", "TiDB", LOGS),
    relation("information_schema.cluster_slow_query", "TiDB", LOGS),
    relation("information_schema.statements_summary*", "TiDB", LOGS),
    relation(
        "information_schema.cluster_statements_summary*",
        "TiDB",
        LOGS,
    ),
];

const CH: &str = "ClickHouse";

/// ClickHouse's `system` database (`system.users` is listed with CockroachDB's).
pub(super) const CLICKHOUSE: &[SensitiveEntry] = &[
    relation("system.grants", CH, GRANTS),
    relation("system.role_grants", CH, GRANTS),
    relation("system.query_log", CH, LOGS),
    relation("system.query_thread_log", CH, LOGS),
    relation("system.query_views_log", CH, LOGS),
    relation("system.processes", CH, LOGS),
    relation("system.asynchronous_inserts", CH, LOGS),
    relation("system.asynchronous_insert_log", CH, LOGS),
    relation("system.distributed_ddl_queue", CH, LOGS),
    relation(
        "system.query_cache",
        CH,
        "holds other sessions' statements and their cached results",
    ),
    relation(
        "system.text_log",
        CH,
        "holds the server log, statement texts included",
    ),
    relation(
        "system.session_log",
        CH,
        "holds every login: accounts, client addresses, authentication results",
    ),
    relation(
        "system.named_collections",
        CH,
        "holds named connection settings, credentials included",
    ),
    relation(
        "system.zookeeper",
        CH,
        "exposes the coordination service's internal tree",
    ),
];

const SF: &str = "Snowflake";
const LOGINS: &str = "holds every login: users, client addresses, authentication results";

/// Snowflake's usage views (the table functions of INFORMATION_SCHEMA are functions).
pub(super) const SNOWFLAKE: &[SensitiveEntry] = &[
    relation("account_usage.query_history", SF, LOGS),
    relation("account_usage.task_history", SF, LOGS),
    relation("account_usage.login_history", SF, LOGINS),
    relation("reader_account_usage.query_history", SF, LOGS),
    relation("reader_account_usage.login_history", SF, LOGINS),
];

/// BigQuery, Databricks and Trino: the query histories.
pub(super) const WAREHOUSES: &[SensitiveEntry] = &[
    relation(
        "information_schema.jobs*",
        "BigQuery",
        "holds the text of every job's query (JOBS, JOBS_BY_USER, JOBS_BY_PROJECT, \
         JOBS_TIMELINE …)",
    ),
    relation("query.history", "Databricks", LOGS),
    relation(
        "access.audit",
        "Databricks",
        "holds the audit log: every request, with users and client addresses",
    ),
    relation("runtime.queries", "Trino", LOGS),
];

const MS: &str = "SQL Server";

/// SQL Server, Azure SQL, Synapse and Fabric.
pub(super) const MSSQL: &[SensitiveEntry] = &[
    relation("sys.sql_logins", MS, "holds every login's password hash"),
    relation(
        "syslogins",
        MS,
        "is the compatibility view of logins, with a password column",
    ),
    relation(
        "sys.linked_logins",
        MS,
        "maps logins to remote logins of linked servers",
    ),
    relation("sys.remote_logins", MS, "maps remote logins to local ones"),
    relation(
        "sys.credentials",
        MS,
        "lists the server's credentials (identities of external secrets)",
    ),
    relation(
        "sys.database_scoped_credentials",
        MS,
        "lists the database's credentials (identities of external secrets)",
    ),
    relation(
        "sys.master_key_passwords",
        MS,
        "holds the passwords of database master keys",
    ),
    relation("sys.query_store_query_text", MS, LOGS),
    relation("sys.dm_pdw_exec_requests", "Synapse", LOGS),
    relation("sys.dm_exec_requests_history", "Synapse, Fabric", LOGS),
    relation(
        "sys.dm_xe_session_targets",
        MS,
        "holds captured extended events, statement texts included",
    ),
    relation(
        "sysjobsteps",
        MS,
        "holds the commands of SQL Agent job steps, which often embed credentials",
    ),
];

const DUCK: &str = "DuckDB";
const PATHS: &str = "lists the attached databases with their file paths on the host";

/// The embedded engines. DuckDB's table functions that show the host: its file paths (the
/// databases, the home, secret, extension and temporary directories), its memory, and logs.
/// What only describes the data stays readable: `duckdb_tables()`, `duckdb_columns()`,
/// `pragma_table_info`, `pragma_storage_info`, `pragma_version`, `pragma_platform` (a platform
/// string such as `linux_amd64`), `version()`, `current_database()`, `SHOW DATABASES` (names
/// only).
pub(super) const EMBEDDED: &[SensitiveEntry] = &[
    table_function("duckdb_databases", DUCK, PATHS),
    table_function("pragma_database_list", "SQLite, DuckDB", PATHS),
    table_function(
        "duckdb_settings",
        DUCK,
        "shows every setting: the home, secret, extension and temporary directories, the memory \
         limit, and secret settings such as http_proxy_password in clear",
    ),
    table_function(
        "duckdb_variables",
        DUCK,
        "shows the value of every SET VARIABLE, where hosts keep values the agent was not given",
    ),
    table_function(
        "duckdb_extensions",
        DUCK,
        "lists the extensions with their install paths under the home directory",
    ),
    table_function(
        "duckdb_temporary_files",
        DUCK,
        "lists the temporary files with their paths on the host",
    ),
    table_function(
        "duckdb_external_file_cache",
        DUCK,
        "lists the cached files with their paths and URLs",
    ),
    table_function(
        "duckdb_memory",
        DUCK,
        "shows the process's memory use and temporary storage, facts about the host and not the \
         data",
    ),
    table_function(
        "pragma_database_size",
        DUCK,
        "shows the database files' sizes with the process's memory use and memory limit (by \
         default 80% of the host's memory)",
    ),
    table_function(
        "duckdb_logs",
        DUCK,
        "holds the log, with the text of every connection's queries when query logging is on",
    ),
    table_function(
        "duckdb_logs_parsed",
        DUCK,
        "holds the log, with the text of every connection's queries when query logging is on",
    ),
    table_function(
        "duckdb_prepared_statements",
        DUCK,
        "shows the text of the statements prepared on this connection, which a pooled \
         connection shares with other sessions",
    ),
    relation(
        "sqlite_stat4",
        "SQLite",
        "holds sampled index keys, which would show columns this policy denies",
    ),
    relation(
        "sqlite_stat3",
        "SQLite",
        "holds sampled index keys, which would show columns this policy denies",
    ),
    relation(
        "sqlite_dbpage",
        "SQLite",
        "reads raw database pages, deleted rows included",
    ),
];

/// Introspection statements (SHOW …), for every engine at once: sqlparser reads most of them as
/// `SHOW word …` whatever the dialect.
pub(super) const STATEMENTS: &[SensitiveEntry] = &[
    show(
        "SHOW GRANTS",
        Rule::ShowStarts(&[&["GRANTS"]]),
        "MySQL, MariaDB, Snowflake, Databricks, ClickHouse",
        "lists privileges, and on MariaDB and MySQL 5 the accounts' password hashes",
    ),
    show(
        "SHOW PROCESSLIST",
        Rule::ShowProcessList,
        "MySQL, MariaDB, ClickHouse, TiDB",
        "shows the text of every session's current statement",
    ),
    show(
        "SHOW ENGINE",
        Rule::ShowStarts(&[&["ENGINE"]]),
        MY,
        "dumps storage-engine internals, recent transactions' statements included",
    ),
    show(
        "SHOW BINLOG EVENTS",
        Rule::ShowStarts(&[&["BINLOG"]]),
        MY,
        "replays the binary log: every write of every session",
    ),
    show(
        "SHOW RELAYLOG EVENTS",
        Rule::ShowStarts(&[&["RELAYLOG"]]),
        MY,
        "replays the relay log: every write replicated from the source",
    ),
    show(
        "SHOW MASTER",
        Rule::ShowStarts(&[&["MASTER", "BINARY"]]),
        MY,
        "shows replication internals: binary log files and positions",
    ),
    show(
        "SHOW REPLICA",
        Rule::ShowStarts(&[&["SLAVE", "SLAVES", "REPLICA", "REPLICAS"]]),
        MY,
        "shows replication internals: the source's host and replication user, replica hosts",
    ),
    show(
        "SHOW ALL REPLICAS",
        Rule::ShowStarts(&[&["ALL"], &["SLAVES", "REPLICAS"]]),
        "MariaDB",
        "shows replication internals: the sources' hosts and replication users",
    ),
    show(
        "SHOW EXPLAIN FOR",
        Rule::ShowStarts(&[&["EXPLAIN", "ANALYZE"]]),
        "MariaDB",
        "shows another session's running statement",
    ),
    show(
        "SHOW USER_STATISTICS",
        Rule::ShowStarts(&[&["USER_STATISTICS", "CLIENT_STATISTICS"]]),
        "MariaDB",
        "shows the activity of every account and client host",
    ),
    show(
        "SHOW USERS",
        Rule::ShowStarts(&[&["USERS"]]),
        "Snowflake, ClickHouse",
        "lists the accounts, with their login names and authentication settings",
    ),
    show(
        "SHOW SECRETS",
        Rule::ShowStarts(&[&["SECRETS"]]),
        "Snowflake, Databricks",
        "lists the secrets stored in the account",
    ),
    show(
        "SHOW ACCESS",
        Rule::ShowStarts(&[&["ACCESS"]]),
        CH,
        "prints every user, role and policy as CREATE statements, authentication included",
    ),
    show(
        "SHOW NAMED COLLECTIONS",
        Rule::ShowStarts(&[&["NAMED"]]),
        CH,
        "shows named connection settings, credentials included",
    ),
    show(
        "SHOW ALL",
        Rule::ShowExactly(&["ALL"]),
        PG,
        "shows every setting, custom ones included, which some deployments use for secrets",
    ),
    show(
        "SHOW *_command",
        Rule::ShowSetting {
            suffixes: &["_command"],
            fragments: &[],
            except: &[],
        },
        PG,
        "shows a shell command the server runs (archive_command, restore_command …), which \
         often embeds credentials",
    ),
    show(
        "SHOW *conninfo*",
        Rule::ShowSetting {
            suffixes: &[],
            fragments: &["conninfo"],
            except: &[],
        },
        PG,
        "shows a replication connection string, password included",
    ),
    show(
        "SHOW *_file",
        Rule::ShowSetting {
            suffixes: &[
                "_file",
                "keyfile",
                "_path",
                "_paths",
                "_output",
                "_repository",
            ],
            fragments: &["directory", "directories"],
            except: &["search_path"],
        },
        "PostgreSQL, DuckDB",
        "shows a file, directory or repository path of the server or its host (PostgreSQL's \
         data_directory, hba_file, config_file; DuckDB's home_directory, secret_directory, \
         extension_directory, temp_directory, file_search_path …), which PostgreSQL reserves to \
         privileged roles",
    ),
    show(
        "SHOW *memory*",
        Rule::ShowSetting {
            suffixes: &[],
            fragments: &["memory"],
            except: &[],
        },
        "DuckDB, PostgreSQL",
        "shows a memory limit or size of the server process, which tells the host's memory \
         (DuckDB's memory_limit is 80% of it by default)",
    ),
    show(
        "SHOW *proxy*",
        Rule::ShowSetting {
            suffixes: &[],
            fragments: &["proxy"],
            except: &[],
        },
        DUCK,
        "shows the HTTP proxy and its user, whose URL can hold credentials",
    ),
    show(
        "SHOW *secret*",
        Rule::ShowSetting {
            suffixes: &[],
            fragments: &["secret", "password", "passwd", "credential", "jwt", "key"],
            except: &[],
        },
        "PostgreSQL, DuckDB",
        "shows a setting named like a secret: custom settings such as app.settings.jwt_secret \
         hold secrets in some deployments",
    ),
];
