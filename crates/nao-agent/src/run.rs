//! The loop: call the model, run its tool calls, feed the results back, until it answers or a
//! limit asks it for a best-effort answer.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_core::Stream;
use futures_util::StreamExt;
use nao_core::provider::collect_stream;
use nao_core::telemetry;
use nao_core::tools::{ClarificationOutput, SuggestFollowUpsOutput};
use nao_core::{
    Completion, CompletionRequest, Message, RiskLevel, StreamEvent, ToolCall, ToolChoice,
    ToolContext, ToolResult, Usage,
};
use tokio_util::sync::{CancellationToken, DropGuard};
use tracing::{Instrument, Span};

use crate::builder::AgentInner;
use crate::{Agent, AgentEvent, AgentOutcome, Conversation, StopReason};

/// The events of one run, as a [`Stream`]. The run makes progress only while the stream is
/// polled; dropping it stops the run (no further model or tool calls) and cancels any running
/// statement through the tools' cancellation token.
#[must_use = "a run does nothing unless its events are polled"]
pub struct AgentRun<'a> {
    future: Option<Pin<Box<dyn Future<Output = ()> + Send + 'a>>>,
    queue: Emitter,
    _cancel_on_drop: DropGuard,
}

impl std::fmt::Debug for AgentRun<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentRun")
            .field("finished", &self.future.is_none())
            .finish_non_exhaustive()
    }
}

impl AgentRun<'_> {
    /// The next event, or `None` after [`AgentEvent::Finished`] (the same as
    /// `StreamExt::next`, without importing a stream crate).
    pub async fn next_event(&mut self) -> Option<AgentEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }
}

impl Stream for AgentRun<'_> {
    type Item = AgentEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<AgentEvent>> {
        let this = self.get_mut();
        if let Some(event) = this.queue.pop() {
            return Poll::Ready(Some(event));
        }
        if let Some(future) = this.future.as_mut()
            && future.as_mut().poll(cx).is_ready()
        {
            this.future = None;
        }
        // Only the run's future emits, so after polling it the queue holds all there is.
        match this.queue.pop() {
            Some(event) => Poll::Ready(Some(event)),
            None if this.future.is_none() => Poll::Ready(None),
            None => Poll::Pending,
        }
    }
}

/// Returns `Pending` once (waking itself at once), so the stream hands out the events emitted
/// so far before the run goes on: a consumer that drops the stream after an event is sure
/// nothing further happened.
async fn pause() {
    let mut yielded = false;
    std::future::poll_fn(|cx| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    })
    .await;
}

/// Where the run's future puts events for the stream to hand out.
#[derive(Clone, Default)]
struct Emitter(Arc<Mutex<VecDeque<AgentEvent>>>);

impl Emitter {
    fn emit(&self, event: AgentEvent) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push_back(event);
    }

    fn pop(&self) -> Option<AgentEvent> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop_front()
    }
}

impl Agent {
    /// Answers `question` in `conversation`, streaming what happens as [`AgentEvent`]s; the
    /// last event is always [`AgentEvent::Finished`].
    ///
    /// The loop calls the model, runs the tool calls of each turn concurrently (results go back
    /// in call order; high-risk tools first emit [`AgentEvent::ApprovalNeeded`] and wait for
    /// the registry's approver), and feeds the results back, errors included, so the model can
    /// fix its SQL. It stops on a text answer, a clarification or follow-up suggestions. At
    /// [`max_steps`](crate::AgentSettings::max_steps), the
    /// [`token_budget`](crate::AgentSettings::token_budget) or
    /// [`max_sql_failures`](crate::AgentSettings::max_sql_failures) consecutive failed
    /// queries, it makes one last call without tools asking for a best-effort answer.
    ///
    /// The conversation is updated as the run goes (messages, query ids, usage), so after a
    /// dropped run it holds what happened until then.
    pub fn run<'a>(
        &self,
        conversation: &'a mut Conversation,
        question: impl Into<String>,
    ) -> AgentRun<'a> {
        let cancel = CancellationToken::new();
        let queue = Emitter::default();
        let provider = &self.inner.provider;
        let span = telemetry::invoke_agent_span(provider.name(), provider.model());
        let run = Run {
            agent: self.inner.clone(),
            ctx: self.inner.ctx.clone().with_cancel(cancel.clone()),
            emit: queue.clone(),
            usage: Usage::default(),
            span: span.clone(),
            error_type: None,
        };
        let question = question.into();
        AgentRun {
            future: Some(Box::pin(run.drive(conversation, question).instrument(span))),
            queue,
            _cancel_on_drop: cancel.drop_guard(),
        }
    }

    /// Runs [`Agent::run`] to the end and gathers its events into an [`AgentOutcome`].
    pub async fn ask(
        &self,
        conversation: &mut Conversation,
        question: impl Into<String>,
    ) -> AgentOutcome {
        let events: Vec<AgentEvent> = self.run(conversation, question).collect().await;
        AgentOutcome::from_events(events)
    }
}

