//! Limits of one agent run and what goes into its system prompt.

use nao_core::Usage;
use serde::{Deserialize, Serialize};

/// Limits of a run (steps, SQL retries, tokens) and the system prompt's schema budget.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentSettings {
    /// Model calls that may run tools before the agent asks for a final answer (default 10).
    pub max_steps: usize,
    /// Consecutive failed execute_sql calls before the agent stops retrying and asks the model
    /// to explain the difficulty (default 3).
    pub max_sql_failures: usize,
    /// Input plus output tokens one run may use; when spent, one last call without tools asks
    /// for a best-effort answer (default none).
    pub token_budget: Option<u64>,
    /// Tokens (≈ characters / 4) the schema part of the system prompt may take (default 2,000).
    pub schema_token_budget: usize,
    /// Distinct sample values shown per column in the prompt (default 3; 0 turns sampling off).
    pub sample_values: usize,
    /// The most tables described in the catalogue the prompt is built from (default 1,000).
    pub max_catalog_tables: usize,
    /// Text from the host appended to the system prompt (business rules, definitions).
    pub system_prompt_extra: Option<String>,
    /// The most tokens one model call may generate (default none: the provider's default).
    pub max_output_tokens: Option<u32>,
    /// Sampling temperature (default none: the provider's default).
    pub temperature: Option<f32>,
    /// Times a retryable provider error (rate limit, overload) is retried (default 2).
    pub provider_retries: u32,
    /// Prices to estimate the cost of each call (default none: no cost reported).
    pub pricing: Option<ModelPricing>,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings {
            max_steps: 10,
            max_sql_failures: 3,
            token_budget: None,
            schema_token_budget: 2_000,
            sample_values: 3,
            max_catalog_tables: 1_000,
            system_prompt_extra: None,
            max_output_tokens: None,
            temperature: None,
            provider_retries: 2,
            pricing: None,
        }
    }
}

impl AgentSettings {
    /// Sets the most tool-calling steps.
    #[must_use]
    pub fn with_max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps;
        self
    }

    /// Sets the most consecutive execute_sql failures.
    #[must_use]
    pub fn with_max_sql_failures(mut self, failures: usize) -> Self {
        self.max_sql_failures = failures;
        self
    }

    /// Sets the token budget of a run.
    #[must_use]
    pub fn with_token_budget(mut self, tokens: u64) -> Self {
        self.token_budget = Some(tokens);
        self
    }

    /// Sets the token budget of the schema part of the prompt.
    #[must_use]
    pub fn with_schema_token_budget(mut self, tokens: usize) -> Self {
        self.schema_token_budget = tokens;
        self
    }

    /// Sets how many sample values to show per column.
    #[must_use]
    pub fn with_sample_values(mut self, values: usize) -> Self {
        self.sample_values = values;
        self
    }

    /// Appends the host's text to the system prompt.
    #[must_use]
    pub fn with_system_prompt_extra(mut self, text: impl Into<String>) -> Self {
        self.system_prompt_extra = Some(text.into());
        self
    }

    /// Sets the most tokens one call may generate.
    #[must_use]
    pub fn with_max_output_tokens(mut self, tokens: u32) -> Self {
        self.max_output_tokens = Some(tokens);
        self
    }

    /// Sets the sampling temperature.
    #[must_use]
    pub fn with_temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Sets how often a retryable provider error is retried.
    #[must_use]
    pub fn with_provider_retries(mut self, retries: u32) -> Self {
        self.provider_retries = retries;
        self
    }

    /// Sets the prices used to estimate costs.
    #[must_use]
    pub fn with_pricing(mut self, pricing: ModelPricing) -> Self {
        self.pricing = Some(pricing);
        self
    }
}

/// A model's prices in US dollars per million tokens, to estimate what a run costs.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelPricing {
    /// Per million input tokens not served from the cache.
    pub input_per_million: f64,
    /// Per million cached input tokens.
    pub cached_input_per_million: f64,
    /// Per million output tokens.
    pub output_per_million: f64,
}

impl ModelPricing {
    /// Prices for input, cached input and output tokens, per million.
    pub fn new(
        input_per_million: f64,
        cached_input_per_million: f64,
        output_per_million: f64,
    ) -> Self {
        ModelPricing {
            input_per_million,
            cached_input_per_million,
            output_per_million,
        }
    }

    /// The estimated cost of `usage`, in US dollars.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_input_tokens.min(usage.input_tokens);
        let fresh = usage.input_tokens - cached;
        (fresh as f64 * self.input_per_million
            + cached as f64 * self.cached_input_per_million
            + usage.output_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}
