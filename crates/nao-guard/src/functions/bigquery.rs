//! BigQuery (GoogleSQL) built-ins, including `SAFE.`-prefixed calls (`SAFE.PARSE_DATE`) and the
//! namespaced families `AEAD.`, `HLL_COUNT.`, `KEYS.` (the pure keyset functions; the KMS-backed
//! wrapped keysets stay unknown), `KLL_QUANTILES.` and `NET.`. `EXTERNAL_QUERY` is denied.

/// The `aead.` function family.
#[rustfmt::skip]
const AEAD: &[&str] = &[
    "decrypt_bytes", "decrypt_string", "encrypt",
];

/// The `hll_count.` function family.
#[rustfmt::skip]
const HLL_COUNT: &[&str] = &[
    "extract", "init", "merge", "merge_partial",
];

/// The `keys.` function family.
#[rustfmt::skip]
const KEYS: &[&str] = &[
    "add_key_from_raw_bytes", "keyset_from_json", "keyset_length", "keyset_to_json", "new_keyset",
    "rotate_keyset",
];

/// The `kll_quantiles.` function family.
#[rustfmt::skip]
const KLL_QUANTILES: &[&str] = &[
    "extract_double", "extract_int64", "extract_point_double", "extract_point_int64",
    "init_double", "init_int64", "merge_double", "merge_int64", "merge_partial",
    "merge_point_double", "merge_point_int64",
];

/// The `net.` function family.
#[rustfmt::skip]
const NET: &[&str] = &[
    "host", "ip_from_string", "ip_net_mask", "ip_to_string", "ip_trunc", "ipv4_from_int64",
    "ipv4_to_int64", "public_suffix", "reg_domain", "safe_ip_from_string",
];

/// BigQuery's namespaced function families (`NET.HOST`, `HLL_COUNT.MERGE` …), sorted by
/// namespace; each list is lower case and sorted.
pub(super) const FAMILIES: &[(&str, &[&str])] = &[
    ("aead", AEAD),
    ("hll_count", HLL_COUNT),
    ("keys", KEYS),
    ("kll_quantiles", KLL_QUANTILES),
    ("net", NET),
];

/// Side-effect-free BigQuery built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const BIGQUERY: &[&str] = &[
    "acosh", "any_value", "approx_count_distinct", "approx_quantiles", "approx_top_count",
    "approx_top_sum", "array", "array_agg", "array_avg", "array_concat", "array_concat_agg",
    "array_filter", "array_first", "array_includes", "array_includes_all", "array_includes_any",
    "array_is_distinct", "array_last", "array_length", "array_max", "array_min", "array_reverse",
    "array_slice", "array_sum", "array_to_string", "array_transform", "asinh", "atanh", "bit_and",
    "bit_or", "bit_xor", "bool", "byte_length", "cbrt", "chr", "code_points_to_bytes",
    "code_points_to_string", "collate", "contains_substr", "cosh", "cosine_distance", "coth",
    "countif", "csc", "csch", "current_datetime", "date", "date_add", "date_bucket", "date_diff",
    "date_from_unix_date", "date_sub", "date_trunc", "datetime", "datetime_add", "datetime_bucket",
    "datetime_diff", "datetime_sub", "datetime_trunc", "deterministic_decrypt_bytes",
    "deterministic_decrypt_string", "deterministic_encrypt", "div", "edit_distance", "ends_with",
    "error", "euclidean_distance", "farm_fingerprint", "float64", "format", "format_date",
    "format_datetime", "format_time", "format_timestamp", "from_base32", "from_base64", "from_hex",
    "gap_fill", "generate_array", "generate_date_array", "generate_range_array",
    "generate_timestamp_array", "generate_uuid", "ieee_divide", "if", "iferror", "ifnull",
    "initcap", "instr", "int64", "is_inf", "is_nan", "iserror", "json_array", "json_array_append",
    "json_array_insert", "json_extract", "json_extract_array", "json_extract_scalar",
    "json_extract_string_array", "json_keys", "json_object", "json_query", "json_query_array",
    "json_remove", "json_set", "json_strip_nulls", "json_type", "json_value", "json_value_array",
    "justify_days", "justify_hours", "justify_interval", "last_day", "lax_bool", "lax_float64",
    "lax_int64", "lax_string", "left", "logical_and", "logical_or", "make_interval", "max_by",
    "min_by", "normalize_and_casefold", "nullifzero", "offset", "ordinal", "parse_date",
    "parse_datetime", "parse_json", "parse_time", "parse_timestamp", "pow", "rand", "range",
    "range_bucket", "range_contains", "range_end", "range_intersect", "range_overlaps",
    "range_sessionize", "range_start", "regexp_contains", "regexp_extract", "regexp_extract_all",
    "regexp_instr", "regexp_replace", "regexp_substr", "right", "safe_add",
    "safe_convert_bytes_to_string", "safe_divide", "safe_multiply", "safe_negate", "safe_offset",
    "safe_ordinal", "safe_subtract", "sec", "sech", "sha1", "sha256", "sha512", "sinh", "soundex",
    "split", "st_angle", "st_boundingbox", "st_geogfromgeojson", "st_geogfromwkb", "st_geogpoint",
    "st_geogpointfromgeohash", "st_iscollection", "st_union_agg", "starts_with", "string",
    "string_agg", "strpos", "struct", "tanh", "time", "time_add", "time_diff", "time_sub",
    "time_trunc", "timestamp", "timestamp_add", "timestamp_bucket", "timestamp_diff",
    "timestamp_micros", "timestamp_millis", "timestamp_seconds", "timestamp_sub",
    "timestamp_trunc", "to_base32", "to_base64", "to_code_points", "to_hex", "to_json",
    "to_json_string", "unicode", "unix_date", "unix_micros", "unix_millis", "unix_seconds",
    "unnest", "zeroifnull",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::BigQuery;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "SAFE.PARSE_DATE",
            "safe_divide",
            "format_date",
            "date_diff",
            "generate_date_array",
            "array_to_string",
            "NET.HOST",
            "hll_count.merge",
            "SAFE.NET.IP_FROM_STRING",
            "countif",
            "safe.sum",
        ] {
            assert_eq!(verdict(BigQuery, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("external_query", ExecutesSql),
            ("SAFE.EXTERNAL_QUERY", ExecutesSql),
        ] {
            assert_eq!(verdict(BigQuery, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in [
            "my_udf",
            "net.my_udf",
            "dataset.parse_date",
            "safe.safe.parse_date",
            "host",
        ] {
            assert_eq!(verdict(BigQuery, name), Unknown, "{name}");
        }
    }
}
