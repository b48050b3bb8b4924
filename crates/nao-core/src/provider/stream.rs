//! A streamed answer: text deltas and tool-call pieces as they arrive, then the whole answer.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};

use super::{Completion, ProviderError, Usage};

/// One event of a streamed answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum StreamEvent {
    /// More answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A tool call began.
    ToolCallStart {
        /// Its position among this answer's calls.
        index: usize,
        /// Its id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// More of a tool call's JSON arguments.
    ToolCallDelta {
        /// Its position among this answer's calls.
        index: usize,
        /// The new piece of the arguments text.
        arguments: String,
    },
    /// Token usage, when the provider reports it.
    Usage {
        /// The usage.
        usage: Usage,
    },
    /// The whole answer, assembled; always the last event.
    Done {
        /// The answer.
        completion: Completion,
    },
}

type Events = Pin<Box<dyn Stream<Item = Result<StreamEvent, ProviderError>> + Send>>;

/// The events of one streamed answer, ending with [`StreamEvent::Done`].
pub struct CompletionStream {
    events: Events,
}

impl CompletionStream {
    /// Wraps a stream of events.
    pub fn new(
        events: impl Stream<Item = Result<StreamEvent, ProviderError>> + Send + 'static,
    ) -> Self {
        CompletionStream {
            events: Box::pin(events),
        }
    }

    /// A stream that replays a finished answer: its text word by word, each tool call as a
    /// start and one arguments delta, the usage, then `Done`.
    pub fn from_completion(completion: Completion) -> Self {
        let mut events = Vec::new();
        // Word by word, as a model would stream it.
        for word in completion.content.split_inclusive(' ') {
            events.push(StreamEvent::TextDelta {
                text: word.to_owned(),
            });
        }
        for (index, call) in completion.tool_calls.iter().enumerate() {
            events.push(StreamEvent::ToolCallStart {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
            events.push(StreamEvent::ToolCallDelta {
                index,
                arguments: call.arguments.to_string(),
            });
        }
        events.push(StreamEvent::Usage {
            usage: completion.usage,
        });
        events.push(StreamEvent::Done { completion });
        CompletionStream::new(futures_util::stream::iter(events.into_iter().map(Ok)))
    }
}

impl fmt::Debug for CompletionStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionStream").finish_non_exhaustive()
    }
}

impl Stream for CompletionStream {
    type Item = Result<StreamEvent, ProviderError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.events.as_mut().poll_next(cx)
    }
}

/// Reads a stream to its `Done` event, passing every event to `on_event` on the way.
pub async fn collect_stream(
    mut stream: CompletionStream,
    provider: &str,
    mut on_event: impl FnMut(&StreamEvent),
) -> Result<Completion, ProviderError> {
    while let Some(event) = stream.next().await {
        let event = event?;
        on_event(&event);
        if let StreamEvent::Done { completion } = event {
            return Ok(completion);
        }
    }
    Err(ProviderError::Transient {
        provider: provider.to_owned(),
        message: "the stream ended before the answer was complete".into(),
        status: None,
        retry_after: None,
    })
}