/// Why the agent asks for a final answer without tools.
enum Limit {
    Steps(usize),
    Budget { used: u64, budget: u64 },
    SqlFailures(usize),
}

struct Run {
    agent: Arc<AgentInner>,
    ctx: ToolContext,
    emit: Emitter,
    usage: Usage,
    /// The run's `invoke_agent` span, for what is known only at the end.
    span: Span,
    /// The code of the model failure that ended the run, if one did.
    error_type: Option<&'static str>,
}

impl Run {
    async fn drive(mut self, conversation: &mut Conversation, question: String) {
        let stop = self.turns(conversation, question).await;
        telemetry::record_agent_end(&self.span, self.usage, stop.code(), self.error_type);
        self.emit.emit(AgentEvent::Finished {
            stop,
            usage: self.usage,
        });
    }

    async fn turns(&mut self, conversation: &mut Conversation, question: String) -> StopReason {
        let settings = self.agent.settings.clone();
        conversation.runs += 1;
        if conversation.system_prompt.is_none() {
            let prompt = self.agent.system_prompt(&question, &self.ctx).await;
            conversation.system_prompt = Some(prompt);
        }
        conversation.messages.push(Message::user(question));
        let mut steps = 0;
        let mut sql_failures = 0;
        loop {
            let used = self.usage.input_tokens + self.usage.output_tokens;
            let limit =
                if settings.max_sql_failures > 0 && sql_failures >= settings.max_sql_failures {
                    Some(Limit::SqlFailures(sql_failures))
                } else if let Some(budget) = settings.token_budget.filter(|b| used >= *b) {
                    Some(Limit::Budget { used, budget })
                } else if steps >= settings.max_steps {
                    Some(Limit::Steps(steps))
                } else {
                    None
                };
            if let Some(limit) = limit {
                return self.best_effort(conversation, limit).await;
            }
            let completion = match self.call_model(conversation, ToolChoice::Auto).await {
                Ok(completion) => completion,
                Err(stop) => return stop,
            };
            steps += 1;
            conversation.messages.push(completion.to_message());
            if completion.tool_calls.is_empty() {
                self.answer(&completion.content);
                return StopReason::Answer;
            }
            let results = self.run_tools(&completion.tool_calls).await;
            let mut ended = None;
            for result in results {
                if result.tool == "execute_sql" {
                    if result.is_error {
                        sql_failures += 1;
                    } else {
                        sql_failures = 0;
                    }
                }
                if let Some(id) = result
                    .structured
                    .as_ref()
                    .and_then(|s| s.get("query_id"))
                    .and_then(|id| id.as_str())
                    .filter(|_| result.tool == "execute_sql")
                {
                    conversation.query_ids.push(id.to_owned());
                }
                if result.ends_turn && !result.is_error && ended.is_none() {
                    ended = Some(result.clone());
                }
                conversation.messages.push(Message::Tool {
                    call_id: result.call_id,
                    name: result.tool,
                    content: result.content,
                    is_error: result.is_error,
                });
            }
            if let Some(result) = ended {
                self.answer(&completion.content);
                return self.end_turn(&result);
            }
        }
    }

    /// The model's text as the answer, when it wrote one.
    fn answer(&self, text: &str) {
        let text = text.trim();
        if !text.is_empty() {
            self.emit.emit(AgentEvent::Answer {
                text: text.to_owned(),
            });
        }
    }

    /// Emits what a turn-ending tool asked for.
    fn end_turn(&self, result: &ToolResult) -> StopReason {
        let structured = result.structured.clone().unwrap_or_default();
        if result.tool == "clarification"
            && let Ok(output) = serde_json::from_value::<ClarificationOutput>(structured.clone())
        {
            self.emit.emit(AgentEvent::Clarification {
                question: output.question,
                options: output.options,
            });
            return StopReason::Clarification;
        }
        if result.tool == "suggest_follow_ups"
            && let Ok(output) = serde_json::from_value::<SuggestFollowUpsOutput>(structured)
        {
            self.emit.emit(AgentEvent::FollowUps {
                suggestions: output.suggestions,
            });
            return StopReason::FollowUps;
        }
        // A host's own turn-ending tool: its content is what the person sees.
        self.emit.emit(AgentEvent::Answer {
            text: result.content.clone(),
        });
        StopReason::Answer
    }

