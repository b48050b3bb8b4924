//! Gate 3: at open, the adapter reads what its user may do beyond reading, and refuses to
//! open a privileged connection unless the host insists (`allow_privileged`).
//!
//! The source is `SHOW GRANTS`, not `information_schema.*_PRIVILEGES`: on MariaDB the
//! information schema shows neither the privileges of roles (granted, or active after
//! `SET ROLE`) nor `PROXY`, while `SHOW GRANTS` is the server's own account of what is in
//! effect, including grants to `PUBLIC` (MariaDB 10.11), and needs no privilege for the
//! current user. Every role the user could activate is inspected too (information schema
//! `APPLICABLE_ROLES`, nested roles included): MariaDB by `SET ROLE r; SHOW GRANTS` on the
//! check's own connection, MySQL 8 by `SHOW GRANTS FOR CURRENT_USER() USING r`.
//!
//! The rule is an allow list, so a privilege the adapter has never heard of refuses (fail
//! closed): `SELECT`, `SHOW VIEW`, `SHOW DATABASES` and `USAGE` (no privilege) pass;
//! everything else is named with where it applies, `GRANT OPTION` and `PROXY` included
//! (`SUPER`, `FILE`, `PROCESS`, `SHUTDOWN`, `RELOAD`, `INSERT`, `UPDATE`, `DELETE`, `CREATE`,
//! `DROP`, `ALTER`, `EXECUTE`, `LOCK TABLES`, `CREATE TEMPORARY TABLES`, MariaDB's
//! `BINLOG ADMIN`, `CONNECTION ADMIN`, `READ_ONLY ADMIN`, …, MySQL's dynamic privileges).
//! A grant line the parser cannot read refuses too. `SHOW GRANTS` prints the password hash
//! on MariaDB: nothing after `TO` is ever copied into a message.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use mysql_async::Conn;
use mysql_async::prelude::Queryable;
use nao_core::DialectError;

use super::errors;
use super::open::Flavour;

/// Privileges that only read.
const READ_ONLY: &[&str] = &["SELECT", "SHOW VIEW", "SHOW DATABASES", "USAGE"];

/// Roles inspected at most (each costs a round trip or two).
const MAX_ROLES: usize = 32;

/// Privileges named in a refusal; the rest are counted.
const LISTED: usize = 12;

/// One grant line of `SHOW GRANTS`, as far as the check needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum GrantLine {
    /// `GRANT <privileges> ON <level> TO …`.
    Privileges {
        /// Privilege names, upper case, a column list marked ` (columns)`.
        privileges: Vec<String>,
        /// Where they apply: `*.*`, `` `db`.* ``, `` `db`.`t` ``, `PROCEDURE …`.
        level: String,
        /// `WITH GRANT OPTION`.
        grantable: bool,
    },
    /// `GRANT <role> TO …`: a role the account may activate.
    Role,
}

/// What is beyond reading in `line`: `FILE on *.*`, `GRANT OPTION on `db`.*`, ….
pub(super) fn beyond_reading(line: &GrantLine) -> Vec<String> {
    let GrantLine::Privileges {
        privileges,
        level,
        grantable,
    } = line
    else {
        return Vec::new();
    };
    let mut found: Vec<String> = privileges
        .iter()
        .filter(|p| !READ_ONLY.contains(&p.as_str()))
        .map(|p| format!("{p} on {level}"))
        .collect();
    if *grantable {
        found.push(format!("GRANT OPTION on {level}"));
    }
    found
}

/// A token of a grant line.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// An unquoted word (`GRANT`, `SELECT`, `*`), upper-cased.
    Word(String),
    /// A quoted name or string, with its quote character.
    Quoted(char, String),
    /// `,`, `.`, `@`, `(`, `)`.
    Punct(char),
}

impl Token {
    fn is_word(&self, word: &str) -> bool {
        matches!(self, Token::Word(w) if w == word)
    }

    fn render(&self) -> String {
        match self {
            Token::Word(w) => w.clone(),
            Token::Punct(c) => c.to_string(),
            Token::Quoted(q, text) => {
                let doubled = format!("{q}{q}");
                format!("{q}{}{q}", text.replace(*q, &doubled))
            }
        }
    }
}

fn tokenize(line: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {}
            '`' | '\'' | '"' => {
                let mut text = String::new();
                loop {
                    match chars.next()? {
                        q if q == c && chars.peek() == Some(&c) => {
                            chars.next();
                            text.push(c);
                        }
                        q if q == c => break,
                        '\\' if c != '`' => text.push(chars.next()?),
                        other => text.push(other),
                    }
                }
                tokens.push(Token::Quoted(c, text));
            }
            ',' | '.' | '@' | '(' | ')' => tokens.push(Token::Punct(c)),
            _ => {
                let mut word = c.to_string();
                while let Some(&next) = chars.peek() {
                    if next.is_whitespace() || ",.@()`'\"".contains(next) {
                        break;
                    }
                    word.push(next);
                    chars.next();
                }
                tokens.push(Token::Word(word.to_ascii_uppercase()));
            }
        }
    }
    Some(tokens)
}

