//! Drives a streaming response: reads chunks under an idle timeout, decodes server-sent events,
//! and hands them to the adapter's parser.

use std::collections::VecDeque;
use std::time::Duration;

use nao_core::{CompletionStream, ProviderError, StreamEvent};

use crate::classify;
use crate::sse::{SseDecoder, SseEvent};

/// Turns one provider's events into [`StreamEvent`]s.
pub(crate) trait EventParser: Send + 'static {
    /// Handles one event; returns `true` when the answer is complete (its `Done` queued).
    fn on_event(
        &mut self,
        event: SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<bool, ProviderError>;

    /// The body ended; queue `Done` if the answer is complete enough, else fail.
    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ProviderError>;
}

/// Limits of one stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StreamLimits {
    pub(crate) idle_timeout: Duration,
    pub(crate) max_bytes: usize,
    pub(crate) max_line_bytes: usize,
}

struct State<P> {
    provider: &'static str,
    response: Option<reqwest::Response>,
    decoder: SseDecoder,
    parser: P,
    pending: VecDeque<StreamEvent>,
    failed: Option<ProviderError>,
    limits: StreamLimits,
    received: usize,
}

/// The events of `response`, decoded by `parser`.
pub(crate) fn event_stream<P: EventParser>(
    provider: &'static str,
    response: reqwest::Response,
    parser: P,
    limits: StreamLimits,
) -> CompletionStream {
    let state = State {
        provider,
        response: Some(response),
        decoder: SseDecoder::new(limits.max_line_bytes),
        parser,
        pending: VecDeque::new(),
        failed: None,
        limits,
        received: 0,
    };
    CompletionStream::new(futures_util::stream::unfold(
        state,
        |mut state| async move {
            loop {
                if let Some(event) = state.pending.pop_front() {
                    return Some((Ok(event), state));
                }
                if let Some(error) = state.failed.take() {
                    return Some((Err(error), state));
                }
                state.response.as_ref()?;
                if let Err(error) = state.advance().await {
                    state.response = None;
                    state.failed = Some(error);
                }
            }
        },
    ))
}

impl<P: EventParser> State<P> {
    /// Reads one chunk and queues the events it completes.
    async fn advance(&mut self) -> Result<(), ProviderError> {
        let Some(response) = self.response.as_mut() else {
            return Ok(());
        };
        let idle = self.limits.idle_timeout;
        let chunk = match tokio::time::timeout(idle, response.chunk()).await {
            Err(_) => {
                return Err(classify::timeout(
                    self.provider,
                    "waiting for the next streamed chunk",
                    idle,
                ));
            }
            Ok(Err(error)) => return Err(classify::from_transport(self.provider, &error)),
            Ok(Ok(chunk)) => chunk,
        };
        let mut events = Vec::new();
        let too_long = |e: crate::sse::SseTooLong| {
            classify::malformed(
                self.provider,
                format!("a streamed event is longer than {} bytes", e.limit),
            )
        };
        let Some(chunk) = chunk else {
            self.decoder.finish(&mut events).map_err(too_long)?;
            for event in events {
                if self.parser.on_event(event, &mut self.pending)? {
                    self.response = None;
                    return Ok(());
                }
            }
            self.response = None;
            return self.parser.on_end(&mut self.pending);
        };
        self.received += chunk.len();
        if self.received > self.limits.max_bytes {
            return Err(classify::malformed(
                self.provider,
                format!("the stream is longer than {} bytes", self.limits.max_bytes),
            ));
        }
        self.decoder.push(&chunk, &mut events).map_err(too_long)?;
        for event in events {
            if self.parser.on_event(event, &mut self.pending)? {
                // The answer is complete: stop reading (and drop the connection).
                self.response = None;
                return Ok(());
            }
        }
        Ok(())
    }
}

/// For the parsers' tests: recorded bodies cut short and damaged must give errors, never
/// panics.
#[cfg(test)]
pub(crate) mod robustness {
    use super::*;

    /// Every prefix of `body` through `parse_body`, and every 7th byte of `stream` flipped (and
    /// the stream cut there) through a fresh parser from `parser`.
    pub(crate) fn damaged_inputs_never_panic<P: EventParser>(
        parse_body: impl Fn(&[u8]),
        parser: impl Fn() -> P,
        body: &[u8],
        stream: &[u8],
    ) {
        for end in 0..body.len() {
            parse_body(&body[..end]);
        }
        for (step, flip) in (0..stream.len())
            .step_by(7)
            .zip([b'"', b'{', b'\n', 0xff].iter().cycle())
        {
            let mut bytes = stream.to_vec();
            bytes[step] = *flip;
            feed(parser(), &bytes);
            feed(parser(), &stream[..step]);
        }
    }

    /// Decodes `bytes` in 13-byte chunks and hands the events to `parser` until it is done or
    /// fails.
    fn feed<P: EventParser>(mut parser: P, bytes: &[u8]) {
        let mut decoder = SseDecoder::new(1 << 20);
        let mut events = Vec::new();
        let mut out = VecDeque::new();
        for chunk in bytes.chunks(13) {
            let _ = decoder.push(chunk, &mut events);
        }
        let _ = decoder.finish(&mut events);
        for event in events {
            match parser.on_event(event, &mut out) {
                Ok(true) | Err(_) => return,
                Ok(false) => {}
            }
        }
        let _ = parser.on_end(&mut out);
    }
}
