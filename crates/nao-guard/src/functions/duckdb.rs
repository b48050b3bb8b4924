//! DuckDB built-ins: lists, structs and maps, `range`/`generate_series`, regexes, date parts,
//! JSON, the `duckdb_*()` and `pragma_*` introspection table functions.
//!
//! Allowed names are matched unqualified only: DuckDB resolves built-ins from its system catalog,
//! and a `main.`/`system.main.` qualification is rare enough that it stays unknown.
//! File and remote readers (`read_*`, `*_scan`, `parquet_*`, `glob`, `query`, `*_query`) are
//! denied, as are `duckdb_secrets()`/`which_secret()` (credential metadata) and `getenv`.
//! The introspection functions that show the host (`duckdb_databases()` with its file paths,
//! `duckdb_settings()`, `duckdb_memory()` …) are listed here as built-ins and refused by the
//! sensitive catalogue, which a host can lift ([`crate::SensitiveEntry`]).

use crate::FunctionClass::{self, ExecutesSql, FileAccess, SideEffect, Sleep};

/// Denied in DuckDB (and the generic dialects) only: `glob` lists server files here but is a
/// pattern match in SQLite. The rest are DuckDB built-ins that are not in the allowed list, so
/// unknown, but that a policy allowing unknown functions must not let through: they change the
/// instance's settings for every connection (`enable_peg_parser()`, `enable_profiling()` as
/// table functions), write to the log, sleep, or run serialized SQL the guard cannot see.
#[rustfmt::skip]
pub(super) const DENIED: &[(&str, FunctionClass)] = &[
    ("disable_peg_parser", SideEffect),
    ("disable_profiling", SideEffect),
    ("enable_peg_parser", SideEffect),
    ("enable_profiling", SideEffect),
    ("glob", FileAccess),
    ("json_execute_serialized_sql", ExecutesSql),
    ("sleep_ms", Sleep),
    ("write_log", SideEffect),
];

