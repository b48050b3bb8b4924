//! suggest_follow_ups: offer the person next questions after an answer; ends the model's turn.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Tool, ToolContext, ToolError};

/// Arguments of suggest_follow_ups.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuggestFollowUpsArgs {
    /// One to three short questions the user may ask next, answerable from the same data.
    #[schemars(length(min = 1, max = 3))]
    pub suggestions: Vec<String>,
}

/// What suggest_follow_ups returns: the suggestions, for the host to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SuggestFollowUpsOutput {
    /// The suggestions.
    pub suggestions: Vec<String>,
}

/// The suggest_follow_ups tool.
#[derive(Debug, Clone, Default)]
pub struct SuggestFollowUps;

#[async_trait]
impl Tool for SuggestFollowUps {
    type Args = SuggestFollowUpsArgs;
    type Output = SuggestFollowUpsOutput;

    fn name(&self) -> &str {
        "suggest_follow_ups"
    }

    fn description(&self) -> &str {
        "After your final answer, suggest 1 to 3 short follow-up questions the user may ask next. \
         This ends your turn."
    }

    fn ends_turn(&self) -> bool {
        true
    }

    async fn call(
        &self,
        args: SuggestFollowUpsArgs,
        _ctx: &ToolContext,
    ) -> Result<SuggestFollowUpsOutput, ToolError> {
        let suggestions: Vec<String> = args
            .suggestions
            .into_iter()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect();
        if suggestions.is_empty() {
            return Err(ToolError::InvalidArguments {
                tool: self.name().to_owned(),
                message: "suggestions: must hold at least one non-blank question".into(),
            });
        }
        Ok(SuggestFollowUpsOutput { suggestions })
    }

    fn render(&self, output: &SuggestFollowUpsOutput) -> String {
        let mut out = String::from("Suggested to the user:\n");
        for suggestion in &output.suggestions {
            // The model's own words, echoed: escaped so they cannot restructure the output.
            out.push_str(&format!("- {}\n", nao_render::escape_cell(suggestion, 300)));
        }
        out
    }
}
