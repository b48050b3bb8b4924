//! Checking a model's JSON arguments against a tool's JSON Schema before deserializing them, so
//! a mistake comes back with the path and the rule it broke ("limit: must be at most 500").
//!
//! This covers the subset of JSON Schema that schemars emits for argument structs: `type`,
//! `properties`, `required`, `additionalProperties`, `enum`, `const`, numeric bounds, string
//! lengths, array sizes and `items`, and `anyOf`/`oneOf`/`allOf`. Anything else is left to
//! serde, which deserializes the arguments afterwards.

use serde_json::{Map, Value};

/// Returns the first violation as `path: message` (path `$` for the root).
pub(crate) fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, value, "$")
}

fn check(schema: &Value, value: &Value, path: &str) -> Result<(), String> {
    let Some(schema) = schema.as_object() else {
        // `true` accepts anything; `false` accepts nothing.
        return match schema {
            Value::Bool(false) => Err(format!("{path}: no value is allowed here")),
            _ => Ok(()),
        };
    };
    if let Some(types) = schema.get("type") {
        check_type(types, value, path)?;
    }
    if let Some(Value::Array(options)) = schema.get("enum")
        && !options.contains(value)
    {
        let list = options
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        return Err(format!("{path}: must be one of {list}, got {value}"));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        return Err(format!("{path}: must be {constant}, got {value}"));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            let mut first_error = None;
            if !options
                .iter()
                .any(|option| match check(option, value, path) {
                    Ok(()) => true,
                    Err(e) => {
                        first_error.get_or_insert(e);
                        false
                    }
                })
            {
                return Err(
                    first_error.unwrap_or_else(|| format!("{path}: matches no allowed form"))
                );
            }
        }
    }
    if let Some(Value::Array(all)) = schema.get("allOf") {
        for part in all {
            check(part, value, path)?;
        }
    }
    match value {
        Value::Number(n) => check_number(schema, n.as_f64().unwrap_or(f64::NAN), path),
        Value::String(s) => check_string(schema, s, path),
        Value::Array(items) => check_array(schema, items, path),
        Value::Object(fields) => check_object(schema, fields, path),
        Value::Null | Value::Bool(_) => Ok(()),
    }
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn check_type(types: &Value, value: &Value, path: &str) -> Result<(), String> {
    let ok = match types {
        Value::String(name) => type_matches(name, value),
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .any(|n| type_matches(n, value)),
        _ => true,
    };
    if ok {
        return Ok(());
    }
    let expected = match types {
        Value::Array(names) => names
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        other => other.as_str().unwrap_or("another type").to_owned(),
    };
    Err(format!(
        "{path}: must be {}, got {}",
        article(&expected),
        describe(value)
    ))
}

