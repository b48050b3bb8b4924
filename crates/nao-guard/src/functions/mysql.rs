//! MySQL and MariaDB built-ins (and the MySQL-compatible StarRocks, Doris and TiDB): string,
//! date/time, JSON, encryption and hashing, and read-only session information.
//!
//! Denied by name (see `denied.rs`): `SLEEP`, `BENCHMARK`, `LOAD_FILE`, the user-level lock
//! functions (including the `IS_FREE_LOCK`/`IS_USED_LOCK` probes, which only make sense next to
//! them), replication waits, and `LAST_INSERT_ID`, whose one-argument form sets session state
//! (the catalogue sees names, not arguments, so both forms are denied).

/// Side-effect-free MySQL/MariaDB built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const MYSQL: &[&str] = &[
    "add_months", "adddate", "addtime", "aes_decrypt", "aes_encrypt", "any_value",
    "approx_count_distinct", "array_agg", "array_contains", "array_distinct", "array_join",
    "array_length", "array_slice", "array_sort", "bin", "bin_to_uuid", "binary", "bit_and",
    "bit_count", "bit_or", "bit_xor", "bitmap_count", "bitmap_union", "bitmap_union_count", "char",
    "charset", "coercibility", "collation", "column_check", "column_create", "column_exists",
    "column_get", "column_json", "column_list", "compress", "connection_id", "conv", "convert",
    "convert_tz", "crc32", "curdate", "curtime", "database", "date", "date_add", "date_format",
    "date_sub", "date_trunc", "datediff", "day", "dayname", "dayofmonth", "dayofweek", "dayofyear",
    "days_add", "days_diff", "days_sub", "div", "elt", "ends_with", "export_set", "field",
    "find_in_set", "format", "format_bytes", "format_pico_time", "found_rows", "from_base64",
    "from_days", "from_unixtime", "get_format", "group_concat", "gtid_subset", "gtid_subtract",
    "hex", "hll_cardinality", "hll_union_agg", "hour", "hours_add", "hours_diff", "hours_sub",
    "icu_version", "if", "ifnull", "inet6_aton", "inet6_ntoa", "inet_aton", "inet_ntoa", "insert",
    "instr", "interval", "is_ipv4", "is_ipv4_compat", "is_ipv4_mapped", "is_ipv6", "is_uuid",
    "isnull", "json_array", "json_array_append", "json_array_insert", "json_array_intersect",
    "json_arrayagg", "json_compact", "json_contains", "json_contains_path", "json_depth",
    "json_detailed", "json_equals", "json_exists", "json_extract", "json_insert", "json_key_value",
    "json_keys", "json_length", "json_loose", "json_merge", "json_merge_patch",
    "json_merge_preserve", "json_normalize", "json_object", "json_object_filter_keys",
    "json_object_to_array", "json_objectagg", "json_overlaps", "json_pretty", "json_query",
    "json_quote", "json_remove", "json_replace", "json_schema_valid",
    "json_schema_validation_report", "json_search", "json_set", "json_storage_free",
    "json_storage_size", "json_table", "json_type", "json_unquote", "json_valid", "json_value",
    "last_day", "lastval", "lcase", "left", "locate", "log2", "make_set", "makedate", "maketime",
    "median", "member_of", "microsecond", "mid", "minute", "minutes_add", "minutes_diff", "month",
    "monthname", "months_add", "months_diff", "months_sub", "name_const", "natural_sort_key",
    "ndv", "now", "nvl", "nvl2", "oct", "ord", "percentile_approx", "period_add", "period_diff",
    "pow", "ps_current_thread_id", "ps_thread_id", "quarter", "quote", "rand", "random_bytes",
    "regexp", "regexp_instr", "regexp_like", "regexp_replace", "regexp_substr", "right", "rlike",
    "roles_graphml", "row_count", "schema", "sec_to_time", "second", "seconds_add", "seconds_diff",
    "sformat", "sha", "sha1", "sha2", "soundex", "space", "split", "split_part", "st_aswkb",
    "st_aswkt", "st_distance_sphere", "st_geomfromwkt", "st_latitude", "st_longitude",
    "starts_with", "statement_digest", "statement_digest_text", "std", "str2date", "str_to_date",
    "str_to_map", "strcmp", "subdate", "substring_index", "subtime", "sys_guid", "sysdate",
    "system_user", "time", "time_format", "time_slice", "time_to_sec", "timediff", "timestamp",
    "timestampadd", "timestampdiff", "to_base64", "to_char", "to_date", "to_days", "to_seconds",
    "truncate", "ucase", "uncompress", "uncompressed_length", "unhex", "unix_timestamp", "user",
    "utc_date", "utc_time", "utc_timestamp", "uuid", "uuid_short", "uuid_to_bin", "version",
    "week", "weekday", "weekofyear", "weeks_add", "weeks_diff", "weeks_sub", "weight_string",
    "year", "years_add", "years_diff", "years_sub", "yearweek",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::MySql;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "group_concat",
            "date_format",
            "json_extract",
            "ifnull",
            "if",
            "database",
            "str_to_date",
            "unix_timestamp",
            "DATE_ADD",
        ] {
            assert_eq!(verdict(MySql, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("SLEEP", Sleep),
            ("benchmark", Sleep),
            ("load_file", FileAccess),
            ("get_lock", Lock),
            ("release_all_locks", Lock),
            ("is_free_lock", Lock),
            ("master_pos_wait", Sleep),
            ("sys_exec", ExecutesSql),
            ("last_insert_id", SideEffect),
        ] {
            assert_eq!(verdict(MySql, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["my_udf", "mysql.upper"] {
            assert_eq!(verdict(MySql, name), Unknown, "{name}");
        }
    }
}
