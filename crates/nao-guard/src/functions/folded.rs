//! A function name folded to ASCII lower case on the stack, so that every lookup compares plain
//! bytes against the lower-case catalogue without allocating.

/// The longest name kept whole; every catalogued name is shorter (a unit test checks), so a longer
/// name can only match by prefix or suffix.
pub(super) const WHOLE_MAX: usize = 64;
/// How much of a longer name's start is kept, for prefix checks (no denied prefix is longer).
pub(super) const HEAD: usize = 48;
/// How much of a longer name's end is kept, for suffix checks (no denied suffix is longer).
pub(super) const TAIL: usize = WHOLE_MAX - HEAD;

/// A name folded to ASCII lower case: whole if short enough, else its head and tail.
#[derive(Debug)]
pub(super) struct FoldedName {
    bytes: [u8; WHOLE_MAX],
    len: usize,
    whole: bool,
}

impl FoldedName {
    /// Folds `name` (as written, any case).
    pub(super) fn new(name: &str) -> Self {
        let name = name.as_bytes();
        let mut bytes = [0; WHOLE_MAX];
        let whole = name.len() <= WHOLE_MAX;
        if whole {
            bytes[..name.len()].copy_from_slice(name);
        } else {
            bytes[..HEAD].copy_from_slice(&name[..HEAD]);
            bytes[HEAD..].copy_from_slice(&name[name.len() - TAIL..]);
        }
        bytes.make_ascii_lowercase();
        let len = if whole { name.len() } else { WHOLE_MAX };
        FoldedName { bytes, len, whole }
    }

    /// The whole folded name, if it was short enough to keep.
    pub(super) fn whole(&self) -> Option<&[u8]> {
        self.whole.then(|| &self.bytes[..self.len])
    }

    /// Whether the name starts with `prefix` (lower case, at most [`HEAD`] bytes).
    pub(super) fn starts_with(&self, prefix: &[u8]) -> bool {
        let head = &self.bytes[..if self.whole { self.len } else { HEAD }];
        head.get(..prefix.len())
            .is_some_and(|start| same_bytes(start, prefix))
    }

    /// Whether the name ends with `suffix` (lower case, at most [`TAIL`] bytes).
    pub(super) fn ends_with(&self, suffix: &[u8]) -> bool {
        let tail = &self.bytes[if self.whole { 0 } else { HEAD }..self.len];
        ends_with(tail, suffix)
    }
}

/// Whether `name` ends with `suffix`.
pub(super) fn ends_with(name: &[u8], suffix: &[u8]) -> bool {
    name.len()
        .checked_sub(suffix.len())
        .is_some_and(|start| same_bytes(&name[start..], suffix))
}

/// Byte equality for the short slices compared here: an inlined loop beats a call to `memcmp`.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_are_kept_whole() {
        let name = FoldedName::new("PG_Sleep");
        assert_eq!(name.whole(), Some(&b"pg_sleep"[..]));
        assert!(name.starts_with(b"pg_"));
        assert!(name.ends_with(b"sleep"));
        assert!(!name.starts_with(b"pg_sleep_"));
    }

    #[test]
    fn long_names_keep_head_and_tail() {
        let long = format!("XP_{}_SCAN", "é".repeat(40));
        let name = FoldedName::new(&long);
        assert_eq!(name.whole(), None);
        assert!(name.starts_with(b"xp_"));
        assert!(name.ends_with(b"_scan"));
        let exact = "a".repeat(WHOLE_MAX);
        assert!(FoldedName::new(&exact).whole().is_some());
    }
}
