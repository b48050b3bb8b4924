//! The hand-written validator against the `jsonschema` crate, on the schemas of every built-in
//! tool: for each, hundreds of argument values generated from the schema itself (valid ones,
//! each property broken in turn, bounds and one past them, wrong types, missing and unknown
//! keys), and the two must give the same verdict on every one.

use serde_json::{Map, Value, json};

use super::validate;

/// At most this many samples per schema node, so that nested objects stay small.
const MAX_SAMPLES: usize = 48;

/// Values of every JSON type, to try wherever a schema expects one.
fn junk() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(1e300),
        json!(u64::MAX),
        json!(""),
        json!("x"),
        json!([]),
        json!([1, "a"]),
        json!({}),
        json!({"unknown": 1}),
    ]
}

/// Values around a numeric bound: the bound, one below, one above, half below.
fn around(bound: &Value) -> Vec<Value> {
    let Some(n) = bound.as_f64() else {
        return Vec::new();
    };
    let mut out = vec![json!(n - 1.0), json!(n + 1.0), json!(n - 0.5)];
    if let Some(i) = bound.as_i64() {
        out.extend([json!(i), json!(i - 1), json!(i + 1)]);
    }
    out
}

/// Sample values for `schema`: the ones it names (enum, const, bounds), lengths at and past
/// its limits, its variants' samples, and junk; for objects, see [`objects`].
fn samples(schema: &Value, depth: usize) -> Vec<Value> {
    let mut out = Vec::new();
    let Some(schema) = schema.as_object() else {
        return junk();
    };
    if let Some(Value::Array(values)) = schema.get("enum") {
        out.extend(values.iter().cloned());
        out.push(json!("not_one_of_them"));
    }
    if let Some(value) = schema.get("const") {
        out.push(value.clone());
    }
    for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
        if let Some(bound) = schema.get(key) {
            out.extend(around(bound));
        }
    }
    for key in ["minLength", "maxLength"] {
        if let Some(n) = schema.get(key).and_then(Value::as_u64) {
            let n = usize::try_from(n).unwrap_or(0).min(5_000);
            out.extend([
                json!("é".repeat(n)),
                json!("a".repeat(n + 1)),
                json!("a".repeat(n.saturating_sub(1))),
            ]);
        }
    }
    for key in ["minItems", "maxItems"] {
        if let Some(n) = schema.get(key).and_then(Value::as_u64) {
            let n = usize::try_from(n).unwrap_or(0).min(50);
            let item = schema
                .get("items")
                .map(|items| first_valid(items, depth))
                .unwrap_or(Value::Null);
            out.extend([
                Value::Array(vec![item.clone(); n]),
                Value::Array(vec![item.clone(); n + 1]),
                Value::Array(vec![item; n.saturating_sub(1)]),
            ]);
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(options)) = schema.get(key) {
            for option in options {
                out.extend(samples(option, depth).into_iter().take(MAX_SAMPLES / 4));
            }
        }
    }
    if let Some(items) = schema.get("items")
        && depth > 0
    {
        for item in samples(items, depth - 1).into_iter().take(MAX_SAMPLES / 2) {
            out.push(Value::Array(vec![item]));
        }
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object)
        && depth > 0
    {
        out.extend(objects(schema, properties, depth - 1));
    }
    out.extend(junk());
    out
}

/// The first sample the validator accepts, or null.
fn first_valid(schema: &Value, depth: usize) -> Value {
    samples(schema, depth.saturating_sub(1))
        .into_iter()
        .find(|v| validate(schema, v).is_ok())
        .unwrap_or(Value::Null)
}

/// Objects for a schema with `properties`: a base with every property set to a value its
/// schema accepts (where one is found), then each property replaced by each of its samples,
/// each key left out, only the required keys, and an unknown key added.
fn objects(
    schema: &Map<String, Value>,
    properties: &Map<String, Value>,
    depth: usize,
) -> Vec<Value> {
    let mut base = Map::new();
    for (key, property) in properties {
        let value = first_valid(property, depth + 1);
        if !value.is_null() || validate(property, &Value::Null).is_ok() {
            base.insert(key.clone(), value);
        }
    }
    let mut out = vec![Value::Object(base.clone())];
    for (key, property) in properties {
        for sample in samples(property, depth).into_iter().take(MAX_SAMPLES) {
            let mut varied = base.clone();
            varied.insert(key.clone(), sample);
            out.push(Value::Object(varied));
        }
        let mut without = base.clone();
        without.remove(key);
        out.push(Value::Object(without));
    }
    if let Some(Value::Array(required)) = schema.get("required") {
        let mut only_required = Map::new();
        for key in required.iter().filter_map(Value::as_str) {
            if let Some(value) = base.get(key) {
                only_required.insert(key.to_owned(), value.clone());
            }
        }
        out.push(Value::Object(only_required));
    }
    let mut extra = base;
    extra.insert("not_an_argument".into(), json!(1));
    out.push(Value::Object(extra));
    out
}

/// Where the two may rightly disagree: JSON Schema counts `1.0` as an integer, the validator
/// does not (serde refuses it for an integer field anyway).
fn known_difference(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(known_difference),
        Value::Object(fields) => fields.values().any(known_difference),
        _ => false,
    }
}

#[test]
fn the_validator_agrees_with_jsonschema_on_every_built_in_tool() {
    let mut checked = 0;
    let mut disagreements = Vec::new();
    for spec in crate::tools::default_tools().specs() {
        let reference = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&spec.parameters)
            .unwrap_or_else(|e| panic!("{}: the schema does not compile: {e}", spec.name));
        let mut accepted = 0;
        for value in samples(&spec.parameters, 3) {
            let ours = validate(&spec.parameters, &value).is_ok();
            let theirs = reference.is_valid(&value);
            accepted += usize::from(theirs);
            checked += 1;
            if ours != theirs && !known_difference(&value) {
                disagreements.push(format!(
                    "{}: ours {ours}, jsonschema {theirs}: {value}",
                    spec.name
                ));
            }
        }
        // The samples reach the valid side of every schema, not only the broken one.
        assert!(accepted > 0, "{}: no sample was valid", spec.name);
    }
    assert!(
        disagreements.is_empty(),
        "{} of {checked} disagree:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(20)].join("\n")
    );
    assert!(checked > 500, "only {checked} samples");
}
