//! story: write a versioned Markdown report that cites stored results through chart, table and
//! grid tags; every write is validated, then saved as a new version.

use async_trait::async_trait;
use nao_render::{escape_cell, inline_code, quoted};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::story::{
    MAX_SLUG_CHARS, MAX_STORY_BYTES, MAX_TITLE_CHARS, StoryError, TagKind, check_slug,
};
use crate::{Artifact, Tool, ToolContext, ToolError, story::validate_story};

/// What a story call does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StoryAction {
    /// A new story (the id must be free): needs title and code.
    Create,
    /// Replace exactly one occurrence of `search` with `replace` in the latest version.
    Update,
    /// Swap the whole code of the latest version for `code`.
    Replace,
}

/// Arguments of story.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoryArgs {
    /// create, update or replace.
    pub action: StoryAction,
    /// The story's slug: lowercase letters, digits and single hyphens (`q3-revenue-review`).
    #[schemars(length(min = 1, max = 64))]
    pub id: String,
    /// The title: required by create; update and replace may rename the story.
    #[schemars(length(min = 1, max = 200))]
    pub title: Option<String>,
    /// The whole Markdown: required by create and replace.
    pub code: Option<String>,
    /// update: the exact text to find; it must occur exactly once in the latest version.
    pub search: Option<String>,
    /// update: the text that takes its place (may be empty).
    pub replace: Option<String>,
}

/// What story returns (also pushed to the context as an [`Artifact`] of kind `"story"`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct StoryOutput {
    /// The story's id.
    pub id: String,
    /// The number of the version just saved.
    pub version: u32,
    /// The story's title.
    pub title: String,
    /// Charts in this version.
    pub charts: usize,
    /// Tables in this version.
    pub tables: usize,
    /// Grids in this version.
    pub grids: usize,
    #[serde(skip)]
    markdown: String,
}

/// The story tool.
#[derive(Debug, Clone, Default)]
pub struct StoryTool;

const DESCRIPTION: &str = "Write a story: a Markdown report the user keeps, with live charts and \
tables from results execute_sql stored. Tags: <chart query_id=\"…\" chart_type=\"bar\" \
x_axis_key=\"month\" series='[{\"data_key\": \"revenue\", \"label\": \"Revenue\"}]' \
title=\"…\" /> (chart types as display_chart; x_axis_type=\"date|number|category\" optional), \
<table query_id=\"…\" title=\"…\" />, and <grid cols=\"2\">…</grid> (1 to 4 columns, not \
nested) to place charts side by side. chart and table are self-closing. Actions: create {id, \
title, code} makes a new story; update {id, search, replace} replaces one exact, unique \
occurrence of search in the latest version (include enough text to be unique); replace {id, \
code} swaps the whole code. title renames. Every write is checked (tags, query ids, columns) \
and saved as a new version; errors give line:column.";

fn invalid(message: impl Into<String>) -> ToolError {
    ToolError::InvalidArguments {
        tool: "story".to_owned(),
        message: message.into(),
    }
}

fn store_error(e: StoryError) -> ToolError {
    match e {
        StoryError::Storage { .. } => ToolError::Failed {
            message: e.to_string(),
        },
        other => invalid(other.to_string()),
    }
}

/// Fails if `value` was given to an action that does not take it.
fn refuse(value: &Option<String>, field: &str, action: &str, hint: &str) -> Result<(), ToolError> {
    match value {
        Some(_) => Err(invalid(format!("{action} does not take {field}; {hint}"))),
        None => Ok(()),
    }
}

/// The 1-based lines where each occurrence of `needle` starts.
fn occurrence_lines(haystack: &str, needle: &str) -> Vec<usize> {
    haystack
        .match_indices(needle)
        .map(|(i, _)| haystack[..i].matches('\n').count() + 1)
        .collect()
}

#[async_trait]
impl Tool for StoryTool {
    type Args = StoryArgs;
    type Output = StoryOutput;