fn article(type_name: &str) -> String {
    match type_name {
        "integer" | "array" | "object" => format!("an {type_name}"),
        "null" => "null".to_owned(),
        other => format!("a {other}"),
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) if s.chars().count() > 40 => "a string".into(),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

fn bound(schema: &Map<String, Value>, key: &str) -> Option<f64> {
    schema.get(key).and_then(Value::as_f64)
}

fn check_number(schema: &Map<String, Value>, n: f64, path: &str) -> Result<(), String> {
    if let Some(min) = bound(schema, "minimum").filter(|min| n < *min) {
        return Err(format!("{path}: must be at least {min}, got {n}"));
    }
    if let Some(max) = bound(schema, "maximum").filter(|max| n > *max) {
        return Err(format!("{path}: must be at most {max}, got {n}"));
    }
    if let Some(min) = bound(schema, "exclusiveMinimum").filter(|min| n <= *min) {
        return Err(format!("{path}: must be more than {min}, got {n}"));
    }
    if let Some(max) = bound(schema, "exclusiveMaximum").filter(|max| n >= *max) {
        return Err(format!("{path}: must be less than {max}, got {n}"));
    }
    Ok(())
}

fn check_string(schema: &Map<String, Value>, s: &str, path: &str) -> Result<(), String> {
    let len = s.chars().count() as f64;
    if let Some(min) = bound(schema, "minLength").filter(|min| len < *min) {
        return Err(format!("{path}: must have at least {min} characters"));
    }
    if let Some(max) = bound(schema, "maxLength").filter(|max| len > *max) {
        return Err(format!(
            "{path}: must have at most {max} characters, got {len}"
        ));
    }
    Ok(())
}

fn check_array(schema: &Map<String, Value>, items: &[Value], path: &str) -> Result<(), String> {
    let len = items.len() as f64;
    if let Some(min) = bound(schema, "minItems").filter(|min| len < *min) {
        return Err(format!("{path}: must have at least {min} items, got {len}"));
    }
    if let Some(max) = bound(schema, "maxItems").filter(|max| len > *max) {
        return Err(format!("{path}: must have at most {max} items, got {len}"));
    }
    if let Some(item_schema) = schema.get("items") {
        for (i, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{path}[{i}]"))?;
        }
    }
    Ok(())
}

fn check_object(
    schema: &Map<String, Value>,
    fields: &Map<String, Value>,
    path: &str,
) -> Result<(), String> {
    let child = |key: &str| {
        if path == "$" {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for key in required.iter().filter_map(Value::as_str) {
            if !fields.contains_key(key) {
                return Err(format!("{}: is required", child(key)));
            }
        }
    }
    for (key, value) in fields {
        match properties.and_then(|p| p.get(key)) {
            Some(property) => check(property, value, &child(key))?,
            None => match schema.get("additionalProperties") {
                Some(Value::Bool(false)) => {
                    let known = properties
                        .map(|p| p.keys().cloned().collect::<Vec<_>>().join(", "))
                        .unwrap_or_default();
                    return Err(format!(
                        "{}: is not an argument of this tool (known: {known})",
                        child(key)
                    ));
                }
                Some(extra @ Value::Object(_)) => check(extra, value, &child(key))?,
                _ => {}
            },
        }
    }
    Ok(())
}

#[cfg(test)]
mod cross_check;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "query_id": {"type": "string", "minLength": 1},
                "limit": {"type": "integer", "minimum": 1, "maximum": 500},
                "kind": {"enum": ["bar", "line"]},
                "series": {"type": "array", "minItems": 1, "items": {"type": "object",
                    "properties": {"key": {"type": "string"}}, "required": ["key"]}},
                "note": {"type": ["string", "null"]}
            },
            "required": ["query_id"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_arguments_pass() {
        let args = json!({"query_id": "q_1", "limit": 20, "kind": "bar", "series": [{"key": "a"}], "note": null});
        assert_eq!(validate(&schema(), &args), Ok(()));
    }

    #[test]
    fn violations_name_the_path_and_the_rule() {
        let cases = [
            (json!({}), "query_id: is required"),
            (
                json!({"query_id": "q", "limit": 501}),
                "limit: must be at most 500, got 501",
            ),
            (
                json!({"query_id": "q", "limit": "5"}),
                "limit: must be an integer, got the string \"5\"",
            ),
            (
                json!({"query_id": "q", "kind": "pie"}),
                "kind: must be one of \"bar\", \"line\", got \"pie\"",
            ),
            (
                json!({"query_id": "q", "series": [{"x": 1}]}),
                "series[0].key: is required",
            ),
            (
                json!({"query_id": "q", "series": []}),
                "series: must have at least 1 items, got 0",
            ),
            (
                json!({"query_id": "q", "sql": "x"}),
                "sql: is not an argument of this tool (known: kind, limit, note, query_id, series)",
            ),
            (json!([1]), "$: must be an object, got an array"),
        ];
        for (args, expected) in cases {
            assert_eq!(
                validate(&schema(), &args),
                Err(expected.to_owned()),
                "{args}"
            );
        }
    }
}
