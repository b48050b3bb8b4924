//! SQLite's run-time limits (`sqlite3_limit`) on every query connection: the length of one
//! value, set per statement from the call's byte cap, and the others, fixed, each with its
//! reason.
//!
//! Every limit is set explicitly, also where the value is SQLite's default, so a newer SQLite
//! with other defaults (3.48 raised the function-argument default from 127 to 1000) changes
//! nothing here.

use rusqlite::Connection;
use rusqlite::limits::Limit;

/// The least a value may take whatever the byte cap: SQLite also applies the value limit to
/// the rows it builds inside a statement (sort keys, `DISTINCT` and `GROUP BY` rows, a
/// recursive CTE's queue), so a tiny cap must not starve those.
pub(crate) const VALUE_FLOOR: usize = 1 << 20;

/// One fixed limit: its value on every query connection, and what the model reads when a
/// statement passes it.
#[derive(Debug)]
pub(crate) struct FixedLimit {
    /// The limit.
    pub(crate) limit: Limit,
    /// Its value.
    pub(crate) value: i32,
    /// Lower-case parts of the messages SQLite gives when a statement passes it.
    pub(crate) messages: &'static [&'static str],
    /// Whether the value is a number of bytes (else a count).
    pub(crate) bytes: bool,
    /// What is limited, after the value, for people ("2000 columns per result, …",
    /// "1 MiB of SQL per statement").
    pub(crate) what: &'static str,
    /// What to write instead.
    pub(crate) advice: &'static str,
}

/// Most bytes of SQL text.
pub(crate) const SQL_LENGTH: i32 = 1 << 20;
/// Most virtual-machine instructions in one compiled statement.
pub(crate) const VDBE_OP: i32 = 1_000_000;

