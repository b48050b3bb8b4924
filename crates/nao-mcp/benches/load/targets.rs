//! The targets: what each round measured of them, and their medians over the rounds
//! with the spread (min–max), each beside its target.

use std::time::Duration;

/// What one round measured that a target speaks of (`None`: not measured in this round).
#[derive(Debug, Default, Clone)]
pub(crate) struct Facts {
    /// One session, point lookups: p50.
    pub(crate) point_p50: Option<Duration>,
    /// Calls/s at 50 sessions over calls/s at one.
    pub(crate) ratio_50: Option<f64>,
    /// p99 at 50 sessions.
    pub(crate) p99_50: Option<Duration>,
    /// Failed calls at 50 sessions.
    pub(crate) errors_50: Option<u64>,
    /// Statement timeouts at 200 sessions.
    pub(crate) timeouts_200: Option<u64>,
    /// Idle RSS after the memory runs, less the RSS at start.
    pub(crate) idle_growth: Option<u64>,
    /// Calls in flight at SIGTERM that got no answer and no clean error.
    pub(crate) sigterm_dropped: Option<u64>,
    /// Calls in flight at SIGTERM answered after it.
    pub(crate) sigterm_answered: Option<u64>,
    /// Calls in flight at SIGTERM cut by the drain with a clean JSON-RPC error (the others
    /// finished and were answered).
    pub(crate) sigterm_cut: Option<u64>,
    /// From SIGTERM to exit.
    pub(crate) sigterm_exit: Option<Duration>,
}

/// Prints each target's median over `rounds` with the spread, and whether the median meets
/// it. `idle_allowance` is what the idle RSS may grow by (result budget + 64 MiB).
pub(crate) fn print(rounds: &[Facts], idle_allowance: u64) {
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    println!(
        "\ntargets (issue 25), median of {} round(s) [min–max]:",
        rounds.len()
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    if let Some((median, spread)) = summary(rounds, |f| f.point_p50.map(ms)) {
        println!(
            "  one session, point lookup p50 {median:.2} ms [{spread}] (≤ 2 ms): {}",
            verdict(median <= 2.0)
        );
    }
    let ratio = summary(rounds, |f| f.ratio_50);
    let p99 = summary(rounds, |f| f.p99_50.map(ms));
    let errors = summary(rounds, |f| f.errors_50.map(|n| n as f64));
    if let (Some((ratio, r)), Some((p99, p)), Some((errors, e))) = (ratio, p99, errors) {
        println!(
            "  50 sessions: {ratio:.2}x [{r}] the 1-session rate (≥ 1.6x), p99 {p99:.0} ms [{p}] \
             (≤ 1000), {errors:.0} errors [{e}] (0): {}",
            verdict(ratio >= 1.6 && p99 <= 1000.0 && errors == 0.0)
        );
    }
    if let Some((timeouts, spread)) = summary(rounds, |f| f.timeouts_200.map(|n| n as f64)) {
        println!(
            "  200 sessions: {timeouts:.0} statement timeouts [{spread}] (0; busy errors are \
             allowed): {}",
            verdict(timeouts == 0.0)
        );
    }
    let mib = |bytes: u64| (bytes >> 20) as f64;
    if let Some((growth, spread)) = summary(rounds, |f| f.idle_growth.map(mib)) {
        println!(
            "  idle RSS after the memory runs: start + {growth:.0} MiB [{spread}] (≤ start + {} \
             MiB): {}",
            idle_allowance >> 20,
            verdict(growth <= mib(idle_allowance))
        );
    }
    let dropped = summary(rounds, |f| f.sigterm_dropped.map(|n| n as f64));
    let cut = summary(rounds, |f| f.sigterm_cut.map(|n| n as f64));
    let answered = summary(rounds, |f| f.sigterm_answered.map(|n| n as f64));
    let exit = summary(rounds, |f| f.sigterm_exit.map(|d| d.as_secs_f64()));
    if let (Some((dropped, d)), Some((cut, c)), Some((answered, a)), Some((exit, x))) =
        (dropped, cut, answered, exit)
    {
        println!(
            "  SIGTERM under load: of the calls in flight {answered:.0} [{a}] answered, \
             {cut:.0} [{c}] cut with a clean error, {dropped:.0} [{d}] dropped (0); exit in \
             {exit:.2} s [{x}]: {}",
            verdict(dropped == 0.0)
        );
    }
}

/// The median of `pick` over the rounds that measured it, and the spread as text.
fn summary(rounds: &[Facts], pick: impl Fn(&Facts) -> Option<f64>) -> Option<(f64, String)> {
    let mut values: Vec<f64> = rounds.iter().filter_map(pick).collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    let median = if values.len().is_multiple_of(2) {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    };
    let (low, high) = (values[0], values[values.len() - 1]);
    let digits = if high < 10.0 { 2 } else { 0 };
    Some((median, format!("{low:.digits$}–{high:.digits$}")))
}
