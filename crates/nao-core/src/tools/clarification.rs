//! clarification: ask the person a question instead of guessing; ends the model's turn.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::{Tool, ToolContext, ToolError};

/// Arguments of clarification.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClarificationArgs {
    /// The question for the person, short and specific.
    #[schemars(length(min = 1, max = 500))]
    pub question: String,
    /// Two to five answers the person can pick from, when the choices are known.
    #[serde(default)]
    #[schemars(length(min = 2, max = 5))]
    pub options: Option<Vec<String>>,
}

/// What clarification returns: the question, for the host to show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ClarificationOutput {
    /// The question.
    pub question: String,
    /// The options offered (empty when the answer is free text).
    pub options: Vec<String>,
}

/// The clarification tool.
#[derive(Debug, Clone, Default)]
pub struct Clarification;

#[async_trait]
impl Tool for Clarification {
    type Args = ClarificationArgs;
    type Output = ClarificationOutput;

    fn name(&self) -> &str {
        "clarification"
    }

    fn description(&self) -> &str {
        "Ask the user one clarifying question when the request is ambiguous (which metric, which \
         period, which definition) instead of guessing; offer 2 to 5 options when the choices \
         are known. This ends your turn: the user's reply comes as the next message."
    }

    fn ends_turn(&self) -> bool {
        true
    }

    async fn call(
        &self,
        args: ClarificationArgs,
        _ctx: &ToolContext,
    ) -> Result<ClarificationOutput, ToolError> {
        let question = args.question.trim().to_owned();
        if question.is_empty() {
            return Err(ToolError::InvalidArguments {
                tool: self.name().to_owned(),
                message: "question: must not be blank".into(),
            });
        }
        let options = args
            .options
            .unwrap_or_default()
            .into_iter()
            .map(|o| o.trim().to_owned())
            .collect();
        Ok(ClarificationOutput { question, options })
    }

    fn render(&self, output: &ClarificationOutput) -> String {
        // The model's own words, echoed: escaped so they cannot restructure the output.
        let mut out = format!(
            "Asked the user: {}\n",
            nao_render::escape_cell(&output.question, 500)
        );
        for option in &output.options {
            out.push_str(&format!("- {}\n", nao_render::escape_cell(option, 200)));
        }
        out.push_str("Wait for the user's reply.\n");
        out
    }
}
