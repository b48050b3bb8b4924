//! The policy layer's masking and audit over the SQLite demo shop: masked columns come back as
//! keyed hashes (equal values stay equal), wherever the statement carries them; value-revealing
//! uses are refused; every hidden, refused and masked thing is reported to the audit sink.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch};
use nao_core::guard::{MaskRule, Policy, check};
use nao_core::masking::MaskKey;
use nao_core::{
    AuditSink, Dialect, DialectExt, ExecOptions, GovernedDialect, MemoryAudit, PolicyAction,
    TableRef,
};
use nao_dialects::demo::DemoScale;
use nao_dialects::sqlite::SqliteDialect;
use nao_render::MASKED_FIELD_METADATA;

fn shop() -> Arc<dyn Dialect> {
    Arc::new(SqliteDialect::demo("shop", DemoScale::Small).expect("demo database"))
}

fn policy() -> Arc<Policy> {
    Arc::new(
        Policy::default()
            .mask_column("customers.email", MaskRule::Hash)
            .mask_column("customers.name", MaskRule::Partial { keep_last: 3 })
            .deny_table("reviews"),
    )
}

async fn rows(database: &dyn Dialect, sql: &str) -> Vec<RecordBatch> {
    let sql = check(sql, database.sql_dialect(), &Policy::default()).expect("valid SQL");
    database
        .query(&sql, &ExecOptions::default())
        .await
        .unwrap_or_else(|e| panic!("{}: {e}", sql.sql()))
        .batches
}

/// Column `index` of every batch as text (NULL as None).
fn texts(batches: &[RecordBatch], index: usize) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for batch in batches {
        let column = batch.column(index);
        let strings = column.as_string::<i32>();
        for i in 0..strings.len() {
            out.push(strings.is_valid(i).then(|| strings.value(i).to_owned()));
        }
    }
    out
}

fn governed(audit: &Arc<MemoryAudit>) -> GovernedDialect {
    let sink: Arc<dyn AuditSink> = audit.clone();
    GovernedDialect::new(shop(), policy()).with_audit(sink)
}

#[tokio::test]
async fn masked_columns_come_back_hashed_and_equal_values_stay_equal() {
    let audit = Arc::new(MemoryAudit::default());
    let database = governed(&audit);
    let bare = shop();
    let sql = "SELECT id, email FROM customers ORDER BY id";
    let raw = texts(&rows(bare.as_ref(), sql).await, 1);
    let masked_batches = rows(&database, sql).await;
    let masked = texts(&masked_batches, 1);
    assert_eq!(raw.len(), masked.len());
    let field = masked_batches[0].schema().field(1).clone();
    let reason = field.metadata().get(MASKED_FIELD_METADATA).expect("marked");
    assert!(reason.contains("customers.email"), "{reason}");
    // The same raw value always gives the same hash, different ones different hashes, and
    // NULL stays NULL.
    let mut by_raw: BTreeMap<&Option<String>, &Option<String>> = BTreeMap::new();
    for (raw, masked) in raw.iter().zip(&masked) {
        assert_eq!(raw.is_none(), masked.is_none());
        if let (Some(r), Some(m)) = (raw, masked) {
            assert!(m.starts_with("h:") && !m.contains(r.as_str()), "{r} -> {m}");
        }
        assert_eq!(*by_raw.entry(raw).or_insert(masked), masked);
    }
    let distinct_raw: BTreeSet<_> = raw.iter().flatten().collect();
    let distinct_masked: BTreeSet<_> = masked.iter().flatten().collect();
    assert_eq!(distinct_raw.len(), distinct_masked.len());

    // GROUP BY over the masked column keeps its groups.
    let grouped = "SELECT email, count(*) AS n FROM customers GROUP BY email";
    assert_eq!(
        rows(&database, grouped)
            .await
            .iter()
            .map(RecordBatch::num_rows)
            .sum::<usize>(),
        rows(bare.as_ref(), grouped)
            .await
            .iter()
            .map(RecordBatch::num_rows)
            .sum::<usize>()
    );
    let events = audit.policy_events();
    assert!(
        events.iter().any(|e| matches!(
            &e.action,
            PolicyAction::ColumnsMasked { columns } if columns[0].contains("customers.email (hash)")
        )),
        "{events:?}"
    );
}

