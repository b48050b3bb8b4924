//! Gate 3 on PostgreSQL, whichever client opens the connection: the catalogue queries that
//! read what the session's role may do beyond reading, what their rows mean, and the refusal.
//! The native adapter runs them over tokio-postgres (`postgres::privileges`), the ADBC adapter
//! through the PostgreSQL driver (`adbc::privileges`); one text, so the two cannot drift.
//!
//! Two catalogue queries ([`WHO`], [`FINDINGS`]), run as the role statements will run as
//! (after `SET ROLE`, if any), read-only, with a time limit. They report:
//! - role attributes: `SUPERUSER` (every check bypassed), `BYPASSRLS` (reads rows row-level
//!   security hides), `CREATEROLE` (makes roles and, before PostgreSQL 16, grants itself
//!   membership in any non-superuser role, `pg_execute_server_program` included), `CREATEDB`
//!   (creates databases: a write on the cluster), `REPLICATION` (streams every table's
//!   changes past all privileges, drops replication slots);
//! - membership, direct or inherited, with or without `INHERIT` (`pg_has_role(…, 'MEMBER')`:
//!   what the role could `SET ROLE` to), in the predefined roles of [`PRIVILEGED_ROLES`];
//! - `CREATE` on the database or on a schema (ownership included);
//! - on every table, view, materialized view, foreign table and sequence outside the system
//!   schemas: ownership, `INSERT`/`UPDATE`/`REFERENCES` (on the table or any column),
//!   `DELETE`, `TRUNCATE`, `TRIGGER`; on sequences `USAGE` and `UPDATE` (`nextval`, `setval`).
//!   Only the first [`LISTED_RELATIONS`] are named; the count of the rest is given. On 5 000
//!   tables of 10 columns the query takes well under a second.
//!
//! Not checked: `TEMPORARY` on the database (granted to `PUBLIC` by default, and session-local),
//! `EXECUTE` on functions (PostgreSQL grants it to `PUBLIC`; a `SECURITY DEFINER` function that
//! writes is the guard's to refuse), large objects, foreign servers and other databases.

use std::fmt::Write as _;

use nao_core::DialectError;
use nao_core::guard::SqlDialect;

/// Predefined roles whose membership refuses the connection: file access and programs on the
/// server, signalling other sessions, writing everything, and two read roles that reach past
/// the data: `pg_read_all_data` reads `pg_authid` (password hashes) and every table whatever
/// its grants; `pg_read_all_stats` (and `pg_monitor`, a member of it) reads the text of every
/// session's statements. `pg_maintain` runs VACUUM, REINDEX, CLUSTER and LOCK on every table;
/// `pg_checkpoint` forces checkpoints; `pg_create_subscription` pulls data in from elsewhere.
/// Roles a server version lacks are skipped. `pg_read_all_settings` and
/// `pg_stat_scan_tables` are allowed: they read settings and statistics, not data.
pub(crate) const PRIVILEGED_ROLES: &[&str] = &[
    "pg_read_server_files",
    "pg_write_server_files",
    "pg_execute_server_program",
    "pg_signal_backend",
    "pg_signal_autovacuum_worker",
    "pg_read_all_data",
    "pg_write_all_data",
    "pg_read_all_stats",
    "pg_maintain",
    "pg_checkpoint",
    "pg_create_subscription",
];

/// Relations named in a refusal; the rest are counted.
pub(crate) const LISTED_RELATIONS: i64 = 10;

/// Who the session is, for the message.
pub(crate) const WHO: &str = "SELECT current_user::text, session_user::text, \
     coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = session_user), false), \
     current_database()::text, coalesce(current_schema()::text, 'public')";