/// Reads one line of `SHOW GRANTS`. `None`: not a grant the parser understands. Lines that
/// are not grants (MySQL's partial `REVOKE`s, which only take privileges away) are `Some(Role)`
/// free of findings.
pub(super) fn parse_line(line: &str) -> Option<GrantLine> {
    let tokens = tokenize(line)?;
    match tokens.first() {
        Some(t) if t.is_word("GRANT") => {}
        Some(t) if t.is_word("REVOKE") => return Some(GrantLine::Role),
        _ => return None,
    }
    let mut depth = 0_u32;
    let mut on = None;
    let mut to = None;
    for (i, token) in tokens.iter().enumerate().skip(1) {
        match token {
            Token::Punct('(') => depth += 1,
            Token::Punct(')') => depth = depth.checked_sub(1)?,
            t if depth == 0 && on.is_none() && t.is_word("ON") => on = Some(i),
            t if depth == 0 && t.is_word("TO") => {
                to = Some(i);
                break;
            }
            _ => {}
        }
    }
    let to = to?;
    let Some(on) = on else {
        // `GRANT role[, role] TO account`: names only.
        return tokens[1..to]
            .iter()
            .all(|t| matches!(t, Token::Quoted(..) | Token::Punct(',' | '@')))
            .then_some(GrantLine::Role);
    };
    let privileges = privileges(&tokens[1..on])?;
    let level: Vec<String> = tokens[on + 1..to].iter().map(Token::render).collect();
    if level.is_empty() {
        return None;
    }
    let level = join_level(&level);
    let after = &tokens[to + 1..];
    let grantable = after
        .windows(3)
        .any(|w| w[0].is_word("WITH") && w[1].is_word("GRANT") && w[2].is_word("OPTION"))
        || after
            .windows(2)
            .any(|w| w[0].is_word("GRANT") && w[1].is_word("OPTION"));
    Some(GrantLine::Privileges {
        privileges,
        level,
        grantable,
    })
}

/// `SELECT, UPDATE (`a`), BINLOG ADMIN` → names; a column list becomes ` (columns)`.
fn privileges(tokens: &[Token]) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let mut columns = false;
    let mut depth = 0_u32;
    for token in tokens.iter().chain([&Token::Punct(',')]) {
        match token {
            Token::Punct('(') => {
                depth += 1;
                columns = true;
            }
            Token::Punct(')') => depth = depth.checked_sub(1)?,
            _ if depth > 0 => {}
            Token::Punct(',') => {
                if words.is_empty() {
                    return None;
                }
                let mut name = words.join(" ");
                if name == "ALL" {
                    name = "ALL PRIVILEGES".to_owned();
                }
                if columns {
                    name.push_str(" (columns)");
                }
                names.push(name);
                words.clear();
                columns = false;
            }
            Token::Word(w) => words.push(w),
            _ => return None,
        }
    }
    (!names.is_empty()).then_some(names)
}

