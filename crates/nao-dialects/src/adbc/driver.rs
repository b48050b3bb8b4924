//! Finding and loading an ADBC driver: an explicit path, then the adapter's folders
//! (`NAO_ADBC_DRIVER_DIR`), then the ADBC driver-manifest locations.

use std::path::{Path, PathBuf};

use adbc_core::error::{Error, Status};
use adbc_core::options::AdbcVersion;
use adbc_core::{LOAD_FLAG_DEFAULT, LoadFlags};
use adbc_driver_manager::ManagedDriver;

/// Loads the driver `spec` names (see [`AdbcConfig::driver`](super::AdbcConfig::driver)).
///
/// - A path (it has a `/` or an extension): that library or manifest (`.toml`).
/// - A name: `<name>.toml` or `lib<name>.so` in each of `dirs`; then the same for
///   `adbc_driver_<name>`; then the ADBC driver manager's own search: `ADBC_DRIVER_PATH`,
///   the user's `~/.config/adbc/drivers`, the system's `/etc/adbc/drivers` (manifests or
///   libraries), and last the dynamic loader's path (`LD_LIBRARY_PATH`).
///
/// ADBC 1.1.0 is asked for first (it has cancellation), 1.0.0 when the driver has only that.
pub(super) fn load(
    spec: &str,
    entrypoint: Option<&str>,
    dirs: &[PathBuf],
) -> Result<ManagedDriver, Error> {
    let entrypoint = entrypoint.map(str::as_bytes);
    let with_version = |load: &dyn Fn(AdbcVersion) -> Result<ManagedDriver, Error>| {
        load(AdbcVersion::V110).or_else(|error| match error.status {
            Status::NotImplemented => load(AdbcVersion::V100),
            _ => Err(error),
        })
    };
    if is_path(spec) {
        return with_version(&|version| {
            ManagedDriver::load_from_name(spec, entrypoint, version, LOAD_FLAG_DEFAULT, None)
        });
    }
    let mut names = vec![spec.to_owned()];
    if !spec.starts_with("adbc_driver_") {
        names.push(format!("adbc_driver_{spec}"));
    }
    // Only the adapter's folders first (no flags: no ADBC_DRIVER_PATH, user or system
    // folders), so NAO_ADBC_DRIVER_DIR wins over a driver installed elsewhere.
    let only_dirs: LoadFlags = 0;
    if !dirs.is_empty() {
        for name in &names {
            let found = with_version(&|version| {
                ManagedDriver::load_from_name(
                    name,
                    entrypoint,
                    version,
                    only_dirs,
                    Some(dirs.to_vec()),
                )
            });
            if found.is_ok() {
                return found;
            }
        }
    }
    let mut last = None;
    for name in &names {
        match with_version(&|version| {
            ManagedDriver::load_from_name(name, entrypoint, version, LOAD_FLAG_DEFAULT, None)
        }) {
            Ok(driver) => return Ok(driver),
            Err(error) => last = Some(error),
        }
    }
    Err(last.unwrap_or_else(|| Error::with_message_and_status("no driver name", Status::NotFound)))
}

/// Whether `spec` names a file rather than a driver to search for.
fn is_path(spec: &str) -> bool {
    spec.contains(std::path::MAIN_SEPARATOR)
        || spec.contains('/')
        || Path::new(spec).extension().is_some()
}

/// Where a driver was looked for, for the error that says it was not found.
pub(super) fn searched(spec: &str, dirs: &[PathBuf]) -> String {
    if is_path(spec) {
        return format!("the file {spec}");
    }
    let mut places: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    places.push(
        "ADBC_DRIVER_PATH, ~/.config/adbc/drivers, /etc/adbc/drivers, the loader's path".into(),
    );
    format!(
        "{spec}.toml, libadbc_driver_{spec}.so in {} (scripts/adbc/fetch-drivers.sh fetches the \
         drivers and prints NAO_ADBC_DRIVER_DIR)",
        places.join(", ")
    )
}
