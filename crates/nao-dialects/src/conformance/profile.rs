//! What the checks need to know about an engine: how to ask it for many rows and for a slow
//! query in its own SQL, and which duties it cannot fulfil itself.

/// How the conformance checks talk to one engine, and what it can do.
///
/// [`Profile::portable`] (the default) asks with recursive CTEs and expects the engine to refuse
/// writes itself and to report `NOT NULL`, as SQLite, DuckDB, PostgreSQL and MySQL do. Engines
/// without recursive CTEs but with a `range(n)` table function (Spark, Sail, DataFusion) start
/// from [`Profile::range_function`], others with a table function of another name
/// (ClickHouse's `numbers(n)`) from [`Profile::table_function`].
///
/// An engine that lacks a capability declares it, and the checks then verify the fallback
/// instead ([`Outcome::PassedFallback`](super::Outcome::PassedFallback)):
///
/// | declared with | the engine has no … | the check verifies instead |
/// |---|---|---|
/// | [`without_engine_write_refusal`](Self::without_engine_write_refusal) | read-only mode (gate 2) | the guard refuses each write, and none is sent |
/// | [`without_cancellation`](Self::without_cancellation) | way to interrupt a running statement | a token cancelled before the call stops it before it starts |
/// | [`without_not_null`](Self::without_not_null) | `NOT NULL` in its catalogue | nullability is not compared |
/// | [`without_comments`](Self::without_comments) | comments on tables and columns | the adapter gives none rather than inventing any |
/// | [`with_decimal_form`](Self::with_decimal_form) | exact decimal type in its client | decimals in the declared form, exactly |
///
/// ```
/// use nao_dialects::conformance::Profile;
///
/// // Sail over Flight SQL: Spark's range(n) yields a column `id`; nothing in the engine
/// // refuses writes, so the guard must.
/// let sail = Profile::range_function("id").without_engine_write_refusal();
/// assert!(sail.series_sql(3).contains("range(3)"));
/// assert!(!sail.engine_refuses_writes());
/// ```
#[derive(Debug, Clone)]
pub struct Profile {
    source: RowSource,
    slow_sql: String,
    engine_refuses_writes: bool,
    reports_not_null: bool,
    cancels_running: bool,
    reports_comments: bool,
    decimal: DecimalForm,
}

/// How an engine's client returns the fixture's `DECIMAL(12, 2)` column (`10.50`, NULL,
/// `-0.25`); the fixture check reads the values in that form, exactly.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecimalForm {
    /// `Decimal128(12, 2)` (the default).
    Decimal128,
    /// The value's exact text (`Utf8`: `10.50`), as the ADBC PostgreSQL driver returns
    /// `NUMERIC`: exact, but not a number type.
    ExactText,
    /// `Float64`: SQLite keeps `DECIMAL` values as REAL and a client that does not read the
    /// declared type returns them so (the ADBC SQLite driver).
    Float,
}

/// Where the checks' generated rows come from.
#[derive(Debug, Clone)]
enum RowSource {
    RecursiveCte,
    /// A table function of one argument `n` yielding `0..n` in a column: (function, column).
    TableFunction(String, String),
}

impl Default for Profile {
    fn default() -> Self {
        Profile::portable()
    }
}

impl Profile {
    /// Portable SQL (recursive CTEs), an engine that refuses writes on a read-only connection
    /// and reports `NOT NULL` columns.
    pub fn portable() -> Self {
        Profile {
            source: RowSource::RecursiveCte,
            slow_sql: super::slow_sql(),
            engine_refuses_writes: true,
            reports_not_null: true,
            cancels_running: true,
            reports_comments: true,
            decimal: DecimalForm::Decimal128,
        }
    }

    /// An engine whose `range(n)` table function yields `0..n` in the column `column` (`id` on
    /// Spark and Sail, `value` on DataFusion): [`table_function`](Self::table_function)
    /// `("range", column)`.
    pub fn range_function(column: &str) -> Self {
        Profile::table_function("range", column)
    }

    /// An engine whose table function `function(n)` yields `0..n` in the column `column`
    /// (`numbers` and `number` on ClickHouse). The slow query sums three billion products of
    /// a cross join: seconds of work on two cores, and bounded, so a server that failed to
    /// stop it recovers by itself.
    ///
    /// ```
    /// use nao_dialects::conformance::Profile;
    ///
    /// let clickhouse = Profile::table_function("numbers", "number");
    /// assert_eq!(clickhouse.series_sql(3), "SELECT number + 1 AS n FROM numbers(3)");
    /// ```
    pub fn table_function(function: &str, column: &str) -> Self {
        let (f, c) = (function, column);
        Profile {
            source: RowSource::TableFunction(function.to_owned(), column.to_owned()),
            slow_sql: format!(
                "SELECT sum((a.{c} * b.{c}) % 7) AS s FROM {f}(300000) a CROSS JOIN {f}(10000) b"
            ),
            engine_refuses_writes: true,
            reports_not_null: true,
            cancels_running: true,
            reports_comments: true,
            decimal: DecimalForm::Decimal128,
        }
    }