/// The fixed limits, one reason each.
pub(crate) const FIXED: &[FixedLimit] = &[
    // SQLite's default is 1e9 bytes; the guard refuses more than 100 KB by default, and 1 MiB
    // leaves room for a host that raises that while bounding the parse tree and program
    // (a 1.3 MB `IN` list of 200,000 numbers measured 38 MB while preparing).
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_SQL_LENGTH,
        value: SQL_LENGTH,
        messages: &["statement too long"],
        bytes: true,
        what: "of SQL per statement",
        advice: "Shorten the statement: a long IN (...) list can often be a range \
                 (BETWEEN) or a join.",
    },
    // SQLite's default (2000), also its compile-time maximum: a lower one would refuse
    // `SELECT *` on wide tables, and each value is bounded by the value limit.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_COLUMN,
        value: 2000,
        messages: &["too many columns"],
        bytes: false,
        what: "columns per result, GROUP BY or ORDER BY",
        advice: "Select fewer columns, naming the ones needed instead of *.",
    },
    // SQLite's default (1000): the code generator recurses once per level; 990 nested levels
    // run on a 2 MiB thread stack (tokio's blocking threads), and the guard's parser refuses
    // deep nesting long before.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_EXPR_DEPTH,
        value: 1000,
        messages: &["expression tree is too large"],
        bytes: false,
        what: "levels of nesting per expression",
        advice: "Flatten the expression: x IN (...) instead of a long OR chain, CASE instead \
                 of nested calls, a join instead of nested subqueries.",
    },
    // SQLite's default (2500): the parser's own stack, before any expression exists.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_PARSER_DEPTH,
        value: 2500,
        messages: &["recursion limit"],
        bytes: false,
        what: "levels of nesting for SQLite's parser",
        advice: "Nest fewer parentheses and subqueries.",
    },
    // SQLite's default (500): the compound's terms are compiled recursively; 499 measured
    // well within a 2 MiB stack.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_COMPOUND_SELECT,
        value: 500,
        messages: &["too many terms in compound select"],
        bytes: false,
        what: "SELECTs joined by UNION, INTERSECT or EXCEPT",
        advice: "Use one SELECT over VALUES, or a table, instead of many UNIONs.",
    },
    // SQLite's default is 250 million instructions (about 6 GB of program); a million holds
    // any statement within the SQL length limit (the 200,000-number IN list compiles to
    // 600,000) unless views expand it. Past it SQLite reports "out of memory".
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_VDBE_OP,
        value: VDBE_OP,
        messages: &["out of memory"],
        bytes: false,
        what: "virtual-machine instructions per statement",
        advice: "Make the statement smaller: fewer columns, shorter IN lists, fewer views \
                 or subqueries repeated in it.",
    },
    // 127, SQLite's default until 3.48 (now 1000): every argument is a value held at once,
    // each up to the value limit, so this bounds how many one call holds; json_object of 63
    // pairs still fits.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_FUNCTION_ARG,
        value: 127,
        // Not "too many arguments on pragma_x() - max N", a table-valued function's own arity.
        messages: &["too many arguments on function"],
        bytes: false,
        what: "arguments per function call",
        advice: "Split the call: nest json_object or concat calls, or build the value from \
                 rows with an aggregate.",
    },
    // ATTACH is denied by the authorizer; no attached database at all is the same rule at
    // the engine's level.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_ATTACHED,
        value: 0,
        messages: &["too many attached databases"],
        bytes: false,
        what: "attached databases",
        advice: "Query only the tables of this database.",
    },
    // SQLite's default is 50,000 bytes. Matching costs up to the pattern's length times the
    // value's inside one function call, which the progress handler cannot interrupt: a
    // 5,001-byte pattern took 14 s over a 1 MB value. 100 bytes keeps one call over a
    // 32 MiB value to seconds.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH,
        value: 100,
        messages: &["like or glob pattern too complex"],
        bytes: true,
        what: "per LIKE or GLOB pattern",
        advice: "Use a shorter pattern, several shorter LIKEs joined with AND, or = for an \
                 exact match.",
    },
    // SQLite's default is 32,766. The adapter binds no parameter to the model's SQL (an
    // unbound one reads as NULL) and its catalogue queries bind one; every index up to the
    // highest costs a slot.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_VARIABLE_NUMBER,
        value: 8,
        messages: &["too many sql variables", "variable number must be between"],
        bytes: false,
        what: "parameters (?NNN) per statement",
        advice: "Write the values into the SQL: this connection binds no parameters.",
    },
    // Triggers fire only on writes, which every layer refuses; none may fire.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_TRIGGER_DEPTH,
        value: 0,
        messages: &["too many levels of trigger recursion"],
        bytes: false,
        what: "levels of triggers",
        advice: "This connection can only read.",
    },
    // SQLite's default (0): helper threads for large sorts would each hold a sort buffer as
    // large as the page cache, multiplying a statement's memory; one thread per statement
    // is within any EngineLimits thread count.
    FixedLimit {
        limit: Limit::SQLITE_LIMIT_WORKER_THREADS,
        value: 0,
        messages: &[],
        bytes: false,
        what: "helper threads per statement",
        advice: "",
    },
];

/// The most one string, blob or row may take in a statement run with the byte cap
/// `max_bytes`: half the cap (a value is held twice while it becomes Arrow: SQLite's copy and
/// the batch's), at least [`VALUE_FLOOR`], at most what SQLite can count.
pub(crate) fn value_limit(max_bytes: usize) -> usize {
    (max_bytes / 2).clamp(VALUE_FLOOR, i32::MAX as usize)
}

/// Sets the fixed limits. Called once per connection, when it opens.
pub(crate) fn set_fixed(conn: &Connection) -> rusqlite::Result<()> {
    for fixed in FIXED {
        conn.set_limit(fixed.limit, fixed.value)?;
    }
    Ok(())
}

