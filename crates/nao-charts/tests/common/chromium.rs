//! Headless Chromium for the browser test and the chart example (which includes this file):
//! one run with a page, a screenshot of a page.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The longest one browser run may take.
const BROWSER_TIMEOUT: Duration = Duration::from_secs(60);

/// Runs Chromium headless with `args` (then `url`), killed past [`BROWSER_TIMEOUT`]; its
/// standard output.
pub(crate) fn chromium(browser: &Path, profile: &Path, args: &[String], url: &str) -> String {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Chromium starts");
    let started = Instant::now();
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut out).expect("Chromium prints text");
        out
    });
    loop {
        if let Some(status) = child.try_wait().expect("Chromium can be waited for") {
            assert!(status.success(), "Chromium {args:?} {url}: {status}");
            break;
        }
        if started.elapsed() > BROWSER_TIMEOUT {
            child.kill().expect("Chromium can be killed");
            panic!("Chromium {args:?} {url} took over {BROWSER_TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    reader.join().expect("the output reader does not panic")
}

/// Saves a PNG of `page` at `size` beside it (`x.svg` → `x.png`); its path.
pub(crate) fn screenshot(browser: &Path, profile: &Path, page: &Path, size: (u32, u32)) -> PathBuf {
    let png = page.with_extension("png");
    chromium(
        browser,
        profile,
        &[
            format!("--screenshot={}", png.display()),
            format!("--window-size={},{}", size.0, size.1),
        ],
        &format!("file://{}", page.display()),
    );
    assert!(
        std::fs::metadata(&png).is_ok_and(|m| m.len() > 1_000),
        "no screenshot at {}",
        png.display()
    );
    png
}

/// A fresh browser profile directory under `dir` (Chromium locks its profile: one per
/// browser running at once).
pub(crate) fn profile_dir(dir: &Path) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let profile = dir.join(format!("profile-{}", NEXT.fetch_add(1, Ordering::Relaxed)));
    std::fs::create_dir_all(&profile).expect("the profile directory can be made");
    profile
}