/// Everything the role may do beyond reading: `(kind, name, detail, total)` rows. `$1` is
/// [`PRIVILEGED_ROLES`], `$2` [`LISTED_RELATIONS`]. A superuser gets only its attributes:
/// everything else follows from `SUPERUSER`.
pub(crate) const FINDINGS: &str = r"
WITH me AS (
    SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb, rolreplication
    FROM pg_roles WHERE rolname = current_user
), plain AS (
    SELECT NOT coalesce((SELECT rolsuper FROM me), false) AS yes
)
SELECT 'attribute' AS kind, a.name, NULL::text AS detail, NULL::bigint AS total
FROM me, LATERAL (VALUES
    (1, 'SUPERUSER', me.rolsuper), (2, 'BYPASSRLS', me.rolbypassrls),
    (3, 'CREATEROLE', me.rolcreaterole), (4, 'CREATEDB', me.rolcreatedb),
    (5, 'REPLICATION', me.rolreplication)) AS a(n, name, held)
WHERE a.held
UNION ALL
SELECT 'member', r.rolname::text, NULL, NULL
FROM pg_roles r, plain
WHERE plain.yes AND r.rolname = ANY ($1::text[]) AND pg_has_role(current_user, r.oid, 'MEMBER')
UNION ALL
SELECT 'database', current_database()::text, 'CREATE', NULL
FROM plain
WHERE plain.yes AND has_database_privilege(current_database(), 'CREATE')
UNION ALL
SELECT 'schema', format('%I', n.nspname), 'CREATE', NULL
FROM pg_namespace n, plain
WHERE plain.yes AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
  AND has_schema_privilege(n.oid, 'CREATE')
UNION ALL
SELECT 'relation', format('%I.%I', w.nspname, w.relname),
    CASE WHEN pg_has_role(w.relowner, 'MEMBER') THEN 'owner'
    WHEN w.relkind = 'S' THEN concat_ws(', ',
        CASE WHEN has_sequence_privilege(w.oid, 'USAGE') THEN 'USAGE' END,
        CASE WHEN has_sequence_privilege(w.oid, 'UPDATE') THEN 'UPDATE' END)
    ELSE concat_ws(', ',
        CASE WHEN has_any_column_privilege(w.oid, 'INSERT') THEN 'INSERT' END,
        CASE WHEN has_any_column_privilege(w.oid, 'UPDATE') THEN 'UPDATE' END,
        CASE WHEN has_table_privilege(w.oid, 'DELETE') THEN 'DELETE' END,
        CASE WHEN has_table_privilege(w.oid, 'TRUNCATE') THEN 'TRUNCATE' END,
        CASE WHEN has_any_column_privilege(w.oid, 'REFERENCES') THEN 'REFERENCES' END,
        CASE WHEN has_table_privilege(w.oid, 'TRIGGER') THEN 'TRIGGER' END)
    END, w.total
FROM (
    SELECT c.oid, c.relname, c.relkind, c.relowner, n.nspname, count(*) OVER () AS total
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, plain
    WHERE plain.yes AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
      AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
      AND (pg_has_role(c.relowner, 'MEMBER')
           OR CASE WHEN c.relkind = 'S' THEN has_sequence_privilege(c.oid, 'USAGE, UPDATE')
                   ELSE has_table_privilege(c.oid,
                            'INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
                        -- Column grants only where some column has an ACL at all: a
                        -- per-column check on every table of a big catalogue is the cost.
                        OR (EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
                                    AND a.attnum > 0 AND a.attacl IS NOT NULL)
                            AND has_any_column_privilege(c.oid, 'INSERT, UPDATE, REFERENCES'))
              END)
    ORDER BY n.nspname, c.relname
    LIMIT $2
) w";

/// Whom the session runs as: the five columns of [`WHO`].
pub(crate) struct Who {
    /// `current_user`: the role statements run as.
    pub(crate) current: String,
    /// `session_user`: the login.
    pub(crate) session: String,
    /// Whether the login is a superuser.
    pub(crate) session_is_superuser: bool,
    /// `current_database()`.
    pub(crate) database: String,
    /// `current_schema()`, `public` when there is none.
    pub(crate) schema: String,
}

