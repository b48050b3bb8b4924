//! The values of the command line and the config file, each checked the same way wherever it
//! is given. A checker's error says what the value should be and what it got (passwords
//! masked), without naming the flag or key: the caller puts `--timeout` or `limits.timeout`
//! in front.

use std::net::SocketAddr;
use std::time::Duration;

use nao_core::guard::MaskRule;

use crate::redact::redact_url;

/// A value for an error message: quoted, any password masked (a URL given where something
/// else was expected must not be echoed whole).
pub(crate) fn shown(text: &str) -> String {
    format!("{:?}", redact_url(text))
}

/// A database name: letters, digits, `_` and `-`.
pub(crate) fn is_database_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A whole number (`10000`, `10_000`).
pub(crate) fn number(text: &str) -> Result<u64, String> {
    text.trim()
        .replace('_', "")
        .parse()
        .map_err(|_| format!("wants a whole number, got {}", shown(text)))
}

/// A whole number of at least 1 that fits a `usize`.
pub(crate) fn positive(text: &str) -> Result<usize, String> {
    usize::try_from(number(text)?)
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "wants at least 1".to_owned())
}

/// A whole number that fits a `usize` (larger ones are clamped).
pub(crate) fn count(text: &str) -> Result<usize, String> {
    Ok(usize::try_from(number(text)?).unwrap_or(usize::MAX))
}

/// Threads per DuckDB statement: 1 to 1024.
pub(crate) fn threads(text: &str) -> Result<usize, String> {
    usize::try_from(number(text)?)
        .ok()
        .filter(|n| (1..=1024).contains(n))
        .ok_or_else(|| "wants 1 to 1024".to_owned())
}

/// A byte count that fits a `usize`.
pub(crate) fn request_bytes(text: &str) -> Result<usize, String> {
    usize::try_from(number(text)?).map_err(|_| "is too large".to_owned())
}

/// A size in bytes: a whole number, or one with a unit (`512MiB`, `2 GiB`, `500MB`; KiB, MiB,
/// GiB and TiB count in 1024s, kB, MB, GB and TB in 1000s).
pub(crate) fn size(text: &str) -> Result<u64, String> {
    let invalid = || format!("wants a size like 512MiB or 2GiB, got {}", shown(text));
    let trimmed = text.trim().replace('_', "");
    let split = trimmed
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(split);
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(invalid()),
    };
    n.checked_mul(scale).filter(|n| *n > 0).ok_or_else(invalid)
}

/// A size that fits a `usize` (larger ones are clamped).
pub(crate) fn usize_size(text: &str) -> Result<usize, String> {
    Ok(usize::try_from(size(text)?).unwrap_or(usize::MAX))
}

/// A positive number of seconds (`2.5`, `30s`).
pub(crate) fn seconds(text: &str) -> Result<Duration, String> {
    text.trim()
        .trim_end_matches('s')
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e9)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("wants seconds, got {}", shown(text)))
}

/// A number of seconds that may be zero (`0`, `2.5`, `30s`).
pub(crate) fn seconds_or_zero(text: &str) -> Result<Duration, String> {
    let zero = text.trim().trim_end_matches('s').parse::<f64>() == Ok(0.0);
    if zero {
        return Ok(Duration::ZERO);
    }
    seconds(text)
}

/// An address to listen on (`127.0.0.1:8080`, `[::1]:8080`).
pub(crate) fn listen_address(text: &str) -> Result<SocketAddr, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("wants an address like 127.0.0.1:8080, got {}", shown(text)))
}

/// A browser origin `http(s)://host[:port|:*]`. Without a port it means the scheme's default
/// port, as browsers send it, and is written out so.
pub(crate) fn origin(text: &str) -> Result<String, String> {
    let invalid = || {
        format!(
            "wants an origin like https://app.example.com or http://host:*, got {}",
            shown(text)
        )
    };
    let trimmed = text.trim().trim_end_matches('/');
    let (scheme, authority) = trimmed.split_once("://").ok_or_else(invalid)?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => "80",
        "https" => "443",
        _ => return Err(invalid()),
    };
    let plain = !authority.is_empty()
        && !authority.contains(['/', '?', '#', '@', ' '])
        && !authority.starts_with(':');
    if !plain {
        return Err(invalid());
    }
    // A port follows the last `:` outside an IPv6 literal's brackets.
    match authority.rsplit_once(':') {
        Some((_, port)) if !port.contains(']') => {
            if port != "*" && port.parse::<u16>().is_err() {
                return Err(invalid());
            }
            Ok(trimmed.to_owned())
        }
        _ => Ok(format!("{trimmed}:{default_port}")),
    }
}

