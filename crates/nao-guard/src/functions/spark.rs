//! Apache Spark SQL, Databricks SQL and Hive built-ins: collections and higher-order functions,
//! `explode`/`posexplode`/`inline`/`stack` generators, JSON/CSV/XML/variant helpers, masking.
//!
//! `input_file_name()` only reports which file the current row came from and `assert_true`/
//! `raise_error` only fail the query: allowed. `reflect`/`java_method` call arbitrary JVM
//! methods, Hive `in_file` reads a server file, Databricks `read_files`/`read_kafka`,
//! `http_request`, `secret` and the `ai_*` model calls are denied.

/// Side-effect-free Spark/Databricks/Hive built-ins beyond [`super::common::COMMON`] (lower case,
/// sorted).
#[rustfmt::skip]
pub(super) const SPARK: &[&str] = &[
    "acosh", "add_months", "aes_decrypt", "aes_encrypt", "aggregate", "any", "any_value",
    "approx_count_distinct", "approx_percentile", "array", "array_agg", "array_append",
    "array_compact", "array_contains", "array_distinct", "array_except", "array_insert",
    "array_intersect", "array_join", "array_max", "array_min", "array_position", "array_prepend",
    "array_remove", "array_repeat", "array_size", "array_sort", "array_union", "arrays_overlap",
    "arrays_zip", "asinh", "assert_true", "atanh", "base64", "bigint", "bin", "binary", "bit_and",
    "bit_count", "bit_get", "bit_or", "bit_xor", "bitmap_bit_position", "bitmap_bucket_number",
    "bitmap_construct_agg", "bitmap_count", "bitmap_or_agg", "bool_and", "bool_or", "boolean",
    "bround", "btrim", "cardinality", "cbrt", "char", "chr", "collation", "collect_list",
    "collect_set", "contains", "context_ngrams", "conv", "convert_timezone", "cosh", "count_if",
    "count_min_sketch", "crc32", "csc", "curdate", "current_catalog", "current_database",
    "current_groups", "current_metastore", "current_timezone", "current_version", "date",
    "date_add", "date_diff", "date_format", "date_from_unix_date", "date_part", "date_sub",
    "date_trunc", "dateadd", "datediff", "datepart", "day", "dayname", "dayofmonth", "dayofweek",
    "dayofyear", "decimal", "decode", "div", "double", "e", "element_at", "elt", "encode",
    "endswith", "equal_null", "every", "exists", "explode", "explode_outer", "expm1", "factorial",
    "filter", "find_in_set", "first", "flatten", "float", "forall", "format_number",
    "format_string", "from_csv", "from_json", "from_unixtime", "from_utc_timestamp", "from_xml",
    "get", "get_json_object", "getbit", "grouping_id", "hash", "hex", "histogram_numeric",
    "hll_sketch_agg", "hll_sketch_estimate", "hll_union", "hll_union_agg", "hour", "hypot", "if",
    "iff", "ifnull", "ilike", "initcap", "inline", "inline_outer", "input_file_block_length",
    "input_file_block_start", "input_file_name", "instr", "int", "is_account_group_member",
    "is_member", "is_valid_utf8", "is_variant_null", "isnan", "isnotnull", "isnull",
    "json_array_length", "json_object_keys", "json_tuple", "kurtosis", "last", "last_day", "lcase",
    "left", "len", "levenshtein", "like", "listagg", "locate", "log1p", "log2", "logged_in_user",
    "luhn_check", "make_date", "make_dt_interval", "make_interval", "make_timestamp",
    "make_timestamp_ltz", "make_timestamp_ntz", "make_valid_utf8", "make_ym_interval", "map",
    "map_concat", "map_contains_key", "map_entries", "map_filter", "map_from_arrays",
    "map_from_entries", "map_keys", "map_values", "map_zip_with", "mask", "mask_first_n",
    "mask_hash", "mask_last_n", "mask_show_first_n", "mask_show_last_n", "max_by", "mean",
    "median", "min_by", "minute", "mode", "monotonically_increasing_id", "month", "monthname",
    "months_between", "named_struct", "nanvl", "negative", "next_day", "ngrams", "now",
    "nullifzero", "nvl", "nvl2", "parse_json", "parse_url", "parse_url_tuple", "percentile",
    "percentile_approx", "pmod", "posexplode", "posexplode_outer", "positive", "pow", "printf",
    "quarter", "quote", "raise_error", "rand", "randn", "random", "randstr", "range", "reduce",
    "regexp", "regexp_count", "regexp_extract", "regexp_extract_all", "regexp_instr",
    "regexp_like", "regexp_replace", "regexp_substr", "right", "rint", "rlike", "schema_of_csv",
    "schema_of_json", "schema_of_variant", "schema_of_variant_agg", "schema_of_xml", "sec",
    "second", "sentences", "sequence", "session_window", "sha", "sha1", "sha2", "shiftleft",
    "shiftright", "shiftrightunsigned", "shuffle", "signum", "sinh", "size", "skewness", "slice",
    "smallint", "some", "sort_array", "soundex", "space", "spark_partition_id", "split",
    "split_part", "stack", "startswith", "std", "str_to_map", "string", "string_agg", "struct",
    "substring_index", "tanh", "timestamp", "timestamp_micros", "timestamp_millis",
    "timestamp_seconds", "timestampadd", "timestampdiff", "tinyint", "to_binary", "to_char",
    "to_csv", "to_date", "to_json", "to_number", "to_timestamp", "to_timestamp_ltz",
    "to_timestamp_ntz", "to_unix_timestamp", "to_utc_timestamp", "to_varchar", "to_variant_object",
    "to_xml", "transform", "transform_keys", "transform_values", "try_add", "try_aes_decrypt",
    "try_avg", "try_cast", "try_divide", "try_mod", "try_multiply", "try_parse_json",
    "try_subtract", "try_sum", "try_to_binary", "try_to_number", "try_to_timestamp",
    "try_url_decode", "try_validate_utf8", "try_variant_get", "typeof", "ucase", "unbase64",
    "unhex", "uniform", "unix_date", "unix_micros", "unix_millis", "unix_seconds",
    "unix_timestamp", "url_decode", "url_encode", "user", "uuid", "validate_utf8",
    "variant_explode", "variant_explode_outer", "variant_get", "version", "weekday", "weekofyear",
    "width_bucket", "window", "window_time", "xpath", "xpath_boolean", "xpath_double",
    "xpath_float", "xpath_int", "xpath_long", "xpath_number", "xpath_short", "xpath_string",
    "xxhash64", "year", "zeroifnull", "zip_with",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Databricks;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "collect_list",
            "explode",
            "get_json_object",
            "date_format",
            "input_file_name",
            "assert_true",
            "nvl",
            "transform",
            "percentile_approx",
        ] {
            assert_eq!(verdict(Databricks, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("reflect", ExecutesSql),
            ("java_method", ExecutesSql),
            ("in_file", FileAccess),
            ("read_files", FileAccess),
            ("ai_query", Network),
            ("http_request", Network),
            ("secret", Administrative),
        ] {
            assert_eq!(verdict(Databricks, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["my_catalog.my_schema.my_udf", "my_udf"] {
            assert_eq!(verdict(Databricks, name), Unknown, "{name}");
        }
    }
}