/// Joins level tokens: `` `db` . * `` → `` `db`.* ``, `PROCEDURE `db`.`p`` keeps its space.
fn join_level(parts: &[String]) -> String {
    let mut out = String::new();
    for (i, part) in parts.iter().enumerate() {
        let glued = part == "."
            || part == "@"
            || parts
                .get(i.wrapping_sub(1))
                .is_some_and(|p| p == "." || p == "@");
        if i > 0 && !glued {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// `user@host` (as `CURRENT_USER()` gives it) as `'user'@'host'`.
fn account(current_user: &str) -> String {
    let (user, host) = current_user.rsplit_once('@').unwrap_or((current_user, "%"));
    format!(
        "'{}'@'{}'",
        user.replace('\'', "''"),
        host.replace('\'', "''")
    )
}

/// `name` as a backquoted identifier.
pub(super) fn quote_ident(name: &str) -> String {
    nao_core::guard::SqlDialect::MySql.quote_identifier(name)
}

/// The statement that activates `role` on a new connection.
pub(super) fn set_role_statement(role: &str) -> String {
    format!("SET ROLE {}", quote_ident(role))
}

/// Reads the grants of the user (and of every role it may activate) on `conn`, a connection
/// of its own that is dropped afterwards (its active role changes), and refuses a privileged
/// user unless `allow`.
pub(super) async fn check(
    database: &str,
    conn: &mut Conn,
    flavour: Flavour,
    allow: bool,
) -> Result<(), DialectError> {
    let fail = |e| errors::from_mysql(database, e, std::time::Duration::ZERO, None);
    let (user, schema): (Option<String>, Option<String>) = conn
        .query_first("SELECT CURRENT_USER(), DATABASE()")
        .await
        .map_err(fail)?
        .unwrap_or((None, None));
    let user = account(user.as_deref().unwrap_or("?"));
    let mut held = BTreeSet::new();
    let mut unreadable = 0_usize;
    let own: Vec<String> = conn.query("SHOW GRANTS").await.map_err(fail)?;
    collect(&own, None, &mut held, &mut unreadable);
    for role in applicable_roles(conn, flavour).await.map_err(fail)? {
        let lines: Vec<String> = match flavour {
            Flavour::MariaDb => {
                // A role granted only through another role cannot be set directly; its
                // grants show under the role that carries it.
                if conn.query_drop(set_role_statement(&role.0)).await.is_err() {
                    continue;
                }
                conn.query("SHOW GRANTS").await.map_err(fail)?
            }
            Flavour::MySql => {
                let host = role.1.as_deref().unwrap_or("%");
                let statement = format!(
                    "SHOW GRANTS FOR CURRENT_USER() USING {}@{}",
                    quote_ident(&role.0),
                    quote_ident(host)
                );
                conn.query(statement).await.map_err(fail)?
            }
        };
        collect(&lines, Some(&role.0), &mut held, &mut unreadable);
    }
    if unreadable > 0 {
        held.insert(format!(
            "{unreadable} grant line(s) of SHOW GRANTS the adapter could not read"
        ));
    }
    if held.is_empty() {
        return Ok(());
    }
    let described = describe(&held);
    if allow {
        tracing::warn!(
            database,
            user = %user,
            privileges = %described,
            "opening a privileged MySQL/MariaDB connection because the host allowed it \
             (allow_privileged): the user no longer backs up the SQL guard"
        );
        return Ok(());
    }
    Err(DialectError::Permission {
        database: database.to_owned(),
        message: refusal(&user, schema.as_deref(), &described),
        code: None,
    })
}

/// Adds what `lines` hold beyond reading to `held` (`through` the role they came from).
fn collect(
    lines: &[String],
    through: Option<&str>,
    held: &mut BTreeSet<String>,
    unreadable: &mut usize,
) {
    for line in lines {
        match parse_line(line) {
            Some(grant) => {
                for privilege in beyond_reading(&grant) {
                    held.insert(match through {
                        Some(role) => format!("{privilege} (through role {})", quote_ident(role)),
                        None => privilege,
                    });
                }
            }
            None => *unreadable += 1,
        }
    }
}

/// The roles the user may activate, with their hosts on MySQL; none where the server has no
/// roles (MySQL before 8, which lacks the table).
async fn applicable_roles(
    conn: &mut Conn,
    flavour: Flavour,
) -> Result<Vec<(String, Option<String>)>, mysql_async::Error> {
    let sql = match flavour {
        Flavour::MariaDb => {
            "SELECT DISTINCT ROLE_NAME, NULL FROM information_schema.APPLICABLE_ROLES \
             ORDER BY 1"
        }
        Flavour::MySql => {
            "SELECT DISTINCT ROLE_NAME, ROLE_HOST FROM information_schema.APPLICABLE_ROLES \
             ORDER BY 1, 2"
        }
    };
    match conn.query::<(String, Option<String>), _>(sql).await {
        Ok(mut roles) => {
            roles.truncate(MAX_ROLES);
            Ok(roles)
        }
        // ER_UNKNOWN_TABLE (1109): a server without roles.
        Err(mysql_async::Error::Server(e)) if e.code == 1109 => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The first [`LISTED`] privileges, then how many more.
fn describe(held: &BTreeSet<String>) -> String {
    let mut text = held
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if held.len() > LISTED {
        let _ = write!(text, "; and {} more", held.len() - LISTED);
    }
    text
}

/// What the model or person reading the error needs: what the user holds, the SQL for a
/// read-only user, and how to open anyway. Never a password: the SQL has a placeholder.
fn refusal(user: &str, schema: Option<&str>, held: &str) -> String {
    let schema = schema.map_or_else(|| "<database>".to_owned(), quote_ident);
    format!(
        "refusing to open: the MySQL/MariaDB user {user} can do more than read ({held}). A data \
         agent should connect as a user that may only SELECT, so that no statement can write, \
         read or write server files, or stop other sessions even if the SQL guard misses it. \
         As an administrator, create one:\n  \
         CREATE USER 'nao_reader'@'%' IDENTIFIED BY '<choose a password>';\n  \
         GRANT SELECT ON {schema}.* TO 'nao_reader'@'%';\n\
         (one GRANT per database to read), then connect as nao_reader. SET ROLE adds a role's \
         privileges to the user's own, so set_role cannot make this user read-only. To open \
         with this user anyway, add allow_privileged=true to the URL \
         (OpenOptions::allow_privileged, or --allow-privileged in nao-mcp): the guard and the \
         READ ONLY transaction then stand alone"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(line: &str) -> Vec<String> {
        beyond_reading(&parse_line(line).unwrap_or_else(|| panic!("unreadable: {line}")))
    }

    #[test]
    fn mariadb_grant_lines_are_read() {
        assert_eq!(
            found("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION"),
            ["ALL PRIVILEGES on *.*", "GRANT OPTION on *.*"]
        );
        assert!(
            found(
                "GRANT USAGE ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD \
                 '*D821809F681A40A6E379B50D0463EFAE20BDD122'"
            )
            .is_empty()
        );
        assert!(found("GRANT SELECT, SHOW VIEW ON `shop`.* TO `u`@`%`").is_empty());
        assert_eq!(
            found(
                "GRANT SELECT, UPDATE (`a`, `b c`) ON `test`.`zz t` TO `u`@`h` WITH GRANT OPTION"
            ),
            [
                "UPDATE (columns) on `test`.`zz t`",
                "GRANT OPTION on `test`.`zz t`"
            ]
        );
        assert_eq!(
            found("GRANT FILE, BINLOG ADMIN, READ_ONLY ADMIN ON *.* TO `r`"),
            [
                "FILE on *.*",
                "BINLOG ADMIN on *.*",
                "READ_ONLY ADMIN on *.*"
            ]
        );
        assert_eq!(
            found("GRANT PROXY ON ''@'%' TO 'root'@'localhost' WITH GRANT OPTION"),
            ["PROXY on ''@'%'", "GRANT OPTION on ''@'%'"]
        );
        assert_eq!(
            found("GRANT EXECUTE ON PROCEDURE `db`.`p` TO `u`@`%`"),
            ["EXECUTE on PROCEDURE `db`.`p`"]
        );
        assert_eq!(
            found("GRANT INSERT ON `we``ird on to`.* TO PUBLIC"),
            ["INSERT on `we``ird on to`.*"]
        );
        assert_eq!(
            parse_line("GRANT `zz_r` TO `zz_u`@`127.0.0.1`"),
            Some(GrantLine::Role)
        );
    }

    #[test]
    fn mysql8_grant_lines_are_read() {
        assert_eq!(
            found("GRANT SELECT, INSERT ON *.* TO `u`@`%`"),
            ["INSERT on *.*"]
        );
        assert_eq!(
            found("GRANT APPLICATION_PASSWORD_ADMIN,AUDIT_ADMIN ON *.* TO `root`@`localhost`"),
            ["APPLICATION_PASSWORD_ADMIN on *.*", "AUDIT_ADMIN on *.*"]
        );
        assert_eq!(
            parse_line("GRANT `reader`@`%`,`other`@`%` TO `u`@`%` WITH ADMIN OPTION"),
            Some(GrantLine::Role)
        );
        assert!(found("REVOKE INSERT ON `mysql`.* FROM `u`@`%`").is_empty());
    }

    #[test]
    fn unreadable_lines_are_none_and_never_panic() {
        for bad in [
            "",
            "GRANT",
            "GRANT SELECT ON",
            "GRANT ON *.* TO `u`",
            "GRANT SELECT ON `unclosed TO `u`",
            "GRANT SELECT (a ON x.* TO u",
            "GRANT SELECT) ON x.* TO u",
            "SOMETHING ELSE",
        ] {
            assert_eq!(parse_line(bad), None, "{bad}");
        }
    }

    #[test]
    fn refusals_never_copy_the_text_after_to() {
        let line = "GRANT FILE ON *.* TO `u`@`%` IDENTIFIED BY PASSWORD '*SECRETHASH'";
        let mut held = BTreeSet::new();
        let mut unreadable = 0;
        collect(&[line.to_owned()], None, &mut held, &mut unreadable);
        let message = refusal("'u'@'%'", Some("shop"), &describe(&held));
        assert!(!message.contains("SECRETHASH"), "{message}");
        assert!(message.contains("FILE on *.*"), "{message}");
        assert!(message.contains("GRANT SELECT ON `shop`.* TO 'nao_reader'@'%'"));
        assert_eq!(account("root@127.0.0.1"), "'root'@'127.0.0.1'");
        assert_eq!(account("o'b@x@h"), "'o''b@x'@'h'");
    }
}