/// A `Host` name, with or without a port (`mcp.example.com`, `10.0.0.5:8080`).
pub(crate) fn host(text: &str) -> Result<String, String> {
    let plain = !text.is_empty() && !text.contains(['/', '?', '#', '@', ' ', ',', '*']);
    if plain {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "wants a host name like mcp.example.com or 10.0.0.5:8080, got {}",
            shown(text)
        ))
    }
}

/// `PATTERN=RULE`: a masked column and its rule.
pub(crate) fn mask_column(text: &str) -> Result<(String, MaskRule), String> {
    let Some((pattern, rule)) = text.rsplit_once('=') else {
        return Err(format!(
            "wants PATTERN=RULE, such as customers.email=hash; got {}",
            shown(text)
        ));
    };
    if pattern.trim().is_empty() {
        return Err("wants a column pattern before =".into());
    }
    // The rule's own error quotes it lower-cased, which the callers' scrubbing of the
    // arguments would not recognise: quote it as given instead.
    let rule = rule.parse().map_err(|_| {
        format!(
            "{}: {} is not a masking rule; use redact, hash, null, partial or partial:N (N from \
             0 to 255)",
            shown(pattern),
            shown(rule)
        )
    })?;
    Ok((pattern.trim().to_owned(), rule))
}

/// A role name (not blank).
pub(crate) fn role(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        Err("wants a role name".into())
    } else {
        Ok(text.to_owned())
    }
}

/// The levels `--log-level` takes.
pub(crate) const LOG_LEVELS: [&str; 6] = ["error", "warn", "info", "debug", "trace", "off"];

/// A log level, lower-cased.
pub(crate) fn log_level(text: &str) -> Result<String, String> {
    let level = text.trim().to_ascii_lowercase();
    if LOG_LEVELS.contains(&level.as_str()) {
        Ok(level)
    } else {
        Err(format!(
            "wants error, warn, info, debug, trace or off; unknown log level {}",
            shown(text)
        ))
    }
}

/// The name of an environment variable (not blank, no `=` or NUL).
pub(crate) fn env_name(text: &str) -> Result<String, String> {
    let plain = !text.trim().is_empty() && !text.contains(['=', '\0']);
    if plain {
        Ok(text.to_owned())
    } else {
        Err(format!(
            "wants the name of an environment variable, got {}",
            shown(text)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_units_and_refuse_the_rest() {
        assert_eq!(size("1048576"), Ok(1 << 20));
        assert_eq!(size("2 GiB"), Ok(2 << 30));
        assert_eq!(size("1_500kB"), Ok(1_500_000));
        for bad in ["", "0", "12 parsecs", "GiB", "-1MiB", "99999999999999TiB"] {
            let error = size(bad).expect_err(bad);
            assert!(error.starts_with("wants a size like 512MiB"), "{error}");
        }
    }

    #[test]
    fn seconds_and_zero() {
        assert_eq!(seconds("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(seconds("30s"), Ok(Duration::from_secs(30)));
        assert!(seconds("0").is_err());
        assert_eq!(seconds_or_zero("0"), Ok(Duration::ZERO));
        assert!(seconds_or_zero("-1").is_err());
        assert!(seconds("inf").is_err());
    }

    #[test]
    fn origins_are_written_with_their_port() {
        assert_eq!(
            origin("https://app.example.com/").as_deref(),
            Ok("https://app.example.com:443")
        );
        assert_eq!(origin("http://[::1]").as_deref(), Ok("http://[::1]:80"));
        assert_eq!(origin("http://host:*").as_deref(), Ok("http://host:*"));
    }

    #[test]
    fn errors_mask_passwords() {
        let url = "postgres://u:s3cr3t@h/db";
        for error in [
            number(url).unwrap_err(),
            size(url).unwrap_err(),
            seconds(url).unwrap_err(),
            listen_address(url).unwrap_err(),
            origin(url).unwrap_err(),
            host(url).unwrap_err(),
            log_level(url).unwrap_err(),
            mask_column(url).unwrap_err(),
        ] {
            assert!(!error.contains("s3cr3t"), "{error}");
        }
    }
}
