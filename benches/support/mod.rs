//! Timing helpers shared by the benches: interleaved runs and their medians.

use std::time::{Duration, Instant};

/// The median of the samples.
pub(crate) fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Times `a` and `b` interleaved, round by round, so machine noise hits both alike, and returns
/// their medians.
pub(crate) fn side_by_side(
    rounds: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (Duration, Duration) {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = Instant::now();
        a();
        ta.push(start.elapsed());
        let start = Instant::now();
        b();
        tb.push(start.elapsed());
    }
    (median(ta), median(tb))
}
