//! Peak-memory helpers shared by the memory benches: each shape runs in a child process (the
//! bench binary again) that prints `rss_before peak rss_after outcome`, read back here.

use std::process::Command;

/// A line of a process's status file (`/proc/self/status`, `/proc/<pid>/status`), in KiB;
/// 0 once the process is gone.
pub(crate) fn status_kib_of(path: &str, key: &str) -> u64 {
    let status = std::fs::read_to_string(path).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(key))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A line of this process's status, in KiB.
pub(crate) fn status_kib(key: &str) -> u64 {
    status_kib_of("/proc/self/status", key)
}

/// Resets this process's peak RSS (`VmHWM`) to its current RSS.
pub(crate) fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// KiB as MiB.
pub(crate) fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// What a child measured: RSS before, peak, RSS after (KiB) and the call's outcome.
pub(crate) type Measured = (u64, u64, u64, String);

/// Runs `child` (this binary with the child's environment) and reads its last line; a child
/// that printed nothing gives its exit status and the end of its stderr as the outcome.
pub(crate) fn run_child(child: &mut Command) -> Option<Measured> {
    let output = child.output().ok()?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let Some(line) = stdout.lines().last() else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: String = stderr.lines().rev().take(3).collect::<Vec<_>>().join(" | ");
        return Some((0, 0, 0, format!("child failed ({}): {tail}", output.status)));
    };
    let mut parts = line.splitn(4, ' ');
    let before = parts.next()?.parse().ok()?;
    let peak = parts.next()?.parse().ok()?;
    let after = parts.next()?.parse().ok()?;
    Some((before, peak, after, parts.next().unwrap_or("").to_owned()))
}