    /// One last call without tools, asking for the best answer the results allow.
    async fn best_effort(&mut self, conversation: &mut Conversation, limit: Limit) -> StopReason {
        let (event, stop, instruction) = match limit {
            Limit::Steps(steps) => (
                AgentEvent::StepLimit { steps },
                StopReason::StepLimit,
                format!(
                    "You have used all {steps} tool steps allowed for this question. Do not call \
                     tools. Answer now as well as the results above allow, and say what you \
                     could not check."
                ),
            ),
            Limit::Budget { used, budget } => (
                AgentEvent::BudgetExhausted { used, budget },
                StopReason::BudgetExhausted,
                "The token budget for this question is spent. Do not call tools. Give your best \
                 answer now from the results above, and say what remains uncertain."
                    .to_owned(),
            ),
            Limit::SqlFailures(failures) => (
                AgentEvent::SqlRetriesExhausted { failures },
                StopReason::SqlRetriesExhausted,
                format!(
                    "Your last {failures} SQL queries failed. Do not call tools. Explain to the \
                     user what you tried, what went wrong, and what you can say from the results \
                     you have."
                ),
            ),
        };
        self.emit.emit(event);
        conversation.messages.push(Message::user(instruction));
        match self.call_model(conversation, ToolChoice::None).await {
            Ok(completion) => {
                // Tool calls are ignored here: there is no step left to run them.
                conversation
                    .messages
                    .push(Message::assistant(completion.content.clone()));
                self.answer(&completion.content);
                stop
            }
            Err(error_stop) => error_stop,
        }
    }

    /// Sends the conversation to the model, streaming its text as events and retrying
    /// retryable failures. A failure that stays is reported and ends the run.
    async fn call_model(
        &mut self,
        conversation: &mut Conversation,
        tool_choice: ToolChoice,
    ) -> Result<Completion, StopReason> {
        pause().await;
        let settings = &self.agent.settings;
        let mut request =
            CompletionRequest::new(conversation.request_messages(), &self.agent.specs);
        request.tool_choice = tool_choice;
        request.max_output_tokens = settings.max_output_tokens;
        request.temperature = settings.temperature;
        let provider = &self.agent.provider;
        let mut attempt = 0;
        let completion = loop {
            let emit = self.emit.clone();
            // One `chat` span per attempt: each is a call of its own to the model.
            let span = telemetry::chat_span(provider.name(), provider.model(), &request);
            let outcome = async {
                let stream = provider.stream(&request).await?;
                collect_stream(stream, provider.name(), |event| {
                    if let StreamEvent::TextDelta { text } = event {
                        emit.emit(AgentEvent::TextDelta { text: text.clone() });
                    }
                })
                .await
            }
            .instrument(span.clone())
            .await;
            match &outcome {
                Ok(completion) => telemetry::record_completion(&span, completion),
                Err(error) => {
                    telemetry::record_error(&span, telemetry::provider_error_type(error));
                }
            }
            match outcome {
                Ok(completion) => break completion,
                Err(error) if error.is_retryable() && attempt < settings.provider_retries => {
                    attempt += 1;
                    let wait = error
                        .retry_after()
                        .unwrap_or(Duration::from_millis(500 * u64::from(attempt)));
                    tracing::warn!(%error, attempt, "retrying the model call");
                    tokio::time::sleep(wait).await;
                }
                Err(error) => {
                    self.error_type = Some(telemetry::provider_error_type(&error));
                    self.emit.emit(AgentEvent::Error {
                        message: error.to_string(),
                    });
                    return Err(StopReason::ProviderError);
                }
            }
        };
        self.usage.add(completion.usage);
        conversation.usage.add(completion.usage);
        self.emit.emit(AgentEvent::Usage {
            turn: completion.usage,
            total: self.usage,
            cost_usd: settings.pricing.map(|p| p.cost(&self.usage)),
        });
        Ok(completion)
    }

    /// Runs one turn's calls concurrently; results come back in call order.
    async fn run_tools(&self, calls: &[ToolCall]) -> Vec<ToolResult> {
        for call in calls {
            self.emit.emit(AgentEvent::ToolStarted {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        pause().await;
        let runs = calls.iter().map(|call| async move {
            let high_risk = self
                .agent
                .specs
                .iter()
                .any(|s| s.name == call.name && s.risk == RiskLevel::High);
            if high_risk {
                self.emit.emit(AgentEvent::ApprovalNeeded {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                });
            }
            let started = Instant::now();
            let result = self.agent.registry.call(call, &self.ctx).await;
            self.emit.emit(AgentEvent::ToolFinished {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                latency_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                row_count: result.row_count,
                is_error: result.is_error,
                error_kind: result.error_kind.clone(),
            });
            pause().await;
            result
        });
        futures_util::future::join_all(runs).await
    }
}
