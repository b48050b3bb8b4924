//! Amazon Redshift built-ins beyond the PostgreSQL catalogue it inherits: `getdate`, `nvl`,
//! `listagg`, the `json_*` text functions, SUPER helpers and HyperLogLog sketches.

/// Side-effect-free Redshift built-ins beyond PostgreSQL's (lower case, sorted).
#[rustfmt::skip]
pub(super) const REDSHIFT: &[&str] = &[
    "add_months", "approximate_percentile_disc", "array_concat", "array_flatten", "bpcharcmp",
    "can_json_parse", "charindex", "checksum", "convert_timezone", "current_user_id", "date_cmp",
    "date_cmp_timestamp", "date_cmp_timestamptz", "date_part_year", "dateadd", "datediff",
    "fnv_hash", "from_varbyte", "func_sha1", "get_array_length", "getdate", "hll",
    "hll_cardinality", "hll_combine", "hll_combine_sketches", "hll_create_sketch", "interval_cmp",
    "is_array", "is_bigint", "is_boolean", "is_char", "is_decimal", "is_float", "is_integer",
    "is_object", "is_scalar", "is_smallint", "is_valid_json", "is_valid_json_array", "is_varchar",
    "json_extract_array_element_text", "json_parse", "json_serialize_to_varbyte", "json_size",
    "last_day", "len", "listagg", "lower_attribute_names", "median", "months_between", "next_day",
    "nvl", "nvl2", "object", "object_transform", "pg_last_copy_count", "pg_last_copy_id",
    "pg_last_query_id", "pg_last_unload_count", "pg_last_unload_id", "ratio_to_report",
    "replicate", "sha2", "slice_num", "space", "split_to_array", "strtol", "subarray", "sysdate",
    "texticlike", "textlike", "timestamp_cmp", "timestamp_cmp_date", "timestamp_cmp_timestamptz",
    "timestamptz_cmp", "to_varbyte", "upper_attribute_names",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Redshift;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "getdate",
            "listagg",
            "json_extract_path_text",
            "date_trunc",
            "nvl",
            "pg_catalog.pg_get_viewdef",
        ] {
            assert_eq!(verdict(Redshift, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("pg_terminate_backend", Administrative),
            ("pg_sleep", Sleep),
        ] {
            assert_eq!(verdict(Redshift, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["my_udf", "public.getdate"] {
            assert_eq!(verdict(Redshift, name), Unknown, "{name}");
        }
    }
}
