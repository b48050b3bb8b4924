//! Timing helpers shared by the benches: interleaved rounds, their medians, and ratios taken
//! round by round.
//!
//! A ratio of two medians hides how much the rounds disagree; a ratio per round, of two runs
//! that ran back to back, cancels the machine's slow drift (another job starting, the CPU
//! clocking down) and its spread shows what is noise. So every bench reports the median, min
//! and max of the per-round ratios, beside the medians of both sides.
// Every bench includes this module and uses part of it.
#![allow(dead_code)]

use std::fmt;
use std::time::{Duration, Instant};

#[cfg(feature = "duckdb")]
pub(crate) mod duckdb_file;
pub(crate) mod rss;
pub(crate) mod tool;

/// The median of the samples.
pub(crate) fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

/// Every round's time of each of several runs, timed interleaved.
#[derive(Debug, Clone)]
pub(crate) struct Rounds {
    /// Per run, its time in each round, in round order.
    samples: Vec<Vec<Duration>>,
}

impl Rounds {
    /// Rounds measured elsewhere: per run, its time in each round (all the same length).
    pub(crate) fn from_samples(samples: Vec<Vec<Duration>>) -> Self {
        assert!(
            samples.iter().all(|s| s.len() == samples[0].len()),
            "every run has one time per round"
        );
        Rounds { samples }
    }

    /// The times of run `run`, one per round.
    pub(crate) fn samples(&self, run: usize) -> &[Duration] {
        &self.samples[run]
    }

    /// The median time of run `run`.
    pub(crate) fn median(&self, run: usize) -> Duration {
        median(&self.samples[run])
    }

    /// Run `a`'s time over run `b`'s, round by round.
    pub(crate) fn ratio(&self, a: usize, b: usize) -> Ratio {
        Ratio::per_round(&self.samples[a], &self.samples[b])
    }
}

/// Times `a` and `b` interleaved, round by round, so machine noise hits both alike.
pub(crate) fn side_by_side(rounds: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> Rounds {
    interleaved(rounds, &mut [&mut a, &mut b])
}

/// Times each of `runs` once per round (wall clock), in turn.
pub(crate) fn interleaved(rounds: usize, runs: &mut [&mut dyn FnMut()]) -> Rounds {
    let mut timed: Vec<Box<dyn FnMut() -> Duration + '_>> = runs
        .iter_mut()
        .map(|run| {
            Box::new(move || {
                let start = Instant::now();
                run();
                start.elapsed()
            }) as Box<dyn FnMut() -> Duration + '_>
        })
        .collect();
    let mut refs: Vec<&mut dyn FnMut() -> Duration> =
        timed.iter_mut().map(|run| &mut **run as _).collect();
    interleaved_timed(rounds, &mut refs)
}

/// Times each of `runs` `repeats` times per round (wall clock), alternating between them, and
/// keeps each run's fastest time of the round: on a shared machine the fastest of a few
/// back-to-back tries is the one no other process interrupted, so short runs (under a few
/// milliseconds) give stable per-round ratios. For work on the calling thread alone.
pub(crate) fn interleaved_fastest(
    rounds: usize,
    repeats: usize,
    runs: &mut [&mut dyn FnMut()],
) -> Rounds {
    let mut samples = vec![Vec::with_capacity(rounds); runs.len()];
    for round in 0..rounds {
        let mut fastest = vec![Duration::MAX; runs.len()];
        for repeat in 0..repeats {
            for offset in 0..runs.len() {
                let run = (round + repeat + offset) % runs.len();
                let start = Instant::now();
                runs[run]();
                fastest[run] = fastest[run].min(start.elapsed());
            }
        }
        for (times, time) in samples.iter_mut().zip(fastest) {
            times.push(time);
        }
    }
    Rounds { samples }
}

/// Runs each of `runs` once per round, each returning its own measure of its time (on-CPU
/// time, a per-iteration mean). Round `r` starts with run `r % runs.len()`, so that no run
/// always goes first (or always follows the same one) and inherits what the other left
/// warm or cold.
pub(crate) fn interleaved_timed(
    rounds: usize,
    runs: &mut [&mut dyn FnMut() -> Duration],
) -> Rounds {
    let mut samples = vec![Vec::with_capacity(rounds); runs.len()];
    for round in 0..rounds {
        for offset in 0..runs.len() {
            let run = (round + offset) % runs.len();
            let time = runs[run]();
            samples[run].push(time);
        }
    }
    Rounds { samples }
}

/// A ratio of two runs' times taken in each round: its median, min and max over the rounds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ratio {
    pub(crate) median: f64,
    pub(crate) min: f64,
    pub(crate) max: f64,
    pub(crate) rounds: usize,
}

impl Ratio {
    /// `a[i] / b[i]` for each round `i`, summarised.
    pub(crate) fn per_round(a: &[Duration], b: &[Duration]) -> Self {
        assert_eq!(a.len(), b.len(), "one time per round on both sides");
        let mut ratios: Vec<f64> = a
            .iter()
            .zip(b)
            .map(|(a, b)| a.as_secs_f64() / b.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        Ratio {
            median: ratios[ratios.len() / 2],
            min: ratios[0],
            max: ratios[ratios.len() - 1],
            rounds: ratios.len(),
        }
    }
}

/// `1.04x`, with two significant digits below 0.1 (`0.00041x`); a precision (`{:.3}`) sets
/// the decimals.
struct Factor(f64, Option<usize>);

impl fmt::Display for Factor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let decimals = self.1.unwrap_or_else(|| {
            if self.0 > 0.0 && self.0 < 0.1 {
                // Two significant digits.
                (-self.0.log10()).floor() as usize + 2
            } else {
                2
            }
        });
        write!(f, "{:.*}x", decimals, self.0)
    }
}

/// `1.04x (min 0.97x, max 1.12x, 15 rounds)`.
impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let precision = f.precision();
        write!(
            f,
            "{} (min {}, max {}, {} rounds)",
            Factor(self.median, precision),
            Factor(self.min, precision),
            Factor(self.max, precision),
            self.rounds
        )
    }
}