#[tokio::test]
async fn stars_subqueries_and_partial_rules_are_masked_too() {
    let audit = Arc::new(MemoryAudit::default());
    let database = governed(&audit);
    let bare = shop();
    let raw_names = texts(
        &rows(bare.as_ref(), "SELECT name FROM customers ORDER BY id").await,
        0,
    );

    let star = rows(&database, "SELECT * FROM customers ORDER BY id").await;
    let schema = star[0].schema();
    let email = schema.index_of("email").expect("email column");
    let name = schema.index_of("name").expect("name column");
    assert!(
        texts(&star, email)
            .iter()
            .flatten()
            .all(|e| e.starts_with("h:"))
    );
    for (raw, shown) in raw_names.iter().zip(texts(&star, name)) {
        let (raw, shown) = (raw.as_deref().unwrap(), shown.unwrap());
        let tail: String = raw
            .chars()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(shown.ends_with(&tail) && shown != raw, "{raw} -> {shown}");
    }
    let nested = rows(
        &database,
        "SELECT s.contact FROM (SELECT email AS contact FROM customers) s",
    )
    .await;
    assert!(
        texts(&nested, 0)
            .iter()
            .flatten()
            .all(|e| e.starts_with("h:"))
    );
}

#[tokio::test]
async fn value_revealing_uses_are_refused_and_audited() {
    let audit = Arc::new(MemoryAudit::default());
    let database = governed(&audit);
    // Built under a policy without masks: the layer judges it again under its own.
    let sql = check(
        "SELECT lower(email) FROM customers",
        database.sql_dialect(),
        &Policy::default(),
    )
    .expect("valid SQL");
    let error = database
        .query(&sql, &ExecOptions::default())
        .await
        .expect_err("refused");
    assert_eq!(error.kind_code(), "permission", "{error}");
    assert!(error.to_string().contains("customers.email"), "{error}");
    assert!(audit.policy_events().iter().any(|e| matches!(
        &e.action,
        PolicyAction::StatementRefused { code, .. } if code == "masked_column_use"
    )));
}

#[tokio::test]
async fn catalogue_marks_masked_columns_and_reports_hidden_tables() {
    let audit = Arc::new(MemoryAudit::default());
    let database = governed(&audit);
    let described = database
        .describe_table(&TableRef::parse("customers"))
        .await
        .expect("described");
    let email = described
        .columns
        .iter()
        .find(|c| c.name == "email")
        .expect("email");
    assert_eq!(email.mask, Some(MaskRule::Hash));
    let id = described
        .columns
        .iter()
        .find(|c| c.name == "id")
        .expect("id");
    assert_eq!(id.mask, None);
    let tables = database
        .list_tables(&Default::default())
        .await
        .expect("listed");
    assert!(tables.iter().all(|t| t.name != "reviews"));
    assert!(audit.policy_events().iter().any(|e| matches!(
        &e.action,
        PolicyAction::TablesHidden { tables } if tables.iter().any(|t| t.ends_with("reviews"))
    )));
}

#[tokio::test]
async fn hashes_depend_on_the_key() {
    let sql = "SELECT email FROM customers WHERE email IS NOT NULL ORDER BY id LIMIT 5";
    let with = |key: [u8; 16]| {
        GovernedDialect::new(shop(), policy()).with_mask_key(MaskKey::from_bytes(key))
    };
    let a = texts(&rows(&with([1; 16]), sql).await, 0);
    let a_again = texts(&rows(&with([1; 16]), sql).await, 0);
    let b = texts(&rows(&with([2; 16]), sql).await, 0);
    assert_eq!(a, a_again);
    assert!(a.iter().zip(&b).all(|(x, y)| x != y));
}