    /// Replaces the slow query (one that runs for seconds before its first row).
    #[must_use]
    pub fn with_slow_sql(mut self, sql: impl Into<String>) -> Self {
        self.slow_sql = sql.into();
        self
    }

    /// Declares that nothing in the engine refuses writes (no read-only session or
    /// connection): the write check then verifies that the guard refuses each write, and sends
    /// none of them.
    #[must_use]
    pub fn without_engine_write_refusal(mut self) -> Self {
        self.engine_refuses_writes = false;
        self
    }

    /// Declares that the engine reports every column as nullable (a table over files without
    /// declared constraints): the description check then does not expect `NOT NULL`.
    #[must_use]
    pub fn without_not_null(mut self) -> Self {
        self.reports_not_null = false;
        self
    }

    /// Declares that the engine cannot interrupt a statement once it runs (no cancel request,
    /// no interrupt handle, no stream to drop): the cancellation check then verifies the
    /// fallback, that a token cancelled before the call stops the statement before anything
    /// runs. (The time limit is checked all the same: the caller must hear of it on time, even
    /// if the engine works on; keep the slow query bounded.)
    #[must_use]
    pub fn without_cancellation(mut self) -> Self {
        self.cancels_running = false;
        self
    }

    /// Declares that the engine's catalogue holds no comments on tables and columns: the demo
    /// shop's description check then verifies that the adapter gives none (rather than
    /// inventing any) and still lists every table and column.
    #[must_use]
    pub fn without_comments(mut self) -> Self {
        self.reports_comments = false;
        self
    }

    /// Declares how the engine's client returns `DECIMAL(12, 2)` (see [`DecimalForm`]); the
    /// fixture check then reads the values in that form.
    #[must_use]
    pub fn with_decimal_form(mut self, form: DecimalForm) -> Self {
        self.decimal = form;
        self
    }

    /// A query yielding `n` rows, one column `n` holding `1..=n`.
    pub fn series_sql(&self, n: u64) -> String {
        match &self.source {
            RowSource::RecursiveCte => super::series_sql(n),
            RowSource::TableFunction(f, c) => format!("SELECT {c} + 1 AS n FROM {f}({n})"),
        }
    }

    /// A query yielding a million rows that the engine can stream.
    pub fn million_rows_sql(&self) -> String {
        match &self.source {
            RowSource::RecursiveCte => super::million_rows_sql(),
            RowSource::TableFunction(f, c) => format!("SELECT {c} AS n FROM {f}(1000000)"),
        }
    }

    /// A query that runs for seconds before its first row.
    pub fn slow_sql(&self) -> &str {
        &self.slow_sql
    }

    /// Whether the engine itself refuses writes.
    pub fn engine_refuses_writes(&self) -> bool {
        self.engine_refuses_writes
    }

    /// Whether the engine reports `NOT NULL` columns as such.
    pub fn reports_not_null(&self) -> bool {
        self.reports_not_null
    }

    /// Whether the engine can interrupt a running statement.
    pub fn cancels_running_statements(&self) -> bool {
        self.cancels_running
    }

    /// Whether the engine's catalogue holds comments on tables and columns.
    pub fn reports_comments(&self) -> bool {
        self.reports_comments
    }

    /// How the engine's client returns `DECIMAL(12, 2)`.
    pub fn decimal_form(&self) -> DecimalForm {
        self.decimal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portable_sql_is_the_suites_own() {
        let portable = Profile::default();
        assert_eq!(portable.series_sql(7), crate::conformance::series_sql(7));
        assert_eq!(portable.slow_sql(), crate::conformance::slow_sql());
        assert!(portable.engine_refuses_writes() && portable.reports_not_null());
    }

    #[test]
    fn range_engines_count_from_one() {
        let datafusion = Profile::range_function("value")
            .with_slow_sql("SELECT 1")
            .without_not_null();
        assert_eq!(
            datafusion.series_sql(5),
            "SELECT value + 1 AS n FROM range(5)"
        );
        assert_eq!(
            datafusion.million_rows_sql(),
            "SELECT value AS n FROM range(1000000)"
        );
        assert_eq!(datafusion.slow_sql(), "SELECT 1");
        assert!(!datafusion.reports_not_null());
    }
}
