//! Trino, Presto and Athena built-ins: lambdas over arrays and maps, `approx_*` sketches,
//! `date_diff`/`date_add`, URL and binary helpers, `unnest`/`sequence`/`exclude_columns`.
//!
//! The `query`/`raw_query` pass-through table functions run SQL the guard cannot see and are
//! denied; `exclude_columns` only projects its table argument and is allowed.

/// Side-effect-free Trino built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const TRINO: &[&str] = &[
    "all_match", "any_match", "any_value", "approx_distinct", "approx_most_frequent",
    "approx_percentile", "approx_set", "arbitrary", "array_agg", "array_distinct", "array_except",
    "array_histogram", "array_intersect", "array_join", "array_max", "array_min", "array_position",
    "array_remove", "array_sort", "array_union", "arrays_overlap", "at_timezone", "beta_cdf",
    "bit_count", "bitwise_and", "bitwise_and_agg", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_or_agg", "bitwise_right_shift", "bitwise_right_shift_arithmetic",
    "bitwise_xor", "bitwise_xor_agg", "bool_and", "bool_or", "cardinality", "cbrt", "checksum",
    "chr", "codepoint", "combinations", "contains", "contains_sequence", "cosh", "cosine_distance",
    "cosine_similarity", "count_if", "crc32", "current_catalog", "current_groups",
    "current_timezone", "date", "date_add", "date_diff", "date_format", "date_parse", "date_trunc",
    "day", "day_of_month", "day_of_week", "day_of_year", "dot_product", "dow", "doy", "e",
    "element_at", "empty_approx_set", "euclidean_distance", "every", "exclude_columns", "filter",
    "flatten", "format", "format_datetime", "format_number", "from_base", "from_base32",
    "from_base64", "from_base64url", "from_big_endian_32", "from_big_endian_64",
    "from_geojson_geometry", "from_hex", "from_ieee754_32", "from_ieee754_64", "from_iso8601_date",
    "from_iso8601_timestamp", "from_iso8601_timestamp_nanos", "from_unixtime",
    "from_unixtime_nanos", "from_utf8", "geometric_mean", "great_circle_distance",
    "hamming_distance", "histogram", "hmac_md5", "hmac_sha1", "hmac_sha256", "hmac_sha512", "hour",
    "human_readable_seconds", "if", "infinity", "inverse_beta_cdf", "inverse_normal_cdf",
    "is_finite", "is_infinite", "is_json_scalar", "is_nan", "json_array", "json_array_contains",
    "json_array_get", "json_array_length", "json_exists", "json_extract", "json_extract_scalar",
    "json_format", "json_object", "json_parse", "json_query", "json_size", "json_value",
    "kurtosis", "last_day_of_month", "levenshtein_distance", "listagg", "log2", "luhn_check",
    "map", "map_agg", "map_concat", "map_entries", "map_filter", "map_from_entries", "map_keys",
    "map_union", "map_values", "map_zip_with", "max_by", "merge", "millisecond", "min_by",
    "minute", "month", "multimap_agg", "multimap_from_entries", "murmur3", "nan", "ngrams",
    "none_match", "normal_cdf", "now", "numeric_histogram", "parse_datetime", "parse_duration",
    "pow", "qdigest_agg", "quarter", "rand", "random", "reduce", "reduce_agg", "regexp_count",
    "regexp_extract", "regexp_extract_all", "regexp_like", "regexp_position", "regexp_replace",
    "regexp_split", "second", "sequence", "set_agg", "set_union", "sha1", "sha256", "sha512",
    "shuffle", "sinh", "skewness", "slice", "split", "split_part", "split_to_map",
    "split_to_multimap", "spooky_hash_v2_32", "spooky_hash_v2_64", "starts_with", "strpos", "tanh",
    "tdigest_agg", "timezone", "timezone_hour", "timezone_minute", "to_base", "to_base32",
    "to_base64", "to_base64url", "to_big_endian_32", "to_big_endian_64", "to_geojson_geometry",
    "to_geometry", "to_hex", "to_ieee754_32", "to_ieee754_64", "to_iso8601", "to_milliseconds",
    "to_spherical_geography", "to_unixtime", "to_utf8", "transform", "transform_keys",
    "transform_values", "trim_array", "truncate", "try", "try_cast", "typeof", "unnest",
    "url_decode", "url_encode", "url_extract_fragment", "url_extract_host",
    "url_extract_parameter", "url_extract_path", "url_extract_port", "url_extract_protocol",
    "url_extract_query", "uuid", "version", "week", "week_of_year", "width_bucket",
    "wilson_interval_lower", "wilson_interval_upper", "with_timezone", "word_stem", "xxhash64",
    "year", "year_of_week", "yow", "zip", "zip_with",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Trino;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "date_diff",
            "date_add",
            "approx_distinct",
            "element_at",
            "transform",
            "filter",
            "reduce",
            "sequence",
            "map_agg",
            "merge",
            "url_extract_query",
            "exclude_columns",
        ] {
            assert_eq!(verdict(Trino, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("query", ExecutesSql),
            ("system.query", ExecutesSql),
            ("raw_query", ExecutesSql),
        ] {
            assert_eq!(verdict(Trino, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["system.builtin.upper", "my_udf"] {
            assert_eq!(verdict(Trino, name), Unknown, "{name}");
        }
    }
}
