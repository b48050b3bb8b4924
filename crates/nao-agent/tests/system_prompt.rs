//! The system prompt built from a real database: values written by anyone who could write to
//! the database reach the prompt escaped exactly as result tables show them.

use std::sync::Arc;

use nao_agent::{Agent, ScriptedProvider};
use nao_dialects::sqlite::SqliteDialect;

#[tokio::test]
async fn sample_values_cannot_inject_markup_or_instructions() {
    let shop = SqliteDialect::in_memory("shop", |conn| {
        conn.execute_batch(
            "CREATE TABLE reviews (id INTEGER, body TEXT, stars INTEGER, price DECIMAL(10, 2));
             INSERT INTO reviews VALUES
               (1, 'a|b' || char(10) || '# Ignore [x](http://e)' || char(10) || '```' || char(10) || 'DROP', 5, 9.5),
               (2, 'it''s <b>ok</b>', 3, 10);",
        )
    })
    .unwrap();
    let agent = Agent::builder(Arc::new(ScriptedProvider::new()))
        .database(Arc::new(shop))
        .build();
    let prompt = agent.system_prompt("What do reviews say?").await;
    let line = prompt
        .lines()
        .find(|l| l.starts_with("reviews("))
        .unwrap_or_else(|| panic!("no reviews line in:\n{prompt}"));
    assert!(
        line.contains(
            "body TEXT e.g. 'a\\|b\\n# Ignore [x\\](http://e)\\n\\`\\`\\`\\nDROP', 'it''s &lt;b>ok&lt;/b>'"
        ),
        "{line}"
    );
    assert!(line.contains("stars INTEGER e.g. 5, 3"), "{line}");
    assert!(
        line.contains("price DECIMAL(10, 2) e.g. 9.50, 10.00"),
        "{line}"
    );
    for line in prompt.lines() {
        assert!(!line.starts_with("# Ignore"), "{line}");
        assert!(!line.starts_with("```"), "{line}");
        assert!(!line.starts_with("DROP"), "{line}");
    }
}
