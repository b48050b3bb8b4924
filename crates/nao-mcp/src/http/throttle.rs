//! Logs that repeat at most once a second per kind, with a count of what was held back: a
//! fault that recurs thousands of times a second (an accept loop out of file descriptors)
//! must not fill the disk with the same line.

use std::collections::HashMap;
use std::fmt::Display;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// At most one line per kind in this window.
const WINDOW: Duration = Duration::from_secs(1);

/// Warnings limited to one line per kind per second.
#[derive(Debug, Default)]
pub(crate) struct ThrottledLog {
    windows: Mutex<HashMap<&'static str, Window>>,
}

#[derive(Debug)]
struct Window {
    started: Instant,
    held_back: u64,
}

impl ThrottledLog {
    /// Logs `message` as a warning of `kind` unless one was logged less than a second ago;
    /// the next line of this kind says how many were held back. Returns whether it logged.
    pub(crate) fn warn(&self, kind: &'static str, message: impl Display) -> bool {
        let held_back = {
            let mut windows = self.windows.lock().unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            match windows.get_mut(kind) {
                Some(window) if now.duration_since(window.started) < WINDOW => {
                    window.held_back += 1;
                    return false;
                }
                Some(window) => {
                    let held_back = window.held_back;
                    *window = Window {
                        started: now,
                        held_back: 0,
                    };
                    held_back
                }
                None => {
                    windows.insert(
                        kind,
                        Window {
                            started: now,
                            held_back: 0,
                        },
                    );
                    0
                }
            }
        };
        if held_back > 0 {
            tracing::warn!(
                kind,
                held_back,
                "{message} ({held_back} more since the last line)"
            );
        } else {
            tracing::warn!(kind, "{message}");
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn one_line_per_kind_per_second() {
        let log = ThrottledLog::default();
        assert!(log.warn("accept", "too many open files"));
        for _ in 0..1000 {
            assert!(!log.warn("accept", "too many open files"));
        }
        // Another kind has its own window.
        assert!(log.warn("body", "slow body"));
        tokio::time::advance(WINDOW).await;
        assert!(log.warn("accept", "too many open files"));
        let windows = log.windows.lock().unwrap_or_else(PoisonError::into_inner);
        assert_eq!(
            windows["accept"].held_back, 0,
            "the count was reported and reset"
        );
    }
}
