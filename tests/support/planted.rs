//! The planted shop of the governance tests: recognisable secrets in a denied table, a denied
//! column and a masked column, and the checks that none of them reaches a reader.
//!
//! - `customers(id, name, email, ssn, notes)`: `email` is masked with `hash` (and repeats, with
//!   some NULLs, so grouping means something), `ssn` is denied, `notes` is plain;
//! - `secrets(id, token)`: a denied table;
//! - `orders(id, customer_id, amount)`: for joins and charts.
//!
//! Comments on the denied table and column hold planted values too, so a catalogue that shows
//! them leaks.

/// The engines the planted shop is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Engine {
    /// SQLite: comments live in the `CREATE TABLE` text.
    Sqlite,
    /// DuckDB: `COMMENT ON`.
    DuckDb,
    /// PostgreSQL: `COMMENT ON`.
    Postgres,
    /// MySQL and MariaDB: `COMMENT` clauses.
    MySql,
}

/// The denied table.
pub(crate) const DENIED_TABLE: &str = "secrets";
/// The denied column, as a policy pattern.
pub(crate) const DENIED_COLUMN: &str = "customers.ssn";
/// The masked column, as a policy pattern.
pub(crate) const MASKED_COLUMN: &str = "customers.email";

/// Customers planted.
pub(crate) const CUSTOMERS: u32 = 40;
/// Orders planted.
pub(crate) const ORDERS: u32 = 80;
/// Secret tokens planted.
pub(crate) const TOKENS: u32 = 5;

/// The pieces every planted secret holds (emails, social security numbers, tokens, and the
/// comments of the denied table and column): a reader must see none of them, in any case.
pub(crate) const SECRET_FRAGMENTS: [&str; 4] =
    ["planted-user-", "@leak.test", "SSN-LEAK", "TOKEN-LEAK"];

/// Names a listing, a description or a prompt must not show: the denied table and column.
pub(crate) const DENIED_NAMES: [&str; 2] = ["secrets", "ssn"];

/// Statements whose every use of `email` reveals its values: each must be refused, naming the
/// column.
pub(crate) const REVEALING: [&str; 7] = [
    "SELECT lower(email) AS e FROM customers",
    "SELECT id FROM customers ORDER BY email",
    "SELECT email || '' AS e FROM customers",
    "SELECT count(*) AS n FROM customers WHERE email LIKE 'p%'",
    "SELECT count(*) AS n FROM customers WHERE email > 'p'",
    "SELECT max(email) AS m FROM customers",
    "SELECT min(email) AS m FROM customers GROUP BY name",
];

/// Statements reading what the policy denies: each must be refused.
pub(crate) const DENIED: [&str; 5] = [
    "SELECT * FROM customers",
    "SELECT ssn FROM customers",
    "SELECT count(*) AS n FROM customers WHERE ssn = 5",
    "SELECT token FROM secrets",
    "SELECT email FROM customers UNION ALL SELECT token FROM secrets",
];

/// Statements whose only column carries `email` as it is, through a subquery, a rename, a
/// CTE or DISTINCT: each runs, and shows the same hashes as `SELECT email`.
pub(crate) const MASKED_THROUGH: [&str; 4] = [
    "SELECT s.email FROM (SELECT email FROM customers) s",
    "SELECT email AS notes FROM customers",
    "WITH e AS (SELECT email AS x FROM customers) SELECT x FROM e",
    "SELECT DISTINCT email FROM customers",
];

/// Comparisons the guard allows on a masked column (=, IN, a join) against numbers: an engine
/// that converts the text to a number may fail with an error quoting the value it could not
/// convert. Whatever happens, no value may show.
pub(crate) const IMPLICIT_CASTS: [&str; 3] = [
    "SELECT count(*) AS n FROM customers WHERE email = 5",
    "SELECT count(*) AS n FROM customers WHERE email IN (1, 2)",
    "SELECT c.id FROM customers c JOIN orders o ON c.email = o.id",
];

/// The email of customer `id`, or `None` for every eighth customer: 17 addresses over 35
/// customers, so most repeat.
pub(crate) fn email(id: u32) -> Option<String> {
    (!id.is_multiple_of(8)).then(|| format!("planted-user-{:02}@leak.test", id * 7 % 17 + 1))
}

/// The social security number of customer `id`.
pub(crate) fn ssn(id: u32) -> String {
    format!("SSN-LEAK-{id:04}")
}

/// Secret token `id`.
pub(crate) fn token(id: u32) -> String {
    format!("TOKEN-LEAK-{id:04}")
}

/// The amount of order `id`.
pub(crate) fn amount(id: u32) -> u32 {
    id * 37 % 500 + 10
}

/// `text` as an SQL string literal, or NULL.
fn literal(text: Option<&str>) -> String {
    text.map_or_else(
        || "NULL".to_owned(),
        |t| format!("'{}'", t.replace('\'', "''")),
    )
}

