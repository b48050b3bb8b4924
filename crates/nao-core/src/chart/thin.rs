//! Fewer points for a line or an area than the result has rows, keeping its shape.
//!
//! An 800-pixel plot cannot show more than a few hundred x positions apart: past
//! [`MAX_PLOTTED_POINTS`] rows a line or area chart plots, from each of equal runs of rows,
//! the rows holding the lowest and the highest value of each series (and the first and last
//! row), so every peak and trough stays where it was. The rows kept keep all their series,
//! so stacked areas still stack row by row. Hand-written rather than LTTB from a crate: LTTB
//! picks one row per run for one series, and the series of a chart share their rows.
//! Bars, pies and scatters are never thinned (a bar or a point left out would be a value
//! missing); the summary says when rows were left out and totals every row.

use std::borrow::Cow;
use std::collections::BTreeSet;

use super::{ChartData, ChartType};

/// The most rows a line or area chart plots; above it, rows are thinned.
pub const MAX_PLOTTED_POINTS: usize = 1_000;

impl ChartData {
    /// The data a `kind` chart plots: these rows, or (for a line or area of more than
    /// [`MAX_PLOTTED_POINTS`] rows) the first and last row and, from each run of rows, those
    /// with each series' lowest and highest value, in row order. Borrowed when nothing is
    /// thinned.
    pub fn plotted(&self, kind: ChartType) -> Cow<'_, ChartData> {
        let thinned = matches!(
            kind,
            ChartType::Line | ChartType::Area | ChartType::StackedArea
        ) && self.len() > MAX_PLOTTED_POINTS;
        if !thinned {
            return Cow::Borrowed(self);
        }
        let keep = self.extreme_rows();
        Cow::Owned(ChartData {
            x: keep.iter().map(|&row| self.x[row].clone()).collect(),
            series: self
                .series
                .iter()
                .map(|s| {
                    let mut series = s.clone();
                    series.values = keep.iter().map(|&row| s.values[row]).collect();
                    series
                })
                .collect(),
        })
    }

    /// The rows [`plotted`](Self::plotted) keeps, at most [`MAX_PLOTTED_POINTS`].
    fn extreme_rows(&self) -> Vec<usize> {
        let rows = self.len();
        let series = self.series.len().max(1);
        // Each run gives at most two rows per series; the first and last row come on top.
        let runs = ((MAX_PLOTTED_POINTS - 2) / (2 * series)).max(1);
        let mut keep = BTreeSet::from([0, rows - 1]);
        for run in 0..runs {
            let (start, end) = (run * rows / runs, (run + 1) * rows / runs);
            for s in &self.series {
                let values = s.values[start..end]
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (start + i, v)));
                let lowest = values.clone().min_by(|a, b| a.1.total_cmp(&b.1));
                let highest = values.max_by(|a, b| a.1.total_cmp(&b.1));
                keep.extend(lowest.map(|(row, _)| row));
                keep.extend(highest.map(|(row, _)| row));
            }
        }
        keep.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SeriesData, XValue};
    use super::*;

    fn data(rows: usize, series: usize) -> ChartData {
        ChartData {
            x: (0..rows).map(|i| XValue::Number(i as f64)).collect(),
            series: (0..series)
                .map(|s| SeriesData {
                    data_key: format!("s{s}"),
                    label: format!("s{s}"),
                    color: String::new(),
                    // A wave with a spike at row 1234 + s and a NULL every 7th row.
                    values: (0..rows)
                        .map(|i| {
                            let spike = if i == 1234 + s { 1e6 } else { 0.0 };
                            (i % 7 != 3).then(|| (i as f64 / 50.0).sin() * 100.0 + spike)
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    #[test]
    fn long_lines_keep_their_extremes_and_their_ends() {
        for series in [1, 3, 12] {
            let full = data(5_000, series);
            let plotted = full.plotted(ChartType::Line);
            assert!(plotted.len() <= MAX_PLOTTED_POINTS, "{}", plotted.len());
            // Every run gives a row at least (series moving together share theirs).
            let runs = (MAX_PLOTTED_POINTS - 2) / (2 * series);
            assert!(
                plotted.len() >= runs,
                "{} rows from {runs} runs",
                plotted.len()
            );
            assert_eq!(plotted.x.first(), full.x.first());
            assert_eq!(plotted.x.last(), full.x.last());
            for (kept, all) in plotted.series.iter().zip(&full.series) {
                let max = |v: &[Option<f64>]| v.iter().flatten().copied().fold(f64::MIN, f64::max);
                let min = |v: &[Option<f64>]| v.iter().flatten().copied().fold(f64::MAX, f64::min);
                assert_eq!(max(&kept.values), max(&all.values), "the spike stays");
                assert_eq!(min(&kept.values), min(&all.values));
            }
            // Rows stay in order and keep each series' own value for their x.
            let xs: Vec<f64> = plotted
                .x
                .iter()
                .map(|x| match x {
                    XValue::Number(n) => *n,
                    other => panic!("{other:?}"),
                })
                .collect();
            assert!(xs.windows(2).all(|w| w[0] < w[1]));
            for (i, x) in xs.iter().enumerate() {
                for (kept, all) in plotted.series.iter().zip(&full.series) {
                    assert_eq!(kept.values[i], all.values[*x as usize]);
                }
            }
        }
    }

    #[test]
    fn short_lines_and_other_charts_keep_every_row() {
        let short = data(MAX_PLOTTED_POINTS, 2);
        assert_eq!(*short.plotted(ChartType::Area), short);
        let long = data(3_000, 1);
        for kind in [ChartType::Bar, ChartType::Scatter, ChartType::HorizontalBar] {
            assert_eq!(*long.plotted(kind), long, "{kind:?}");
        }
    }
}
