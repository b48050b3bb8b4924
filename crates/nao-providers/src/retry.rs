//! When and how long to wait before sending a failed request again.

use std::time::Duration;

/// Retries with exponential backoff and jitter for errors that may pass (rate limits, overload,
/// 5xx, dropped connections, timeouts).
///
/// The delay before retry `n` (counting from 0) is a random duration between half and all of
/// `initial_backoff * 2^n`, capped at `max_backoff`. When the provider says how long to wait
/// (`retry-after`, `retry-after-ms`), that delay is used instead, unless it is longer than
/// `max_retry_after`: then the error is returned at once, with its `retry_after`, so the host
/// can decide whether to wait that long.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// The base delay before the first retry.
    pub initial_backoff: Duration,
    /// The longest computed backoff delay.
    pub max_backoff: Duration,
    /// The longest `retry-after` the adapter waits for on its own.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// A policy that never retries.
    pub fn none() -> Self {
        RetryPolicy {
            max_retries: 0,
            ..RetryPolicy::default()
        }
    }

    /// Sets the number of retries.
    pub fn with_max_retries(mut self, max_retries: u32) -> Self {
        self.max_retries = max_retries;
        self
    }

    /// Sets the base and the largest backoff delay.
    pub fn with_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max.max(initial);
        self
    }

    /// Sets the longest `retry-after` waited for.
    pub fn with_max_retry_after(mut self, max: Duration) -> Self {
        self.max_retry_after = max;
        self
    }

    /// The delay before retry number `retry` (from 0), or `None` when the request must not be
    /// sent again: retries used up, or the provider asked for a longer wait than allowed.
    pub fn delay(&self, retry: u32, retry_after: Option<Duration>) -> Option<Duration> {
        if retry >= self.max_retries {
            return None;
        }
        if let Some(wait) = retry_after {
            return (wait <= self.max_retry_after).then_some(wait);
        }
        let factor = 1u32.checked_shl(retry.min(20)).unwrap_or(u32::MAX);
        let full = self
            .initial_backoff
            .saturating_mul(factor)
            .min(self.max_backoff);
        // Jitter in [full/2, full] so that many clients do not retry in lockstep.
        let half = full / 2;
        let spread = u64::try_from((full - half).as_nanos()).unwrap_or(u64::MAX);
        let jitter = if spread == 0 {
            0
        } else {
            random_u64() % (spread + 1)
        };
        Some(half + Duration::from_nanos(jitter))
    }
}

fn random_u64() -> u64 {
    getrandom::u64().unwrap_or_else(|_| {
        // No OS randomness: the clock's low bits still spread retries apart.
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| u64::from(d.subsec_nanos()))
            .unwrap_or(0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_is_capped() {
        let policy = RetryPolicy::default()
            .with_max_retries(10)
            .with_backoff(Duration::from_millis(100), Duration::from_secs(1));
        for retry in 0..10 {
            let full = (Duration::from_millis(100) * 2u32.pow(retry)).min(Duration::from_secs(1));
            let delay = policy.delay(retry, None).expect("a retry is left");
            assert!(delay >= full / 2 && delay <= full, "{retry}: {delay:?}");
        }
        assert_eq!(policy.delay(10, None), None);
    }

    #[test]
    fn retry_after_is_honoured_up_to_the_cap() {
        let policy = RetryPolicy::default().with_max_retry_after(Duration::from_secs(5));
        let wait = Some(Duration::from_secs(3));
        assert_eq!(policy.delay(0, wait), Some(Duration::from_secs(3)));
        assert_eq!(policy.delay(0, Some(Duration::from_secs(6))), None);
        assert_eq!(RetryPolicy::none().delay(0, wait), None);
    }
}
