//! Sizes written for people, in the messages the model and the host read.

/// A size for people: whole MiB exactly, else one decimal, else KiB or bytes.
#[cfg_attr(
    not(any(
        feature = "postgres",
        feature = "mysql",
        feature = "duckdb",
        feature = "sqlite"
    )),
    allow(dead_code)
)]
pub(crate) fn human(bytes: usize) -> String {
    const MIB: usize = 1 << 20;
    const KIB: usize = 1 << 10;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= MIB {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    } else if bytes >= KIB {
        format!("{:.1} KiB", bytes as f64 / KIB as f64)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::human;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human(64 << 20), "64 MiB");
        assert_eq!(human(3 << 19), "1.5 MiB");
        assert_eq!(human(1536), "1.5 KiB");
        assert_eq!(human(12), "12 bytes");
    }
}
