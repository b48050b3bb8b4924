//! Nested values (lists, structs, maps) as compact JSON, bounded in size and depth.

use arrow_array::Array;
use arrow_array::cast::AsArray;
use arrow_schema::DataType;

use crate::escape::push_json_string;
use crate::value::{JsonShape, ValueKind, resolve_dictionary, text_at, write_other, write_scalar};

/// Deepest nesting written; deeper values show as `"…"`.
const MAX_JSON_DEPTH: usize = 16;

/// Writes values as compact JSON into a buffer, and stops once the buffer reaches a byte limit
/// so a list of a million elements costs no more than the part that will be shown.
pub(crate) struct JsonWriter<'b> {
    out: &'b mut String,
    limit: usize,
    complete: bool,
}

impl<'b> JsonWriter<'b> {
    /// A writer appending to `out` until it is `limit` bytes long.
    pub(crate) fn new(out: &'b mut String, limit: usize) -> Self {
        JsonWriter {
            out,
            limit,
            complete: true,
        }
    }

    /// Whether everything was written (false once the limit cut it short).
    pub(crate) fn complete(&self) -> bool {
        self.complete
    }

    fn full(&mut self) -> bool {
        if self.out.len() >= self.limit {
            self.complete = false;
        }
        !self.complete
    }

    /// Writes the value at `row` of `array`.
    pub(crate) fn value(&mut self, array: &dyn Array, row: usize, depth: usize) {
        if self.full() {
            return;
        }
        let Some((array, row)) = resolve_dictionary(array, row) else {
            self.out.push_str("null");
            return;
        };
        if array.is_null(row) || *array.data_type() == DataType::Null {
            self.out.push_str("null");
            return;
        }
        if let Some(text) = text_at(array, row) {
            self.complete &= push_json_string(self.out, text, self.limit);
            return;
        }
        if depth >= MAX_JSON_DEPTH && crate::value::is_nested(array.data_type()) {
            self.out.push_str("\"…\"");
            return;
        }
        match array.data_type() {
            DataType::List(_) => {
                if let Some(list) = array.as_list_opt::<i32>() {
                    let offsets = list.value_offsets();
                    let range = offsets[row] as usize..offsets[row + 1] as usize;
                    self.list(list.values().as_ref(), range, depth);
                }
            }
            DataType::LargeList(_) => {
                if let Some(list) = array.as_list_opt::<i64>() {
                    let offsets = list.value_offsets();
                    let range = offsets[row] as usize..offsets[row + 1] as usize;
                    self.list(list.values().as_ref(), range, depth);
                }
            }
            DataType::FixedSizeList(..) => {
                if let Some(list) = array.as_fixed_size_list_opt() {
                    let start = list.value_offset(row) as usize;
                    let range = start..start + list.value_length() as usize;
                    self.list(list.values().as_ref(), range, depth);
                }
            }
            DataType::Struct(fields) => {
                if let Some(structure) = array.as_struct_opt() {
                    self.out.push('{');
                    for (index, (field, column)) in
                        fields.iter().zip(structure.columns()).enumerate()
                    {
                        if index > 0 {
                            self.out.push(',');
                        }
                        if self.full() {
                            return;
                        }
                        push_json_string(self.out, field.name(), usize::MAX);
                        self.out.push(':');
                        self.value(column.as_ref(), row, depth + 1);
                    }
                    self.out.push('}');
                }
            }
            DataType::Map(..) => {
                if let Some(map) = array.as_map_opt() {
                    let offsets = map.value_offsets();
                    let (keys, values) = (map.keys().as_ref(), map.values().as_ref());
                    self.out.push('{');
                    for (index, entry) in
                        (offsets[row] as usize..offsets[row + 1] as usize).enumerate()
                    {
                        if index > 0 {
                            self.out.push(',');
                        }
                        if self.full() {
                            return;
                        }
                        self.key(keys, entry);
                        self.out.push(':');
                        self.value(values, entry, depth + 1);
                    }
                    self.out.push('}');
                }
            }
            _ => self.scalar(array, row),
        }
    }

    fn list(&mut self, values: &dyn Array, range: std::ops::Range<usize>, depth: usize) {
        // Decided once per list: elements of a scalar type skip the per-value dispatch.
        let scalar_elements = ValueKind::of(values.data_type()) == ValueKind::Scalar;
        self.out.push('[');
        for (index, element) in range.enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            if self.full() {
                return;
            }
            if scalar_elements && !values.is_null(element) {
                self.scalar(values, element);
            } else {
                self.value(values, element, depth + 1);
            }
        }
        self.out.push(']');
    }

    /// A map key as a JSON object key: text as is, anything else as its text form.
    fn key(&mut self, keys: &dyn Array, entry: usize) {
        if let Some((keys, entry)) = resolve_dictionary(keys, entry)
            && let Some(text) = text_at(keys, entry)
        {
            self.complete &= push_json_string(self.out, text, self.limit);
            return;
        }
        let mut key = String::new();
        JsonWriter::new(&mut key, self.limit).value(keys, entry, MAX_JSON_DEPTH);
        let key = key
            .strip_prefix('"')
            .and_then(|k| k.strip_suffix('"'))
            .unwrap_or(&key);
        self.complete &= push_json_string(self.out, key, self.limit);
    }

    fn scalar(&mut self, array: &dyn Array, row: usize) {
        let start = self.out.len();
        match write_scalar(self.out, array, row) {
            Some(JsonShape::Bare) => {}
            // Scalars are written with no quote, backslash or control character, so quoting
            // needs no escaping.
            Some(JsonShape::Quoted) => {
                self.out.insert(start, '"');
                self.out.push('"');
            }
            None => {
                let mut text = String::new();
                write_other(&mut text, array, row);
                self.complete &= push_json_string(self.out, &text, self.limit);
            }
        }
    }
}