/// The statements that create and fill the planted shop on `engine`, in order, each without
/// a trailing semicolon.
pub(crate) fn statements(engine: Engine) -> Vec<String> {
    let mut out = Vec::new();
    let ssn_comment = "SSN-LEAK-COMMENT: social security number";
    let secrets_comment = "TOKEN-LEAK-COMMENT: API tokens";
    match engine {
        Engine::Sqlite => {
            out.push(format!(
                "CREATE TABLE customers ( -- People who buy from the shop.\n\
                 id INTEGER PRIMARY KEY,\n\
                 name VARCHAR(100) NOT NULL,\n\
                 email VARCHAR(200), -- contact address\n\
                 ssn VARCHAR(20), -- {ssn_comment}\n\
                 notes VARCHAR(200)\n)"
            ));
            out.push(format!(
                "CREATE TABLE secrets ( -- {secrets_comment}\n\
                 id INTEGER PRIMARY KEY,\n\
                 token VARCHAR(40) NOT NULL\n)"
            ));
        }
        Engine::MySql => {
            out.push(format!(
                "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, \
                 email VARCHAR(200) COMMENT 'contact address', \
                 ssn VARCHAR(20) COMMENT '{ssn_comment}', notes VARCHAR(200)) \
                 COMMENT='People who buy from the shop.'"
            ));
            out.push(format!(
                "CREATE TABLE secrets (id INTEGER PRIMARY KEY, token VARCHAR(40) NOT NULL) \
                 COMMENT='{secrets_comment}'"
            ));
        }
        Engine::DuckDb | Engine::Postgres => {
            out.push(
                "CREATE TABLE customers (id INTEGER PRIMARY KEY, name VARCHAR(100) NOT NULL, \
                 email VARCHAR(200), ssn VARCHAR(20), notes VARCHAR(200))"
                    .to_owned(),
            );
            out.push(
                "CREATE TABLE secrets (id INTEGER PRIMARY KEY, token VARCHAR(40) NOT NULL)"
                    .to_owned(),
            );
            out.push("COMMENT ON TABLE customers IS 'People who buy from the shop.'".to_owned());
            out.push("COMMENT ON COLUMN customers.email IS 'contact address'".to_owned());
            out.push(format!(
                "COMMENT ON COLUMN customers.ssn IS '{ssn_comment}'"
            ));
            out.push(format!("COMMENT ON TABLE secrets IS '{secrets_comment}'"));
        }
    }
    out.push(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, \
         amount INTEGER NOT NULL)"
            .to_owned(),
    );
    let customers: Vec<String> = (1..=CUSTOMERS)
        .map(|id| {
            format!(
                "({id}, 'Customer {id:02}', {}, '{}', 'plain note {id}')",
                literal(email(id).as_deref()),
                ssn(id)
            )
        })
        .collect();
    out.push(format!(
        "INSERT INTO customers (id, name, email, ssn, notes) VALUES {}",
        customers.join(", ")
    ));
    let tokens: Vec<String> = (1..=TOKENS)
        .map(|id| format!("({id}, '{}')", token(id)))
        .collect();
    out.push(format!(
        "INSERT INTO secrets (id, token) VALUES {}",
        tokens.join(", ")
    ));
    let orders: Vec<String> = (1..=ORDERS)
        .map(|id| format!("({id}, {}, {})", id % CUSTOMERS + 1, amount(id)))
        .collect();
    out.push(format!(
        "INSERT INTO orders (id, customer_id, amount) VALUES {}",
        orders.join(", ")
    ));
    out
}

/// [`statements`] as one script, each statement ended by a semicolon.
pub(crate) fn script(engine: Engine) -> String {
    statements(engine)
        .iter()
        .map(|s| format!("{s};\n"))
        .collect()
}

/// The secret fragments in `text` (compared case-insensitively: an upper-cased value leaks
/// as much as the value).
pub(crate) fn leaks(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    SECRET_FRAGMENTS
        .iter()
        .copied()
        .filter(|fragment| lower.contains(&fragment.to_lowercase()))
        .collect()
}

/// Fails when `text`, which a reader receives as `what`, holds a planted secret.
pub(crate) fn assert_no_leak(what: &str, text: &str) {
    let found = leaks(text);
    assert!(
        found.is_empty(),
        "LEAK: {what} shows planted secrets {found:?}:\n{text}"
    );
}

/// Fails when `text` (a listing, a description, a prompt) names the denied table or column.
pub(crate) fn assert_no_denied_names(what: &str, text: &str) {
    let lower = text.to_lowercase();
    for name in DENIED_NAMES {
        assert!(
            !lower.contains(name),
            "{what} names the denied {name:?}:\n{text}"
        );
    }
}

/// Whether `value` is a hash token of the policy layer: `h:` and 16 hexadecimal digits.
pub(crate) fn is_hash(value: &str) -> bool {
    value
        .strip_prefix("h:")
        .is_some_and(|hex| hex.len() == 16 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The hash tokens in `text`, in order.
pub(crate) fn hashes_in(text: &str) -> Vec<&str> {
    text.match_indices("h:")
        .filter_map(|(at, _)| text.get(at..at + 18))
        .filter(|candidate| is_hash(candidate))
        .collect()
}

/// The number of distinct non-NULL emails planted.
pub(crate) fn distinct_emails() -> usize {
    let mut all: Vec<String> = (1..=CUSTOMERS).filter_map(email).collect();
    all.sort();
    all.dedup();
    all.len()
}

/// The number of `GROUP BY email` groups (the NULL group included).
pub(crate) fn email_groups() -> usize {
    let nulls = (1..=CUSTOMERS).any(|id| email(id).is_none());
    distinct_emails() + usize::from(nulls)
}