/// One privilege beyond reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finding {
    /// A role attribute (`SUPERUSER`, …).
    Attribute(String),
    /// Membership in a predefined role.
    Member(String),
    /// `CREATE` on the database.
    CreateOnDatabase(String),
    /// `CREATE` on a schema (quoted).
    CreateOnSchema(String),
    /// Write privileges or ownership on a relation (`schema.name`, quoted).
    Relation {
        /// The relation.
        name: String,
        /// What the role may do to it: `owner` (which implies everything), or the
        /// privileges (`INSERT, UPDATE`).
        what: String,
    },
}

/// [`FINDINGS`] with its parameters written in, for clients that bind none (the ADBC driver's
/// statements take parameters as Arrow batches; literals are simpler and the values are ours:
/// role names of plain ASCII letters and underscores, and a number).
#[cfg_attr(not(feature = "adbc"), allow(dead_code))] // Only the ADBC adapter binds none.
pub(crate) fn findings_sql_with_literals() -> String {
    let roles: Vec<String> = PRIVILEGED_ROLES.iter().map(|r| format!("'{r}'")).collect();
    FINDINGS
        .replace(
            "$1::text[]",
            &format!("ARRAY[{}]::text[]", roles.join(", ")),
        )
        .replace("$2", &LISTED_RELATIONS.to_string())
}

impl Finding {
    /// The finding one row of [`FINDINGS`] reports: `kind`, `name`, `detail`.
    pub(crate) fn from_row(kind: &str, name: String, detail: Option<String>) -> Finding {
        match kind {
            "attribute" => Finding::Attribute(name),
            "member" => Finding::Member(name),
            "database" => Finding::CreateOnDatabase(name),
            "schema" => Finding::CreateOnSchema(name),
            _ => Finding::Relation {
                name,
                what: detail.unwrap_or_default(),
            },
        }
    }
}

/// Decides on what the queries found: `Ok` for a role that may only read, or for a privileged
/// one the host allowed (`allow`, with a warning in the log); else the refusal. `relations_total`
/// is the `total` of a relation row (how many relations the role may write to or owns).
pub(crate) fn verdict(
    database: &str,
    who: &Who,
    findings: &[Finding],
    relations_total: i64,
    allow: bool,
) -> Result<(), DialectError> {
    if who.current != who.session && who.session_is_superuser {
        tracing::warn!(
            database,
            session_user = %who.session,
            role = %who.current,
            "the PostgreSQL login is a superuser: SET ROLE lowers the privileges statements \
             run with, but only the SQL guard and the adapter's row-returning-only rule keep a \
             statement from undoing it (RESET ROLE, SET SESSION AUTHORIZATION)"
        );
    }
    if findings.is_empty() {
        return Ok(());
    }
    let listed = findings
        .iter()
        .filter(|f| matches!(f, Finding::Relation { .. }))
        .count();
    let more = usize::try_from(relations_total)
        .unwrap_or(0)
        .saturating_sub(listed);
    let held = describe(findings, more);
    if allow {
        tracing::warn!(
            database,
            role = %who.current,
            privileges = %held,
            "opening a privileged PostgreSQL connection because the host allowed it \
             (allow_privileged): the role no longer backs up the SQL guard"
        );
        return Ok(());
    }
    Err(DialectError::Permission {
        database: database.to_owned(),
        message: refusal(who, &held),
        code: None,
    })
}

/// The findings as one phrase: `SUPERUSER; member of pg_signal_backend; INSERT on
/// public.orders; … and 3 more tables`.
pub(crate) fn describe(findings: &[Finding], more_relations: usize) -> String {
    let mut parts: Vec<String> = findings
        .iter()
        .map(|finding| match finding {
            Finding::Attribute(name) => format!("the {name} attribute"),
            Finding::Member(role) => format!("membership in {role}"),
            Finding::CreateOnDatabase(db) => format!("CREATE on database {db}"),
            Finding::CreateOnSchema(schema) => format!("CREATE on schema {schema}"),
            Finding::Relation { name, what } if what == "owner" => format!("owner of {name}"),
            Finding::Relation { name, what } => format!("{what} on {name}"),
        })
        .collect();
    if more_relations > 0 {
        parts.push(format!(
            "and {more_relations} more tables or sequences it may write to or owns"
        ));
    }
    parts.join("; ")
}

