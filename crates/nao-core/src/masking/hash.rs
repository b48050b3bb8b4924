//! [`MaskRule::Hash`](nao_guard::MaskRule::Hash): keyed hashes of the values.

use std::hash::Hasher;
use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;

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
    let mut out = StringBuilder::with_capacity(len, len * TOKEN_LEN);
    let mut token = String::with_capacity(TOKEN_LEN);
    // The common types skip the per-row type dispatch.
    match array.data_type() {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => {
            for row in 0..len {
                match array
                    .is_valid(row)
                    .then(|| super::text::plain_text(array, row))
                    .flatten()
                {
                    Some(value) => {
                        let mut hasher = key.hasher();
                        canonical::text(&mut hasher, value);
                        push_token(&mut out, &mut token, hasher.finish());
                    }
                    None => out.append_null(),
                }
            }
        }
        DataType::Int64 => {
            for value in array.as_primitive::<Int64Type>() {
                match value {
                    Some(value) => {
                        let mut hasher = key.hasher();
                        canonical::integer(&mut hasher, value.into());
                        push_token(&mut out, &mut token, hasher.finish());
                    }
                    None => out.append_null(),
                }
            }
        }
        DataType::Int32 => {
            for value in array.as_primitive::<Int32Type>() {
                match value {
                    Some(value) => {
                        let mut hasher = key.hasher();
                        canonical::integer(&mut hasher, value.into());
                        push_token(&mut out, &mut token, hasher.finish());
                    }
                    None => out.append_null(),
                }
            }
        }
        _ => {
            for row in 0..len {
                match resolve(array, row) {
                    Some((leaf, leaf_row)) => {
                        let mut hasher = key.hasher();
                        write_value(&mut hasher, leaf, leaf_row);
                        push_token(&mut out, &mut token, hasher.finish());
                    }
                    None => out.append_null(),
                }
            }
        }
    }
    Ok(Arc::new(out.finish()))
}

/// Appends the token of `hash`, written into the reused `token` buffer.
fn push_token(out: &mut StringBuilder, token: &mut String, hash: u64) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    token.clear();
    token.push_str(HASH_PREFIX);
    for shift in (0..16).rev() {
        token.push(char::from(HEX[((hash >> (shift * 4)) & 0xf) as usize]));
    }
    out.append_value(token.as_str());
}
