//! Story validation against the stored results: the tags, then every cited query id.

use std::fmt;

use super::{StoryTag, TagError, TagKind, scan_tags};
use crate::{QueryId, ResultStore};

/// Every problem found in a story, in order; `Display` lists them one per line as
/// `line:column: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TagErrors {
    /// The problems, at least one.
    pub errors: Vec<TagError>,
}

impl fmt::Display for TagErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.errors.len();
        write!(
            f,
            "the story has {n} problem{}; nothing was saved. Fix {} and write it again:",
            if n == 1 { "" } else { "s" },
            if n == 1 { "it" } else { "them" }
        )?;
        for error in &self.errors {
            write!(f, "\n- {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for TagErrors {}

/// Scans the tags of `code` ([`scan_tags`]) and checks that every query id a tag cites is in
/// `results`, and that each chart's columns fit its result (as display_chart checks them).
pub async fn validate_story(code: &str, results: &ResultStore) -> Result<Vec<StoryTag>, TagErrors> {
    let tags = scan_tags(code).map_err(|errors| TagErrors { errors })?;
    let mut errors = Vec::new();
    for tag in &tags {
        let query_id = match &tag.kind {
            TagKind::Chart(chart) => &chart.query_id,
            TagKind::Table(table) => &table.query_id,
            _ => continue,
        };
        let Some(result) = results.get(&QueryId::from_model(query_id.as_str())).await else {
            errors.push(TagError {
                line: tag.line,
                column: tag.column,
                message: format!(
                    "no query result has the id {}: cite a query_id that execute_sql \
                     returned in this conversation, or run the query again",
                    nao_render::quoted(query_id, 60)
                ),
            });
            continue;
        };
        if let TagKind::Chart(chart) = &tag.kind {
            let spec = chart.spec(result.id.as_str());
            if let Err(e) = crate::chart::validate(&spec, &result) {
                errors.push(TagError {
                    line: tag.line,
                    column: tag.column,
                    message: e.to_string(),
                });
            }
        }
        if errors.len() >= super::MAX_TAG_ERRORS {
            break;
        }
    }
    if errors.is_empty() {
        Ok(tags)
    } else {
        Err(TagErrors { errors })
    }
}
