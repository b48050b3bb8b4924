//! [`MaskRule::Hash`](nao_guard::MaskRule::Hash): keyed hashes of the values.

use std::hash::Hasher;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use siphasher::sip::SipHasher24;

use super::canonical::{self, check_type, resolve, write_value};
use super::{MaskError, MaskKey};

/// The prefix of every hash token: `h:` and 16 hexadecimal digits.
pub const HASH_PREFIX: &str = "h:";

/// The length of a hash token in bytes.
const TOKEN_LEN: usize = 18;

/// The hash token of every non-NULL value: `h:` and the 64-bit keyed SipHash-2-4 of the
/// value's canonical bytes in hexadecimal. NULL stays NULL.
pub(crate) fn hash_array(array: &dyn Array, key: &MaskKey) -> Result<ArrayRef, MaskError> {
    check_type(array.data_type()).map_err(|reason| MaskError::Unsupported {
        data_type: array.data_type().clone(),
        rule: "hash",
        reason,
    })?;
    let len = array.len();
    let mut tokens = Tokens {
        out: StringBuilder::with_capacity(len, len * TOKEN_LEN),
        token: String::with_capacity(TOKEN_LEN),
    };
    // The common types skip the per-row type dispatch.
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => tokens.extend(
            (0..len).map(|row| {
                array
                    .is_valid(row)
                    .then(|| super::text::plain_text(array, row))
                    .flatten()
            }),
            key,
            canonical::text,
        ),
        DataType::Int64 => tokens.extend(
            array.as_primitive::<Int64Type>().iter(),
            key,
            |hasher, value| canonical::integer(hasher, value.into()),
        ),
        DataType::Int32 => tokens.extend(
            array.as_primitive::<Int32Type>().iter(),
            key,
            |hasher, value| canonical::integer(hasher, value.into()),
        ),
        _ => tokens.extend(
            (0..len).map(|row| resolve(array, row)),
            key,
            |hasher, (leaf, leaf_row)| write_value(hasher, leaf, leaf_row),
        ),
    }
    Ok(Arc::new(tokens.out.finish()))
}

/// The tokens of one column, built with one reused token buffer.
struct Tokens {
    out: StringBuilder,
    token: String,
}

impl Tokens {
    /// Appends the token of every value (`write` feeds its canonical bytes to the hasher), or
    /// NULL for a missing one.
    fn extend<T>(
        &mut self,
        values: impl Iterator<Item = Option<T>>,
        key: &MaskKey,
        write: impl Fn(&mut SipHasher24, T),
    ) {
        for value in values {
            match value {
                Some(value) => {
                    let mut hasher = key.hasher();
                    write(&mut hasher, value);
                    self.push(hasher.finish());
                }
                None => self.out.append_null(),
            }
        }
    }

    /// Appends the token of `hash`, written into the reused buffer.
    fn push(&mut self, hash: u64) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        self.token.clear();
        self.token.push_str(HASH_PREFIX);
        for shift in (0..16).rev() {
            self.token
                .push(char::from(HEX[((hash >> (shift * 4)) & 0xf) as usize]));
        }
        self.out.append_value(self.token.as_str());
    }
}
