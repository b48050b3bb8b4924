//! Round ("nice") axis ranges: ticks at 1, 2 or 5 times a power of ten, so that every label is
//! exact (`2M`, not `1.9M` for 1,939,870) and a reader can place a mark between two ticks.

/// An axis from `min` to `max` in `splits` equal steps of a round size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct NiceAxis {
    /// The first tick.
    pub(crate) min: f64,
    /// The last tick.
    pub(crate) max: f64,
    /// How many steps between them.
    pub(crate) splits: usize,
}

/// About how many steps an axis gets.
const TARGET_SPLITS: f64 = 5.0;

impl NiceAxis {
    /// The round axis covering every finite value (and zero, when `from_zero`: bars and areas
    /// grow from it), or `None` without a finite value.
    pub(crate) fn covering(values: impl IntoIterator<Item = f64>, from_zero: bool) -> Option<Self> {
        let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
        for value in values.into_iter().filter(|v| v.is_finite()) {
            low = low.min(value);
            high = high.max(value);
        }
        if low > high {
            return None;
        }
        if from_zero {
            low = low.min(0.0);
            high = high.max(0.0);
        }
        if high - low <= f64::EPSILON * high.abs().max(1.0) {
            // One value: a round step of its size on either side (from zero, where the one
            // value can only be zero: one step above it).
            let pad = round_step(high.abs().max(1.0), false);
            if from_zero {
                high = pad;
            } else {
                low -= pad;
                high += pad;
            }
        }
        let step = round_step(round_step(high - low, false) / TARGET_SPLITS, true);
        let min = (low / step).floor() * step;
        let max = (high / step).ceil() * step;
        // At most a few dozen steps: the step is at least a fifth of the range's round size.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let splits = ((max - min) / step).round().max(1.0) as usize;
        Some(NiceAxis {
            min: clean(min, step),
            max: clean(max, step),
            splits,
        })
    }

    /// The round axis covering `values` in exactly `splits` steps, for a chart whose grid must
    /// line up with another axis's ticks: the smallest round step with which `splits` steps
    /// from a multiple of it reach every value. Where no such step exists (one step across
    /// zero) it is [`covering`](Self::covering)'s axis.
    pub(crate) fn covering_in(
        values: impl IntoIterator<Item = f64>,
        from_zero: bool,
        splits: usize,
    ) -> Option<Self> {
        let natural = NiceAxis::covering(values, from_zero)?;
        let splits = splits.max(1);
        #[allow(clippy::cast_precision_loss)]
        let count = splits as f64;
        let mut step = round_step((natural.max - natural.min) / count, false);
        for _ in 0..8 {
            let min = (natural.min / step).floor() * step;
            if min + step * count >= natural.max {
                return Some(NiceAxis {
                    min: clean(min, step),
                    max: clean(min + step * count, step),
                    splits,
                });
            }
            // The floor moved down by almost a step: the next round step reaches.
            step = round_step(step * 1.5, false);
        }
        Some(natural)
    }

    /// The ticks, first to last.
    #[cfg(test)]
    fn ticks(&self) -> Vec<f64> {
        #[allow(clippy::cast_precision_loss)]
        let step = (self.max - self.min) / self.splits as f64;
        #[allow(clippy::cast_precision_loss)]
        (0..=self.splits)
            .map(|i| clean(self.min + step * i as f64, step))
            .collect()
    }
}

/// 1, 2 or 5 times a power of ten near `x` (rounded to the nearest when `round`, else the
/// smallest such at least `x`): Heckbert's "nice numbers" (Graphics Gems, 1990).
fn round_step(x: f64, round: bool) -> f64 {
    let exponent = x.log10().floor();
    let power = 10f64.powf(exponent);
    let fraction = x / power;
    let nice = if round {
        match fraction {
            f if f < 1.5 => 1.0,
            f if f < 3.0 => 2.0,
            f if f < 7.0 => 5.0,
            _ => 10.0,
        }
    } else {
        match fraction {
            f if f <= 1.0 => 1.0,
            f if f <= 2.0 => 2.0,
            f if f <= 5.0 => 5.0,
            _ => 10.0,
        }
    };
    nice * power
}

/// `x`, a multiple of `step`, without the floating-point residue of the arithmetic
/// (0.30000000000000004 → 0.3): rounded one decimal finer than the step; never negative zero.
fn clean(x: f64, step: f64) -> f64 {
    #[allow(clippy::cast_possible_truncation)]
    let decimals = (1.0 - step.log10().floor()).clamp(0.0, 300.0) as i32;
    let scale = 10f64.powi(decimals);
    let cleaned = (x * scale).round() / scale;
    if cleaned.is_finite() && cleaned != 0.0 {
        cleaned
    } else if cleaned == 0.0 {
        0.0
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axis(values: &[f64], from_zero: bool) -> NiceAxis {
        NiceAxis::covering(values.iter().copied(), from_zero).unwrap()
    }

    #[test]
    fn revenue_gets_round_millions() {
        let a = axis(&[1_939_870.0, 9_734_550.0, 3_290_508.5], true);
        assert_eq!(a.ticks(), vec![0.0, 2e6, 4e6, 6e6, 8e6, 10e6]);
    }

    #[test]
    fn every_value_is_inside_and_ticks_are_round() {
        let cases: &[&[f64]] = &[
            &[3.2, 592.7],
            &[-8.5, 5.5],
            &[0.001, 0.0047],
            &[-1e9, -2.5e8],
            &[42.0],
            &[0.0],
            &[-3.0],
            &[1e15, 1e15 + 4.0],
        ];
        for values in cases {
            for from_zero in [false, true] {
                let a = axis(values, from_zero);
                let ticks = a.ticks();
                for v in *values {
                    assert!(a.min <= *v && *v <= a.max, "{v} outside {a:?}");
                }
                if from_zero {
                    assert!(a.min <= 0.0 && 0.0 <= a.max, "zero outside {a:?}");
                }
                assert!((1..=12).contains(&a.splits), "{a:?} for {values:?}");
                let step = ticks[1] - ticks[0];
                let leading = step / 10f64.powf(step.log10().floor());
                assert!(
                    [1.0, 2.0, 5.0, 10.0]
                        .iter()
                        .any(|n| (leading - n).abs() < 1e-6),
                    "step {step} of {a:?}"
                );
            }
        }
    }

    #[test]
    fn a_given_number_of_steps_still_covers_with_round_ones() {
        for splits in 2..=8 {
            for values in [&[3.2, 592.7][..], &[-8.5, 5.5], &[0.001, 0.0047], &[42.0]] {
                let a = NiceAxis::covering_in(values.iter().copied(), false, splits).unwrap();
                assert_eq!(a.splits, splits, "{a:?}");
                assert!(values.iter().all(|v| a.min <= *v && *v <= a.max), "{a:?}");
            }
        }
    }

    #[test]
    fn no_finite_value_is_no_axis() {
        assert_eq!(NiceAxis::covering([f64::NAN, f64::INFINITY], true), None);
        assert_eq!(NiceAxis::covering([], false), None);
    }
}