/// What the model or person reading the error needs: what the role holds, the SQL for a
/// read-only role, and how to open anyway. Never a password: the SQL has a placeholder.
fn refusal(who: &Who, held: &str) -> String {
    let database = quote_ident(&who.database);
    let schema = quote_ident(&who.schema);
    let mut message = format!(
        "refusing to open: the PostgreSQL role {} can do more than read ({held}). A data agent \
         should connect as a role that may only read, so that no statement can write, read \
         server files or signal other sessions even if the SQL guard misses it. As an \
         administrator, create one:\n",
        quote_ident(&who.current)
    );
    for line in [
        "CREATE ROLE nao_reader LOGIN PASSWORD '<choose a password>';".to_owned(),
        format!("GRANT CONNECT ON DATABASE {database} TO nao_reader;"),
        format!("GRANT USAGE ON SCHEMA {schema} TO nao_reader;"),
        format!("GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO nao_reader;"),
        format!(
            "ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO nao_reader;"
        ),
    ] {
        let _ = writeln!(message, "  {line}");
    }
    message.push_str(
        "(repeat the schema lines for each schema to read), then connect as nao_reader, or \
         keep this login and add set_role=nao_reader to the URL. To open with this role \
         anyway, add allow_privileged=true to the URL (OpenOptions::allow_privileged, or \
         --allow-privileged in nao-mcp): the guard and the READ ONLY transaction then stand \
         alone",
    );
    message
}

/// `name` as a PostgreSQL identifier, quoted when it must be (`"Sales"`, `"a""b"`).
pub(crate) fn quote_ident(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain {
        name.to_owned()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}

/// The statement that switches a new connection to `role`.
pub(crate) fn set_role_statement(role: &str) -> String {
    // Always quoted: a role named like a keyword (`none`) must still be the role.
    format!("SET ROLE {}", SqlDialect::Postgres.quote_identifier(role))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_quoted_when_they_must_be() {
        assert_eq!(quote_ident("public"), "public");
        assert_eq!(quote_ident("Sales"), "\"Sales\"");
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_ident("1x"), "\"1x\"");
        assert_eq!(set_role_statement("none"), "SET ROLE \"none\"");
        assert_eq!(
            set_role_statement("x\"; RESET ROLE; --"),
            "SET ROLE \"x\"\"; RESET ROLE; --\""
        );
    }

    #[test]
    fn the_literal_findings_sql_binds_nothing() {
        let sql = findings_sql_with_literals();
        assert!(!sql.contains('$'), "{sql}");
        assert!(sql.contains("ARRAY['pg_read_server_files', "), "{sql}");
        assert!(sql.contains(&format!("LIMIT {LISTED_RELATIONS}")), "{sql}");
        for role in PRIVILEGED_ROLES {
            assert!(
                role.chars().all(|c| c.is_ascii_lowercase() || c == '_'),
                "{role}"
            );
        }
    }

    #[test]
    fn findings_read_as_one_phrase() {
        let findings = [
            Finding::Attribute("CREATEDB".into()),
            Finding::Member("pg_signal_backend".into()),
            Finding::Relation {
                name: "public.orders".into(),
                what: "INSERT, UPDATE".into(),
            },
        ];
        assert_eq!(
            describe(&findings, 2),
            "the CREATEDB attribute; membership in pg_signal_backend; INSERT, UPDATE on \
             public.orders; and 2 more tables or sequences it may write to or owns"
        );
    }
}
