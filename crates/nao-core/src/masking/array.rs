//! One rule applied to one Arrow column.

use std::sync::Arc;

use arrow_array::builder::StringBuilder;
use arrow_array::{Array, ArrayRef, new_null_array};
use arrow_schema::DataType;
use nao_guard::MaskRule;

use super::hash::hash_array;
use super::partial::partial_array;
use super::{MaskError, MaskKey};

/// What every non-NULL value of a column masked with [`MaskRule::Redact`] becomes.
pub const REDACTED: &str = "[masked]";

/// The Arrow type of a column of type `data_type` after `rule`: `Utf8` for
/// [`Redact`](MaskRule::Redact), [`Hash`](MaskRule::Hash) and [`Partial`](MaskRule::Partial)
/// (their values are text whatever the column held), the column's own type for
/// [`Null`](MaskRule::Null) (its values are typed NULLs, so the reader still sees what the
/// column was).
pub fn masked_type(rule: MaskRule, data_type: &DataType) -> Result<DataType, MaskError> {
    match rule {
        MaskRule::Redact | MaskRule::Hash | MaskRule::Partial { .. } => Ok(DataType::Utf8),
        MaskRule::Null => Ok(data_type.clone()),
        other => Err(unknown_rule(other, data_type)),
    }
}

/// `array` with `rule` applied to every value. The result has [`masked_type`] and the same
/// length; NULL stays NULL under every rule (and every value becomes NULL under
/// [`Null`](MaskRule::Null)):
/// - [`Redact`](MaskRule::Redact): each value is [`REDACTED`].
/// - [`Hash`](MaskRule::Hash): each value is `h:` and 16 hexadecimal digits, the keyed
///   SipHash-2-4 of the value's canonical bytes: equal values (by value, whatever the Arrow
///   type: text of any string type, integers of any width) give equal tokens, different
///   values different ones but for a 2⁻⁶⁴ chance per pair.
/// - [`Partial`](MaskRule::Partial): [`PARTIAL_PREFIX`](super::PARTIAL_PREFIX) and the last
///   characters ([`partial_text`](super::partial_text)); non-text values as Arrow displays
///   them.
/// - [`Null`](MaskRule::Null): a NULL array of the same type.
///
/// Works on every Arrow type, on sliced arrays and on dictionaries, run-end encodings and
/// unions (by the values they stand for).
pub fn mask_array(array: &ArrayRef, rule: MaskRule, key: &MaskKey) -> Result<ArrayRef, MaskError> {
    match rule {
        MaskRule::Redact => Ok(redact_array(array.as_ref())),
        MaskRule::Hash => hash_array(array.as_ref(), key),
        MaskRule::Partial { keep_last } => partial_array(array.as_ref(), keep_last),
        MaskRule::Null => Ok(new_null_array(array.data_type(), array.len())),
        other => Err(unknown_rule(other, array.data_type())),
    }
}

fn redact_array(array: &dyn Array) -> ArrayRef {
    let len = array.len();
    let mut out = StringBuilder::with_capacity(len, len * REDACTED.len());
    match array.logical_nulls() {
        Some(nulls) => {
            for valid in nulls.iter() {
                if valid {
                    out.append_value(REDACTED);
                } else {
                    out.append_null();
                }
            }
        }
        None => {
            for _ in 0..len {
                out.append_value(REDACTED);
            }
        }
    }
    Arc::new(out.finish())
}

/// A rule added to the guard after this code: refused, so values are never shown unmasked.
fn unknown_rule(rule: MaskRule, data_type: &DataType) -> MaskError {
    MaskError::Unsupported {
        data_type: data_type.clone(),
        rule: rule.name(),
        reason: "this version of nao-core does not know the rule".into(),
    }
}
