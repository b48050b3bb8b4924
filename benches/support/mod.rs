//! Timing helpers shared by the benches: interleaved runs and their medians.

use std::time::{Duration, Instant};

#[allow(dead_code)] // Only the memory benches use it.
pub(crate) mod rss;
#[allow(dead_code)] // Only the server benches use it.
pub(crate) mod tool;

/// The median of the samples.
pub(crate) fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Times `a` and `b` interleaved, round by round, so machine noise hits both alike, and returns
/// their medians.
#[allow(dead_code)] // Not every bench that includes this module compares two runs.
pub(crate) fn side_by_side(
    rounds: usize,
    mut a: impl FnMut(),
    mut b: impl FnMut(),
) -> (Duration, Duration) {
    let medians = interleaved(rounds, &mut [&mut a, &mut b]);
    (medians[0], medians[1])
}

/// Times each of `runs` once per round, in turn, and returns their medians in order.
pub(crate) fn interleaved(rounds: usize, runs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let mut samples = vec![Vec::with_capacity(rounds); runs.len()];
    for _ in 0..rounds {
        for (run, times) in runs.iter_mut().zip(&mut samples) {
            let start = Instant::now();
            run();
            times.push(start.elapsed());
        }
    }
    samples.into_iter().map(median).collect()
}
