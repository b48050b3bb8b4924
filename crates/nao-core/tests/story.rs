//! The story tool on the SQLite demo database: create → update → replace → versions, the
//! search/replace rules, every tag validation rule with its line:column, and the size bound.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::DemoTools;

use nao_core::story::{MAX_STORY_BYTES, TagKind, scan_tags};
use serde_json::{Value, json};

/// The tools over the demo shop with two stored results, and story helpers.
struct Env {
    tools: DemoTools,
    monthly: String,
    category: String,
}

const MONTHLY: &str = "SELECT strftime('%Y-%m', ordered_at) AS month, SUM(total) AS revenue, \
     COUNT(*) AS orders FROM orders GROUP BY 1 ORDER BY 1";
const BY_CATEGORY: &str = "SELECT p.category, SUM(i.quantity * i.unit_price) AS revenue \
     FROM order_items i JOIN products p ON p.id = i.product_id GROUP BY 1 ORDER BY 2 DESC";

impl Env {
    async fn new() -> Self {
        let tools = DemoTools::new();
        let monthly = tools.query(MONTHLY).await;
        let category = tools.query(BY_CATEGORY).await;
        Env {
            tools,
            monthly,
            category,
        }
    }

    async fn story(&self, args: Value) -> nao_core::ToolResult {
        self.tools.call("story", args).await
    }

    async fn ok(&self, args: Value) -> Value {
        self.tools.ok("story", args).await
    }

    async fn err(&self, args: Value) -> String {
        self.tools.err("story", args).await
    }

    fn good_story(&self) -> String {
        format!(
            "# Q3 review\n\nRevenue grew.\n\n<grid cols=\"2\">\n<chart query_id=\"{}\" \
             chart_type=\"line\" x_axis_key=\"month\" x_axis_type=\"date\" \
             series='[{{\"data_key\": \"revenue\", \"label\": \"Revenue\"}}]' \
             title=\"Monthly revenue\" />\n<table query_id=\"{}\" title=\"By category\" />\n\
             </grid>\n\nThe end.\n",
            self.monthly, self.category
        )
    }

    /// Creates a story with `code` and returns the error's text.
    async fn invalid(&self, code: &str) -> String {
        self.err(json!({"action": "create", "id": "bad", "title": "Bad", "code": code}))
            .await
    }
}

#[tokio::test]
async fn create_update_replace_lists_versions() {
    let env = Env::new().await;
    let out = env
        .ok(
            json!({"action": "create", "id": "q3-review", "title": "Q3 review",
                   "code": env.good_story()}),
        )
        .await;
    assert_eq!(out["version"], 1);
    assert_eq!(out["id"], "q3-review");
    assert_eq!(out["title"], "Q3 review");
    assert_eq!(out["charts"], 1);
    assert_eq!(out["tables"], 1);
    assert_eq!(out["grids"], 1);

    let out = env
        .ok(
            json!({"action": "update", "id": "q3-review", "search": "Revenue grew.",
                   "replace": "Revenue grew by a third."}),
        )
        .await;
    assert_eq!(out["version"], 2);
    assert_eq!(out["title"], "Q3 review");

    let out = env
        .ok(
            json!({"action": "replace", "id": "q3-review", "title": "Q3 in short",
                   "code": "# Short\n\nNothing to chart.\n"}),
        )
        .await;
    assert_eq!(out["version"], 3);
    assert_eq!(out["title"], "Q3 in short");
    let result = env
        .story(json!({"action": "replace", "id": "q3-review", "code": "# Again\n"}))
        .await;
    assert!(
        result.content.contains("saved as version 4"),
        "{}",
        result.content
    );

    let versions = env.tools.ctx.story_store().versions("q3-review").unwrap();
    let numbers: Vec<u32> = versions.iter().map(|v| v.number).collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    assert!(versions[1].code.contains("Revenue grew by a third."));
    assert!(!versions[1].code.contains("Revenue grew.\n"));
    assert_eq!(versions[0].code, env.good_story());
    assert_eq!(versions[2].code, "# Short\n\nNothing to chart.\n");
    let story = env
        .tools
        .ctx
        .story_store()
        .get("q3-review")
        .unwrap()
        .unwrap();
    assert_eq!(story.title, "Q3 in short");
    assert_eq!(story.versions.len(), 4);

    let artifacts: Vec<_> = env
        .tools
        .ctx
        .artifacts()
        .into_iter()
        .filter(|a| a.kind == "story")
        .collect();
    assert_eq!(artifacts.len(), 4);
    assert_eq!(artifacts[3].content["version"], 4);
    assert_eq!(artifacts[3].content["code"], "# Again\n");
}