#[tokio::test]
async fn the_value_detector_replaces_personal_values_in_undeclared_columns() {
    use nao_core::masking::ValueDetector;

    let database = Arc::new(
        SqliteDialect::in_memory("notes", |conn| {
            conn.execute_batch(
                "CREATE TABLE tickets (id INTEGER, body TEXT, ref TEXT);
                 INSERT INTO tickets VALUES
                   (1, 'Call ada@example.com or +44 20 7946 0958 today', 'ORD-2024-000123'),
                   (2, 'No contact details here', 'v10.0.19041.1');",
            )
        })
        .expect("database"),
    );
    let audit = Arc::new(MemoryAudit::default());
    let sink: Arc<dyn AuditSink> = audit.clone();
    let governed = GovernedDialect::new(database, Arc::new(Policy::default()))
        .with_value_detector(ValueDetector::all())
        .with_audit(sink);
    let sql = check(
        "SELECT body, ref FROM tickets ORDER BY id",
        governed.sql_dialect(),
        &Policy::default(),
    )
    .expect("valid SQL");
    let result = governed
        .query(&sql, &ExecOptions::default())
        .await
        .expect("runs");
    let bodies = texts(&result.batches, 0);
    assert_eq!(bodies[0].as_deref(), Some("Call [email] or [phone] today"));
    assert_eq!(bodies[1].as_deref(), Some("No contact details here"));
    assert_eq!(
        texts(&result.batches, 1)[0].as_deref(),
        Some("ORD-2024-000123")
    );
    // The reader is told, on the collected result's schema, where and why.
    let body = result.schema.field(0);
    let reason = body
        .metadata()
        .get(MASKED_FIELD_METADATA)
        .expect("body is marked");
    assert!(
        reason.contains("value detector") && reason.contains("email"),
        "{reason}"
    );
    assert!(
        result
            .schema
            .field(1)
            .metadata()
            .get(MASKED_FIELD_METADATA)
            .is_none()
    );
    assert!(audit.policy_events().iter().any(|e| matches!(
        &e.action,
        PolicyAction::ValuesDetected { findings } if !findings.is_empty()
    )));
}

#[tokio::test]
async fn statements_prepared_through_the_layer_are_judged_by_its_policy_and_audited() {
    let audit = Arc::new(MemoryAudit::default());
    let database = governed(&audit);
    let refused = database
        .prepare("SELECT lower(email) FROM customers", Some(100))
        .expect_err("the host's policy refuses it");
    assert_eq!(refused.kind().code(), "masked_column_use");
    assert!(audit.policy_events().iter().any(|e| matches!(
        &e.action,
        PolicyAction::StatementRefused { code, .. } if code == "masked_column_use"
    )));
    // The bare adapter has only the guard's defaults.
    assert!(
        shop()
            .prepare("SELECT lower(email) FROM customers", None)
            .is_ok()
    );
    // The cap the caller asks for is written into the SQL.
    let capped = database
        .prepare("SELECT id FROM customers", Some(7))
        .expect("allowed");
    assert_eq!(capped.effective_limit(Some(7)), Some(7));
}

#[tokio::test]
async fn a_statement_proved_by_another_layer_is_judged_again_and_one_proved_here_is_masked() {
    let audit = Arc::new(MemoryAudit::default());
    let strict = governed(&audit);
    // Another layer over the same database, with a policy that masks nothing, proves it.
    let lenient = GovernedDialect::new(shop(), Arc::new(Policy::default()));
    let elsewhere = lenient
        .prepare("SELECT lower(email) FROM customers", Some(10))
        .expect("the lenient policy allows it");
    let error = strict
        .query(&elsewhere, &ExecOptions::default())
        .await
        .expect_err("the strict layer does not take another layer's proof");
    assert_eq!(error.kind_code(), "permission", "{error}");
    let denied = lenient
        .prepare("SELECT * FROM reviews", Some(10))
        .expect("allowed by the lenient policy");
    assert!(
        strict
            .query(&denied, &ExecOptions::default())
            .await
            .is_err()
    );

    // A statement the strict layer proved itself runs without a second check, and its
    // verdict (which columns to mask) still applies.
    let own = strict
        .prepare("SELECT id, email FROM customers ORDER BY id", Some(5))
        .expect("allowed");
    let batches = strict
        .query(&own, &ExecOptions::default())
        .await
        .expect("runs")
        .batches;
    let emails = texts(&batches, 1);
    assert_eq!(emails.len(), 5);
    assert!(
        emails.iter().flatten().all(|e| e.starts_with("h:")),
        "{emails:?}"
    );
}