    fn name(&self) -> &str {
        "story"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    async fn call(&self, args: StoryArgs, ctx: &ToolContext) -> Result<StoryOutput, ToolError> {
        let id = args.id.trim();
        check_slug(id).map_err(store_error)?;
        let title = args.title.as_deref().map(str::trim);
        if title.is_some_and(|t| t.is_empty() || t.chars().count() > MAX_TITLE_CHARS) {
            return Err(invalid(format!(
                "title must be 1 to {MAX_TITLE_CHARS} characters"
            )));
        }
        let store = ctx.story_store();
        let (code, previous) = match args.action {
            StoryAction::Create => {
                refuse(
                    &args.search,
                    "search",
                    "create",
                    "pass the whole Markdown as code",
                )?;
                refuse(
                    &args.replace,
                    "replace",
                    "create",
                    "pass the whole Markdown as code",
                )?;
                let title = title.ok_or_else(|| invalid("create needs a title"))?;
                let code = args
                    .code
                    .ok_or_else(|| invalid("create needs code: the story's Markdown"))?;
                if let Some(latest) = store.latest(id).map_err(store_error)? {
                    return Err(store_error(StoryError::AlreadyExists {
                        id: id.to_owned(),
                        latest: latest.number,
                    }));
                }
                (code, title.to_owned())
            }
            StoryAction::Update => {
                refuse(
                    &args.code,
                    "code",
                    "update",
                    "use action \"replace\" to swap the whole code",
                )?;
                let search = args
                    .search
                    .ok_or_else(|| invalid("update needs search: the exact text to change"))?;
                let replace = args.replace.ok_or_else(|| {
                    invalid("update needs replace: the new text (empty to delete)")
                })?;
                if search.is_empty() {
                    return Err(invalid("search is empty: give the exact text to change"));
                }
                let latest = store
                    .latest(id)
                    .map_err(store_error)?
                    .ok_or_else(|| store_error(StoryError::NotFound { id: id.to_owned() }))?;
                let lines = occurrence_lines(&latest.code, &search);
                let shown = quoted(&search, 80);
                match lines.len() {
                    1 => {}
                    0 => {
                        return Err(invalid(format!(
                            "search text {shown} occurs 0 times in version {} of story \
                             `{id}`; copy it exactly from the current code (whitespace and case \
                             count), or use action \"replace\"",
                            latest.number
                        )));
                    }
                    n => {
                        let at: Vec<String> = lines.iter().take(10).map(usize::to_string).collect();
                        return Err(invalid(format!(
                            "search text {shown} occurs {n} times in version {} of story \
                             `{id}` (lines {}); include more surrounding text so it occurs \
                             exactly once",
                            latest.number,
                            at.join(", ")
                        )));
                    }
                }
                let code = latest.code.replacen(&search, &replace, 1);
                (code, title.unwrap_or(&latest.title).to_owned())
            }
            StoryAction::Replace => {
                refuse(
                    &args.search,
                    "search",
                    "replace",
                    "use action \"update\" to edit part",
                )?;
                refuse(
                    &args.replace,
                    "replace",
                    "replace",
                    "pass the whole Markdown as code",
                )?;
                let code = args
                    .code
                    .ok_or_else(|| invalid("replace needs code: the story's whole new Markdown"))?;
                let latest = store
                    .latest(id)
                    .map_err(store_error)?
                    .ok_or_else(|| store_error(StoryError::NotFound { id: id.to_owned() }))?;
                (code, title.unwrap_or(&latest.title).to_owned())
            }
        };
        if code.len() > MAX_STORY_BYTES {
            return Err(invalid(format!(
                "the story would be {} bytes; the limit is {MAX_STORY_BYTES}",
                code.len()
            )));
        }
        let tags = validate_story(&code, ctx.results())
            .await
            .map_err(|e| invalid(e.to_string()))?;
        let version = match args.action {
            StoryAction::Create => store.create(id, &previous, &code),
            _ => store.save_version(id, &previous, &code),
        }
        .map_err(store_error)?;
        let count = |f: fn(&TagKind) -> bool| tags.iter().filter(|t| f(&t.kind)).count();
        let charts = count(|k| matches!(k, TagKind::Chart(_)));
        let tables = count(|k| matches!(k, TagKind::Table(_)));
        let grids = count(|k| matches!(k, TagKind::GridOpen { .. }));
        ctx.push_artifact(Artifact::new(
            "story",
            id,
            serde_json::json!({
                "id": id,
                "version": version.number,
                "title": version.title,
                "code": version.code,
                "created_at": version.created_at,
            }),
        ));
        let markdown = format!(
            "Story {} \"{}\" saved as version {} ({} chart{}, {} table{}, {} grid{}, {} \
             lines). The user sees it rendered; to change it, call story again with action \
             \"update\" (one exact search/replace) or \"replace\" (whole code).\n",
            inline_code(id, MAX_SLUG_CHARS),
            escape_cell(&version.title, 120),
            version.number,
            charts,
            if charts == 1 { "" } else { "s" },
            tables,
            if tables == 1 { "" } else { "s" },
            grids,
            if grids == 1 { "" } else { "s" },
            version.code.lines().count(),
        );
        Ok(StoryOutput {
            id: id.to_owned(),
            version: version.number,
            title: version.title,
            charts,
            tables,
            grids,
            markdown,
        })
    }

    fn render(&self, output: &StoryOutput) -> String {
        output.markdown.clone()
    }
}