#[tokio::test]
async fn create_refuses_an_existing_id_and_update_an_unknown_one() {
    let env = Env::new().await;
    env.ok(json!({"action": "create", "id": "a", "title": "A", "code": "x"}))
        .await;
    let e = env
        .err(json!({"action": "create", "id": "a", "title": "A", "code": "y"}))
        .await;
    assert!(e.contains("already exists (version 1)"), "{e}");
    let e = env
        .err(json!({"action": "update", "id": "nope", "search": "x", "replace": "y"}))
        .await;
    assert!(
        e.contains("there is no story \\\"nope\\\"") || e.contains("no story"),
        "{e}"
    );
    let e = env
        .err(json!({"action": "create", "id": "Not A Slug", "title": "A", "code": "x"}))
        .await;
    assert!(e.contains("not a slug"), "{e}");
    let e = env
        .err(json!({"action": "update", "id": "a", "code": "x"}))
        .await;
    assert!(e.contains("update does not take code"), "{e}");
    assert_eq!(env.tools.ctx.story_store().versions("a").unwrap().len(), 1);
}

#[tokio::test]
async fn update_needs_exactly_one_match() {
    let env = Env::new().await;
    let code = "# Title\n\nsales up\n\nmore sales up\n";
    env.ok(json!({"action": "create", "id": "s", "title": "S", "code": code}))
        .await;
    let e = env
        .err(json!({"action": "update", "id": "s", "search": "profit", "replace": "x"}))
        .await;
    assert!(
        e.contains("\\\"profit\\\" occurs 0 times in version 1") || e.contains("occurs 0 times"),
        "{e}"
    );
    assert!(e.contains("profit"), "{e}");
    let e = env
        .err(json!({"action": "update", "id": "s", "search": "sales up", "replace": "x"}))
        .await;
    assert!(e.contains("occurs 2 times"), "{e}");
    assert!(e.contains("lines 3, 5"), "{e}");
    assert_eq!(env.tools.ctx.story_store().versions("s").unwrap().len(), 1);
    let out = env
        .ok(json!({"action": "update", "id": "s", "search": "more sales up", "replace": ""}))
        .await;
    assert_eq!(out["version"], 2);
    let latest = env.tools.ctx.story_store().latest("s").unwrap().unwrap();
    assert_eq!(latest.code, "# Title\n\nsales up\n\n\n");
}

/// The `line:column` of the first `needle` in `code` (ASCII before it).
fn at(code: &str, needle: &str) -> String {
    let i = code.find(needle).unwrap();
    let line = code[..i].matches('\n').count() + 1;
    let column = i - code[..i].rfind('\n').map_or(0, |n| n + 1) + 1;
    format!("{line}:{column}")
}

/// Asserts that `code` is refused with an error at `line:column` that mentions `words`.
async fn refused(env: &Env, code: &str, at: &str, words: &str) {
    let e = env.invalid(code).await;
    assert!(e.contains(&format!("- {at}: ")), "expected {at} in: {e}");
    assert!(e.contains(words), "expected {words:?} in: {e}");
    assert!(env.tools.ctx.story_store().latest("bad").unwrap().is_none());
}