#[tokio::test]
async fn describe_table_tells_the_model_which_columns_are_masked() {
    use nao_core::{Databases, Settings, ToolCall, ToolContext, tools};

    let settings = Settings::default().with_policy(policy().as_ref().clone());
    let ctx = ToolContext::new(Databases::new().with(shop())).with_settings(settings);
    let call = ToolCall::new(
        "c",
        "describe_table",
        serde_json::json!({"table": "customers"}),
    );
    let result = tools::sql_tools().call(&call, &ctx).await;
    assert!(!result.is_error, "{}", result.content);
    let email = result
        .content
        .lines()
        .find(|l| l.starts_with("| email"))
        .expect("the email row");
    assert!(
        email.contains("values masked by the host's policy: hash"),
        "{email}"
    );
    assert!(!result.content.contains("@example"), "{}", result.content);
}

/// The real SQLite shop, except that it runs a write in place of whatever it is handed: the
/// shape of a gap between the guard's reading of a text and the engine's (a parser
/// differential), which no statement of today's guard is known to open.
#[derive(Debug)]
struct ReadsOtherwise {
    shop: Arc<dyn Dialect>,
}

#[async_trait::async_trait]
impl Dialect for ReadsOtherwise {
    fn name(&self) -> &str {
        self.shop.name()
    }

    fn sql_dialect(&self) -> nao_core::guard::SqlDialect {
        self.shop.sql_dialect()
    }

    async fn execute(
        &self,
        _sql: &nao_core::guard::ReadOnlySql,
        options: &ExecOptions,
    ) -> Result<nao_core::BatchStream, nao_core::DialectError> {
        let write = nao_core::guard::ReadOnlySql::new_unchecked_allowing_writes(
            "DELETE FROM orders",
            self.sql_dialect(),
        );
        self.shop.execute(&write, options).await
    }

    fn refused_as_writing(&self, error: &nao_core::DialectError) -> bool {
        // SQLite's authorizer refuses the write while preparing it.
        matches!(error, nao_core::DialectError::Permission { .. })
    }

    async fn list_tables(
        &self,
        filter: &nao_core::TableFilter,
    ) -> Result<Vec<nao_core::TableInfo>, nao_core::DialectError> {
        self.shop.list_tables(filter).await
    }

    async fn describe_table(
        &self,
        table: &TableRef,
    ) -> Result<nao_core::TableSchema, nao_core::DialectError> {
        self.shop.describe_table(table).await
    }
}

#[tokio::test]
async fn an_engine_refusing_a_write_the_guard_read_as_a_query_is_audited_with_both_readings() {
    let audit = Arc::new(MemoryAudit::default());
    let sink: Arc<dyn AuditSink> = audit.clone();
    let database =
        GovernedDialect::new(Arc::new(ReadsOtherwise { shop: shop() }), policy()).with_audit(sink);
    let sql = database.prepare("SELECT id FROM orders", Some(10)).unwrap();
    let error = database
        .query(&sql, &ExecOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error, nao_core::DialectError::Permission { .. }),
        "{error:?}"
    );
    let events = audit.policy_events();
    let disagreements: Vec<_> = events
        .iter()
        .filter_map(|event| match &event.action {
            PolicyAction::ReadingsDisagree {
                statement,
                guard,
                engine,
            } => Some((statement.clone(), guard.clone(), engine.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(disagreements.len(), 1, "{events:?}");
    let (statement, guard, engine) = &disagreements[0];
    assert_eq!(statement, "SELECT id FROM orders LIMIT 10");
    assert_eq!(guard, "a read-only query");
    assert_eq!(engine, &error.to_string());
    // An error that is not a write refusal is no disagreement.
    let plain = GovernedDialect::new(shop(), policy()).with_audit(audit.clone());
    let missing = plain.prepare("SELECT nope FROM orders", None).unwrap();
    let _ = plain
        .query(&missing, &ExecOptions::default())
        .await
        .unwrap_err();
    let after = audit.policy_events();
    assert_eq!(
        after
            .iter()
            .filter(|e| matches!(e.action, PolicyAction::ReadingsDisagree { .. }))
            .count(),
        1,
        "{after:?}"
    );
}