/// Side-effect-free DuckDB built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const DUCKDB: &[&str] = &[
    "acosh", "add", "age", "alias", "any_value", "approx_count_distinct", "approx_quantile",
    "approx_top_k", "arbitrary", "arg_max", "arg_max_null", "arg_min", "arg_min_null", "argmax",
    "argmin", "array_agg", "array_aggr", "array_aggregate", "array_append", "array_apply",
    "array_cat", "array_concat", "array_contains", "array_cosine_distance",
    "array_cosine_similarity", "array_cross_product", "array_distance", "array_distinct",
    "array_dot_product", "array_extract", "array_filter", "array_grade_up", "array_has",
    "array_has_all", "array_has_any", "array_indexof", "array_inner_product", "array_intersect",
    "array_length", "array_negative_inner_product", "array_pop_back", "array_pop_front",
    "array_position", "array_prepend", "array_push_back", "array_push_front", "array_reduce",
    "array_resize", "array_reverse", "array_reverse_sort", "array_select", "array_slice",
    "array_sort", "array_to_json", "array_to_string", "array_transform", "array_unique",
    "array_value", "array_where", "array_zip", "asinh", "atanh", "bar", "base64", "bin", "bit_and",
    "bit_count", "bit_or", "bit_xor", "bitstring_agg", "bool_and", "bool_or", "cardinality",
    "cbrt", "century", "chr", "columns", "constant_or_null", "contains", "cosh", "count_if",
    "count_star", "countif", "current_catalog", "current_database", "current_localtime",
    "current_localtimestamp", "current_query", "current_schemas", "current_setting", "currval",
    "damerau_levenshtein", "date", "date_add", "date_diff", "date_part", "date_sub", "date_trunc",
    "datediff", "datepart", "datesub", "datetrunc", "day", "dayname", "dayofmonth", "dayofweek",
    "dayofyear", "decade", "divide", "duckdb_columns", "duckdb_constraints", "duckdb_databases",
    "duckdb_dependencies", "duckdb_extensions", "duckdb_external_file_cache", "duckdb_functions",
    "duckdb_indexes", "duckdb_keywords", "duckdb_logs", "duckdb_logs_parsed", "duckdb_memory",
    "duckdb_optimizers", "duckdb_prepared_statements", "duckdb_schemas", "duckdb_sequences",
    "duckdb_settings", "duckdb_tables", "duckdb_temporary_files", "duckdb_types",
    "duckdb_variables", "duckdb_views", "editdist3", "element_at", "ends_with", "entropy", "epoch",
    "epoch_ms", "epoch_ns", "epoch_us", "era", "error", "even", "factorial", "favg", "fdiv",
    "fill", "first", "flatten", "fmod", "format", "format_bytes", "formatreadabledecimalsize",
    "formatreadablesize", "from_base64", "from_binary", "from_hex", "from_json",
    "from_json_strict", "fsum", "gamma", "gcd", "gen_random_uuid", "generate_series", "geomean",
    "geometric_mean", "get_current_time", "get_current_timestamp", "getvariable",
    "greatest_common_divisor", "group_concat", "hamming", "hash", "hex", "histogram",
    "histogram_exact", "hour", "if", "ifnull", "iif", "ilike_escape", "initcap", "instr",
    "isfinite", "isinf", "isnan", "isodow", "isoyear", "jaccard", "jaro_similarity",
    "jaro_winkler_similarity", "json", "json_array", "json_array_length", "json_contains",
    "json_deserialize_sql", "json_each", "json_exists", "json_extract", "json_extract_path",
    "json_extract_path_text", "json_extract_string", "json_group_array", "json_group_object",
    "json_group_structure", "json_keys", "json_merge_patch", "json_object", "json_pretty",
    "json_quote", "json_serialize_sql", "json_structure", "json_transform",
    "json_transform_strict", "json_tree", "json_type", "json_valid", "json_value", "julian",
    "kahan_sum", "kurtosis", "kurtosis_pop", "last", "last_day", "lcase", "lcm",
    "least_common_multiple", "left", "left_grapheme", "len", "length_grapheme", "levenshtein",
    "lgamma", "like_escape", "list", "list_aggr", "list_aggregate", "list_any_value",
    "list_append", "list_apply", "list_approx_count_distinct", "list_avg", "list_bit_and",
    "list_bit_or", "list_bit_xor", "list_bool_and", "list_bool_or", "list_cat", "list_concat",
    "list_contains", "list_cosine_similarity", "list_count", "list_distance", "list_distinct",
    "list_dot_product", "list_element", "list_entropy", "list_extract", "list_filter",
    "list_first", "list_grade_up", "list_has", "list_has_all", "list_has_any", "list_histogram",
    "list_indexof", "list_inner_product", "list_intersect", "list_kurtosis", "list_last",
    "list_mad", "list_max", "list_median", "list_min", "list_mode", "list_pack", "list_position",
    "list_prepend", "list_product", "list_reduce", "list_resize", "list_reverse",
    "list_reverse_sort", "list_select", "list_sem", "list_skewness", "list_slice", "list_sort",
    "list_stddev_pop", "list_stddev_samp", "list_string_agg", "list_sum", "list_transform",
    "list_unique", "list_value", "list_var_pop", "list_var_samp", "list_where", "list_zip",
    "listagg", "log2", "mad", "make_date", "make_time", "make_timestamp", "make_timestamp_ns",
    "make_timestamptz", "map", "map_concat", "map_contains", "map_contains_key",
    "map_contains_value", "map_entries", "map_extract", "map_extract_value", "map_from_entries",
    "map_keys", "map_values", "max_by", "md5_number", "median", "microsecond", "millennium",
    "millisecond", "min_by", "minute", "mismatches", "mode", "month", "monthname", "multiply",
    "nanosecond", "nextafter", "nfc_normalize", "not_ilike_escape", "not_like_escape", "now",
    "nvl", "ord", "parse_dirname", "parse_dirpath", "parse_filename", "parse_path", "pg_typeof",
    "pow", "pragma_database_size", "pragma_platform", "pragma_show", "pragma_storage_info",
    "pragma_table_info", "pragma_version", "prefix", "printf", "product", "quantile",
    "quantile_cont", "quantile_disc", "quarter", "random", "range", "regexp_escape",
    "regexp_extract", "regexp_extract_all", "regexp_full_match", "regexp_matches",
    "regexp_replace", "regexp_split_to_array", "regexp_split_to_table", "reservoir_quantile",
    "right", "right_grapheme", "round_even", "roundbankers", "row_to_json", "second", "sem",
    "sha1", "sha256", "signbit", "sinh", "skewness", "split", "split_part", "starts_with", "stats",
    "str_split", "str_split_regex", "strftime", "string_agg", "string_split", "string_split_regex",
    "string_to_array", "strip_accents", "strlen", "strpos", "strptime", "struct_concat",
    "struct_extract", "struct_insert", "struct_pack", "substring_grapheme", "subtract", "suffix",
    "sum_no_overflow", "sumkahan", "tanh", "time_bucket", "timezone", "timezone_hour",
    "timezone_minute", "to_base64", "to_binary", "to_centuries", "to_days", "to_decades", "to_hex",
    "to_hours", "to_json", "to_microseconds", "to_millennia", "to_milliseconds", "to_minutes",
    "to_months", "to_quarters", "to_seconds", "to_timestamp", "to_weeks", "to_years", "today",
    "transaction_timestamp", "try_strptime", "typeof", "ucase", "unhex", "unicode",
    "union_extract", "union_tag", "union_value", "unnest", "unpivot_list", "url_decode",
    "url_encode", "uuid", "uuidv4", "uuidv7", "version", "wavg", "week", "weekday", "weekofyear",
    "weighted_avg", "xor", "year", "yearweek",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::DuckDb;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "range",
            "list_transform",
            "struct_pack",
            "strftime",
            "epoch_ms",
            "regexp_matches",
            "unnest",
            "generate_series",
            "arg_max",
            "duckdb_tables",
            "current_setting",
        ] {
            assert_eq!(verdict(DuckDb, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("read_csv_auto", FileAccess),
            ("read_parquet", FileAccess),
            ("parquet_scan", FileAccess),
            ("parquet_metadata", FileAccess),
            ("read_json_objects", FileAccess),
            ("glob", FileAccess),
            ("postgres_scan", Network),
            ("delta_scan", FileAccess),
            ("iceberg_scan", FileAccess),
            ("postgres_query", ExecutesSql),
            ("query", ExecutesSql),
            ("query_table", ExecutesSql),
            ("getenv", FileAccess),
            ("setseed", SideEffect),
            ("nextval", SideEffect),
            ("st_read", FileAccess),
            ("duckdb_secrets", Administrative),
            ("sqlite_attach", Administrative),
        ] {
            assert_eq!(verdict(DuckDb, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["main.upper", "my_macro"] {
            assert_eq!(verdict(DuckDb, name), Unknown, "{name}");
        }
    }
}
