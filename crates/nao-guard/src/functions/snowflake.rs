//! Snowflake built-ins: `iff`, `div0`, the `to_*`/`try_to_*` conversions, `*_from_parts`,
//! semi-structured helpers, `flatten`/`split_to_table`/`generator` table functions, sketches.
//!
//! Snowflake folds unquoted identifiers to upper case, so a quoted name only names the built-in
//! when written in upper case (`"IFF"`); `"iff"` is a different, user-defined function.
//! Every `SYSTEM$…` function is denied: many administer the account or have side effects, and the
//! few read-only ones are not analyst SQL. External functions cannot be known: they stay unknown.

/// Side-effect-free Snowflake built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const SNOWFLAKE: &[&str] = &[
    "acosh", "add_months", "any_value", "approx_count_distinct", "approx_percentile",
    "approx_percentile_accumulate", "approx_percentile_combine", "approx_percentile_estimate",
    "approx_top_k", "approx_top_k_accumulate", "approx_top_k_combine", "approx_top_k_estimate",
    "approximate_jaccard_index", "approximate_similarity", "array_agg", "array_append",
    "array_cat", "array_compact", "array_construct", "array_construct_compact", "array_contains",
    "array_distinct", "array_except", "array_flatten", "array_generate_range", "array_insert",
    "array_intersection", "array_max", "array_min", "array_position", "array_prepend",
    "array_remove", "array_remove_at", "array_reverse", "array_size", "array_slice", "array_sort",
    "array_sum", "array_to_string", "array_union", "array_union_agg", "array_unique_agg",
    "arrays_overlap", "arrays_to_object", "arrays_zip", "as_array", "as_binary", "as_boolean",
    "as_char", "as_date", "as_decimal", "as_double", "as_integer", "as_number", "as_object",
    "as_timestamp_ltz", "as_timestamp_ntz", "as_timestamp_tz", "as_varchar", "asinh", "atanh",
    "base64_decode_binary", "base64_decode_string", "base64_encode", "bitand", "bitand_agg",
    "bitnot", "bitor", "bitor_agg", "bitshiftleft", "bitshiftright", "bitxor", "bitxor_agg",
    "booland_agg", "boolor_agg", "boolxor_agg", "cbrt", "char", "charindex", "check_json",
    "check_xml", "chr", "classifier",
    "collate", "collation", "compress", "conditional_change_event",
    "conditional_true_event", "contains", "convert_timezone", "cosh", "count_if",
    "current_account", "current_account_name", "current_available_roles", "current_client",
    "current_database", "current_ip_address", "current_organization_name", "current_region",
    "current_secondary_roles", "current_session", "current_statement", "current_transaction",
    "current_version", "current_warehouse", "date", "date_from_parts", "date_part", "date_trunc",
    "dateadd", "datediff", "datefromparts", "day", "dayname", "dayofmonth", "dayofweek",
    "dayofweekiso", "dayofyear", "decode", "decompress_binary", "decompress_string", "decrypt",
    "decrypt_raw", "div0", "div0null", "editdistance", "encrypt", "encrypt_raw", "endswith",
    "equal_null", "factorial", "first", "flatten", "generator", "get", "get_ddl", "get_ignore_case",
    "get_path", "getdate", "greatest_ignore_nulls", "hash", "hash_agg", "haversine",
    "hex_decode_binary", "hex_decode_string", "hex_encode", "hll", "hll_accumulate", "hll_combine",
    "hll_estimate", "hour", "iff", "ifnull", "ilike", "initcap", "insert", "invoker_role",
    "invoker_share", "is_array", "is_boolean", "is_char", "is_date", "is_decimal", "is_double",
    "is_integer", "is_null_value", "is_object", "is_real", "is_role_in_session", "is_time",
    "is_timestamp_ltz", "is_timestamp_ntz", "is_timestamp_tz", "is_varchar",
    "jarowinkler_similarity", "json_extract_path_text", "kurtosis",
    "last", "last_day", "last_query_id",
    "last_transaction", "least_ignore_nulls", "left", "len",
    "like", "listagg", "match_number", "max_by",
    "md5_binary", "md5_hex", "md5_number_lower64", "md5_number_upper64", "median", "min_by",
    "minhash", "minute", "mode", "month",
    "monthname", "months_between", "next", "next_day", "normal",
    "nullifzero", "nvl", "nvl2", "object_agg", "object_construct", "object_construct_keep_null",
    "object_delete", "object_insert", "object_keys", "object_pick", "parse_ip", "parse_json",
    "parse_url", "parse_xml", "pow", "prev", "previous_day", "quarter", "random", "randstr",
    "ratio_to_report", "regexp_count", "regexp_instr", "regexp_like", "regexp_replace",
    "regexp_substr", "regexp_substr_all", "right", "rlike", "second", "seq1", "seq2", "seq4",
    "seq8", "sha1", "sha1_hex", "sha2", "sha2_hex", "sinh", "skew", "soundex", "soundex_p123",
    "space", "split", "split_part", "split_to_table", "square", "startswith", "strip_null_value",
    "strtok", "strtok_split_to_table", "strtok_to_array", "sysdate", "systimestamp", "tanh",
    "time_from_parts", "time_slice", "timeadd", "timediff", "timefromparts",
    "timestamp_from_parts", "timestamp_ltz_from_parts", "timestamp_ntz_from_parts",
    "timestamp_tz_from_parts", "timestampadd", "timestampdiff", "to_array", "to_binary",
    "to_boolean", "to_char", "to_date", "to_decimal", "to_double", "to_geography", "to_geometry",
    "to_json", "to_number", "to_numeric", "to_object", "to_time", "to_timestamp",
    "to_timestamp_ltz", "to_timestamp_ntz", "to_timestamp_tz", "to_varchar", "to_variant",
    "truncate", "try_base64_decode_binary", "try_base64_decode_string", "try_cast", "try_decrypt",
    "try_decrypt_raw", "try_hex_decode_binary", "try_hex_decode_string", "try_parse_json",
    "try_to_binary", "try_to_boolean", "try_to_date", "try_to_decimal", "try_to_double",
    "try_to_number", "try_to_numeric", "try_to_time", "try_to_timestamp", "try_to_timestamp_ltz",
    "try_to_timestamp_ntz", "try_to_timestamp_tz", "typeof", "unicode", "uniform", "uuid_string",
    "variance_pop", "variance_samp", "week", "weekiso", "weekofyear", "width_bucket", "xmlget",
    "year", "yearofweek", "yearofweekiso", "zeroifnull", "zipf",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Snowflake;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "iff",
            "div0",
            "to_varchar",
            "listagg",
            "flatten",
            "date_from_parts",
            "dateadd",
            "IFF",
            "\"IFF\"",
            "parse_json",
            "last_query_id",
        ] {
            assert_eq!(verdict(Snowflake, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("system$wait", Sleep),
            ("SYSTEM$CANCEL_ALL_QUERIES", Administrative),
            ("seq1.nextval", SideEffect),
            ("result_scan", FileAccess),
            ("get_presigned_url", FileAccess),
        ] {
            assert_eq!(verdict(Snowflake, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["\"iff\"", "my_db.my_schema.my_udf"] {
            assert_eq!(verdict(Snowflake, name), Unknown, "{name}");
        }
    }
}
