//! The secret key of hash masking.

use std::fmt;
use std::hash::Hasher;

use siphasher::sip::SipHasher24;
use siphasher::sip128::{Hasher128, SipHasher24 as SipHasher24x128};

use super::MaskError;

/// The shortest passphrase [`MaskKey::from_passphrase`] accepts, in bytes.
pub const MIN_PASSPHRASE_BYTES: usize = 16;

/// The public key that turns a passphrase into a [`MaskKey`]: a fixed domain separator, not a
/// secret (the passphrase is the secret).
const PASSPHRASE_DOMAIN: &[u8; 16] = b"nao-rs mask key1";

/// The secret of [`MaskRule::Hash`](nao_guard::MaskRule::Hash): a 128-bit SipHash-2-4 key.
///
/// Without the key, a hashed value cannot be checked against a guess, so even values with few
/// possibilities (a nine-digit SSN, a birth date) cannot be found by hashing every candidate.
/// Anyone who has the key can do exactly that, so keep it as secret as the data.
///
/// Which constructor:
/// - [`MaskKey::random`] (the usual choice): a new key for each process. Hashes are stable
///   within the process (across queries and conversations it serves) and change at restart,
///   so a hash the model saw yesterday no longer matches today's. Nothing to store or leak.
/// - [`MaskKey::from_hex`] or [`MaskKey::from_bytes`]: a key the host keeps (a secret store,
///   an environment variable), for hashes that stay the same across restarts and across the
///   processes of a deployment, so stored conversations and reports keep matching. The price
///   is a long-lived secret: whoever reads it can reverse hashes of guessable values.
/// - [`MaskKey::from_passphrase`]: the same, from a text a person can type. The passphrase is
///   not stretched (no slow key derivation): it must itself be hard to guess, at least
///   [`MIN_PASSPHRASE_BYTES`] bytes of random-looking text, because anyone who sees one
///   masked value together with its original can test passphrases at full speed.
///
/// `Debug` never shows the key.
#[derive(Clone)]
pub struct MaskKey {
    bytes: [u8; 16],
}

impl MaskKey {
    /// A new random key from the operating system's random source.
    pub fn random() -> Result<MaskKey, MaskError> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).map_err(|e| MaskError::Randomness {
            message: e.to_string(),
        })?;
        Ok(MaskKey { bytes })
    }

    /// The key with these 16 bytes.
    pub fn from_bytes(bytes: [u8; 16]) -> MaskKey {
        MaskKey { bytes }
    }

    /// The key written as 32 hexadecimal digits (either case; surrounding whitespace is
    /// ignored), as `openssl rand -hex 16` prints one.
    pub fn from_hex(hex: &str) -> Result<MaskKey, MaskError> {
        let hex = hex.trim();
        if hex.len() != 32 {
            return Err(MaskError::InvalidKey {
                reason: format!(
                    "a hex key has 32 hexadecimal digits, this one has {} characters",
                    hex.chars().count()
                ),
            });
        }
        let mut bytes = [0u8; 16];
        for (byte, pair) in bytes.iter_mut().zip(hex.as_bytes().chunks_exact(2)) {
            let digit = |b: u8| char::from(b).to_digit(16);
            match (digit(pair[0]), digit(pair[1])) {
                (Some(high), Some(low)) => *byte = (high * 16 + low) as u8,
                _ => {
                    return Err(MaskError::InvalidKey {
                        reason: "a hex key has only the digits 0-9 and a-f".into(),
                    });
                }
            }
        }
        Ok(MaskKey { bytes })
    }

    /// The key derived from a passphrase of at least [`MIN_PASSPHRASE_BYTES`] bytes: the
    /// 128-bit SipHash-2-4 of the passphrase under a fixed, public domain key. The same
    /// passphrase always gives the same key. See the type's docs for the trade-off.
    pub fn from_passphrase(passphrase: &str) -> Result<MaskKey, MaskError> {
        if passphrase.len() < MIN_PASSPHRASE_BYTES {
            return Err(MaskError::InvalidKey {
                reason: format!(
                    "a passphrase needs at least {MIN_PASSPHRASE_BYTES} bytes, this one has {}; \
                     use a long random text, or MaskKey::random() for a key per process",
                    passphrase.len()
                ),
            });
        }
        let mut hasher = SipHasher24x128::new_with_key(PASSPHRASE_DOMAIN);
        hasher.write(passphrase.as_bytes());
        Ok(MaskKey {
            bytes: hasher.finish128().as_bytes(),
        })
    }

    /// A hasher keyed with this key, for one value.
    pub(crate) fn hasher(&self) -> SipHasher24 {
        SipHasher24::new_with_key(&self.bytes)
    }
}

impl fmt::Debug for MaskKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MaskKey(<secret>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_hides_the_key() {
        let key = MaskKey::from_bytes([0xab; 16]);
        let shown = format!("{key:?}");
        assert_eq!(shown, "MaskKey(<secret>)");
        assert!(!shown.to_lowercase().contains("ab"));
    }

    #[test]
    fn hex_keys_parse_in_either_case_and_refuse_bad_text() {
        let lower = MaskKey::from_hex(" 000102030405060708090a0b0c0d0e0f\n").unwrap();
        let upper = MaskKey::from_hex("000102030405060708090A0B0C0D0E0F").unwrap();
        let expected: [u8; 16] = std::array::from_fn(|i| i as u8);
        assert_eq!(lower.bytes, expected);
        assert_eq!(upper.bytes, expected);
        let short = MaskKey::from_hex("abcd").unwrap_err();
        assert!(
            short.to_string().contains("32 hexadecimal digits"),
            "{short}"
        );
        let bad = MaskKey::from_hex("zz0102030405060708090a0b0c0d0e0f").unwrap_err();
        assert!(bad.to_string().contains("0-9 and a-f"), "{bad}");
        // Multi-byte text of 32 bytes is refused, not sliced inside a character.
        let accents = "é".repeat(16);
        assert_eq!(accents.len(), 32);
        assert!(MaskKey::from_hex(&accents).is_err());
    }

    #[test]
    fn passphrases_are_deterministic_and_must_be_long() {
        let a = MaskKey::from_passphrase("correct horse battery staple").unwrap();
        let b = MaskKey::from_passphrase("correct horse battery staple").unwrap();
        let c = MaskKey::from_passphrase("correct horse battery stapler").unwrap();
        assert_eq!(a.bytes, b.bytes);
        assert_ne!(a.bytes, c.bytes);
        let short = MaskKey::from_passphrase("secret").unwrap_err();
        assert!(short.to_string().contains("at least 16 bytes"), "{short}");
    }

    #[test]
    fn random_keys_differ() {
        let a = MaskKey::random().unwrap();
        let b = MaskKey::random().unwrap();
        assert_ne!(a.bytes, b.bytes);
    }

    #[test]
    fn keys_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync + Clone>() {}
        assert_send_sync::<MaskKey>();
    }
}
