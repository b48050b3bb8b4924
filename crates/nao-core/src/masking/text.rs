//! Reading text out of the string-like Arrow types.

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_schema::DataType;

use super::canonical::resolve;

/// Whether values of `data_type` are text: `Utf8`, `LargeUtf8`, `Utf8View`, or a dictionary
/// or run-end encoding of those.
pub(crate) fn is_text_type(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => true,
        DataType::Dictionary(_, values) => is_text_type(values),
        DataType::RunEndEncoded(_, values) => is_text_type(values.data_type()),
        _ => false,
    }
}

/// The text at `row` of a plain string array (`Utf8`, `LargeUtf8`, `Utf8View`), ignoring its
/// validity; `None` for any other array.
pub(crate) fn plain_text(array: &dyn Array, row: usize) -> Option<&str> {
    match array.data_type() {
        DataType::Utf8 => Some(array.as_string_opt::<i32>()?.value(row)),
        DataType::LargeUtf8 => Some(array.as_string_opt::<i64>()?.value(row)),
        DataType::Utf8View => Some(array.as_string_view_opt()?.value(row)),
        _ => None,
    }
}

/// The text at `row` of a text array of any encoding ([`is_text_type`]); `None` when NULL.
pub(crate) fn text_at(array: &dyn Array, row: usize) -> Option<&str> {
    let (leaf, row) = resolve(array, row)?;
    plain_text(leaf, row)
}