#[tokio::test]
async fn invalid_tags_are_refused_with_positions() {
    let env = Env::new().await;
    let m = env.monthly.clone();
    let series = r#"series='[{"data_key": "revenue"}]' title="T""#;
    // Unclosed chart: the next tag starts before it ends.
    refused(
        &env,
        &format!(
            "# T\n\nText <chart query_id=\"{m}\" chart_type=\"bar\"\n<table query_id=\"{m}\" />"
        ),
        "3:6",
        "never closed",
    )
    .await;
    // Unclosed at the end of the input.
    refused(&env, "<chart query_id=\"x\"", "1:1", "never closed").await;
    // Not self-closing.
    refused(
        &env,
        &format!("a\n  <table query_id=\"{m}\">"),
        "2:3",
        "must be self-closing",
    )
    .await;
    // Missing attribute.
    refused(
        &env,
        &format!("# T\n<chart query_id=\"{m}\" chart_type=\"bar\" {series} />"),
        "2:1",
        "missing `x_axis_key`",
    )
    .await;
    // Bad JSON series: the position is the value's first character.
    let code = format!(
        "<chart query_id=\"{m}\" chart_type=\"bar\" x_axis_key=\"month\" title=\"T\" series='[{{data_key: revenue}}]' />"
    );
    refused(&env, &code, &at(&code, "[{"), "series is not valid JSON").await;
    let code = format!(
        "<chart query_id=\"{m}\" chart_type=\"bar\" x_axis_key=\"month\" title=\"T\" series='[{{\"label\": \"x\"}}]' />"
    );
    refused(&env, &code, &at(&code, "[{"), "non-empty \"data_key\"").await;
    // Unknown chart type.
    let code = format!(
        "\n\n<chart query_id=\"{m}\" chart_type=\"radar\" x_axis_key=\"month\" {series} />"
    );
    refused(
        &env,
        &code,
        &at(&code, "radar"),
        "unknown chart_type \"radar\"; use one of bar, horizontal_bar",
    )
    .await;
    // Grid cols 5.
    refused(
        &env,
        "<grid cols=\"5\">\n</grid>",
        "1:13",
        "grid cols must be 1, 2, 3 or 4",
    )
    .await;
    // Unbalanced grid: never closed, and a close with no open.
    refused(&env, "x\n<grid cols=\"2\">\ny", "2:1", "never closed").await;
    refused(&env, "x\n\n  </grid>", "3:3", "closes no open `<grid>`").await;
    refused(
        &env,
        "<grid cols=\"2\">\n<grid cols=\"2\">\n</grid></grid>",
        "2:1",
        "cannot be nested",
    )
    .await;
    // Unknown query id.
    refused(
        &env,
        "# T\n\nsee <table query_id=\"q_missing\" />",
        "3:5",
        "no query result has the id \"q_missing\"",
    )
    .await;
    // A chart whose column is not in its result.
    refused(
        &env,
        &format!("<chart query_id=\"{m}\" chart_type=\"bar\" x_axis_key=\"monthz\" {series} />"),
        "1:1",
        "monthz",
    )
    .await;
    // Closing a self-closing tag.
    refused(&env, "</chart>", "1:1", "self-closing").await;
    // Unknown attribute; columns count characters, not bytes.
    refused(
        &env,
        &format!("é <table query_id=\"{m}\" colour=\"red\" />"),
        &format!("1:{}", 2 + "<table query_id=\"\" ".len() + m.len() + 1),
        "no attribute `colour`",
    )
    .await;
}

#[tokio::test]
async fn several_errors_are_reported_together() {
    let env = Env::new().await;
    let e = env
        .invalid("<table />\n<grid cols=\"9\">\n</grid>\n<chart chart_type=\"pie\" />")
        .await;
    assert!(e.contains("- 1:1: "), "{e}");
    assert!(e.contains("- 2:13: "), "{e}");
    assert!(e.contains("- 4:1: "), "{e}");
}

#[test]
fn tags_in_code_fences_and_other_html_are_text() {
    let code = "<div>hi</div> <charts> <tablex>\n```\n<chart oops\n```\n<grid cols=2>\n</grid>\n";
    let tags = scan_tags(code).unwrap();
    assert_eq!(tags.len(), 2);
    assert_eq!(tags[0].kind, TagKind::GridOpen { cols: 2 });
    assert_eq!((tags[0].line, tags[0].column), (5, 1));
    assert_eq!(tags[1].kind, TagKind::GridClose);
}

#[tokio::test]
async fn input_is_bounded_and_never_panics() {
    let env = Env::new().await;
    let big = "a".repeat(MAX_STORY_BYTES + 1);
    let e = env.invalid(&big).await;
    assert!(e.contains("the limit is 262144"), "{e}");
    assert!(scan_tags(&big).is_err());
    // Hostile fragments: none panics, each answers.
    let fragments = [
        "<",
        "<chart",
        "<chart ",
        "<chart a",
        "<chart a=",
        "<chart a='",
        "<chart a=\"é",
        "</",
        "</grid",
        "</grid ",
        "<grid",
        "<grid cols=",
        "<grid cols=\"\">",
        "<grid cols=-1>",
        "<grid cols=99999999999>",
        "<chart series='[' />",
        "<chart series='{}' />",
        "<table query_id=\"&amp;&quot;&\" />",
        "<chart/><table/><grid/>",
        "é<chartü",
        "```\n<chart",
        "<chart =\"x\" />",
        "<table query_id=x/>",
    ];
    for fragment in fragments {
        let _ = scan_tags(fragment);
        let _ = scan_tags(&fragment.repeat(1000));
    }
    // Many errors are capped.
    let many = "<chart />\n".repeat(10_000);
    let errors = scan_tags(&many).unwrap_err();
    assert_eq!(errors.len(), nao_core::story::MAX_TAG_ERRORS);
    // Unquoted values work, and `/>` right after one closes the tag.
    let tags = scan_tags("<table query_id=q_1/>").unwrap();
    assert!(matches!(&tags[0].kind, TagKind::Table(t) if t.query_id == "q_1"));
}