/// Sets the value limit for the next statement from its byte cap. Cheap (a store into the
/// connection), so done before every statement.
pub(crate) fn set_value_limit(conn: &Connection, max_bytes: usize) -> rusqlite::Result<()> {
    let limit = i32::try_from(value_limit(max_bytes)).unwrap_or(i32::MAX);
    conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, limit)?;
    Ok(())
}

/// The fixed limit whose message `lower` (SQLite's message, lower case) is, if any.
pub(crate) fn fixed_hit(lower: &str) -> Option<&'static FixedLimit> {
    FIXED
        .iter()
        .find(|f| f.messages.iter().any(|m| lower.contains(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_limit_is_half_the_cap_within_bounds() {
        assert_eq!(value_limit(64 << 20), 32 << 20);
        assert_eq!(value_limit(0), VALUE_FLOOR);
        assert_eq!(value_limit(VALUE_FLOOR), VALUE_FLOOR);
        assert_eq!(value_limit(usize::MAX), i32::MAX as usize);
    }

    #[test]
    fn the_limits_are_set_and_the_value_limit_moves_per_statement() {
        let conn = Connection::open_in_memory().expect("open");
        set_fixed(&conn).expect("fixed");
        for fixed in FIXED {
            assert_eq!(
                conn.limit(fixed.limit).expect("read"),
                fixed.value,
                "{fixed:?}"
            );
        }
        set_value_limit(&conn, 8 << 20).expect("value limit");
        assert_eq!(
            conn.limit(Limit::SQLITE_LIMIT_LENGTH).expect("read"),
            4 << 20
        );
        let err = conn
            .query_row("SELECT zeroblob(4194305)", [], |r| r.get::<_, Vec<u8>>(0))
            .expect_err("over the limit");
        assert!(err.to_string().contains("too big"), "{err}");
        set_value_limit(&conn, 16 << 20).expect("value limit");
        let len: i64 = conn
            .query_row("SELECT length(zeroblob(4194305))", [], |r| r.get(0))
            .expect("within the new limit");
        assert_eq!(len, 4_194_305);
    }

    #[test]
    fn each_fixed_limit_is_reached_with_its_own_message() {
        let conn = Connection::open_in_memory().expect("open");
        set_fixed(&conn).expect("fixed");
        let long_like = format!("SELECT 'a' LIKE '{}'", "a".repeat(101));
        let many_args = format!(
            "SELECT max({})",
            (0..128)
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let many_terms = (0..501)
            .map(|i| format!("SELECT {i}"))
            .collect::<Vec<_>>()
            .join(" UNION ALL ");
        let chain = format!("SELECT 1{}", "+1".repeat(1001));
        let nested = format!("SELECT {}1{}", "(".repeat(3000), ")".repeat(3000));
        let long_sql = format!("SELECT 1 -- {}", "x".repeat(SQL_LENGTH as usize));
        let cases = [
            (long_like.as_str(), Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH),
            (many_args.as_str(), Limit::SQLITE_LIMIT_FUNCTION_ARG),
            (many_terms.as_str(), Limit::SQLITE_LIMIT_COMPOUND_SELECT),
            (chain.as_str(), Limit::SQLITE_LIMIT_EXPR_DEPTH),
            (nested.as_str(), Limit::SQLITE_LIMIT_PARSER_DEPTH),
            (long_sql.as_str(), Limit::SQLITE_LIMIT_SQL_LENGTH),
            ("SELECT ?9", Limit::SQLITE_LIMIT_VARIABLE_NUMBER),
        ];
        for (sql, expected) in cases {
            let err = conn
                .prepare(sql)
                .and_then(|mut s| s.query_row([], |r| r.get::<_, rusqlite::types::Value>(0)))
                .expect_err(&sql[..sql.len().min(60)]);
            let lower = err.to_string().to_ascii_lowercase();
            let hit = fixed_hit(&lower).unwrap_or_else(|| panic!("no limit matched: {lower}"));
            assert_eq!(hit.limit as i32, expected as i32, "{lower}");
        }
    }
}
