//! PostgreSQL built-ins (also the base of the Redshift catalogue): JSON/JSONB, arrays, ranges,
//! full-text search, network types, XML, the common contrib extensions (`pg_trgm`,
//! `fuzzystrmatch`, `pgcrypto`, `uuid-ossp`) and read-only catalog introspection
//! (`pg_get_viewdef`, `has_*_privilege`, `pg_*_size`, `current_setting`).
//!
//! `currval` and `lastval` only read the session's last sequence value, so they are allowed;
//! `nextval`/`setval` are denied (see `denied.rs`).

/// Side-effect-free PostgreSQL built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const POSTGRES: &[&str] = &[
    "abbrev", "acldefault", "aclexplode", "acosd", "acosh", "age", "akeys", "any_value", "array",
    "array_agg", "array_append", "array_cat", "array_dims", "array_fill", "array_length",
    "array_lower", "array_ndims", "array_position", "array_positions", "array_prepend",
    "array_remove", "array_replace", "array_reverse", "array_sample", "array_shuffle",
    "array_sort", "array_to_json", "array_to_string", "array_to_tsvector", "array_upper", "asind",
    "asinh", "atan2d", "atand", "atanh", "avals", "bit_and", "bit_count", "bit_or", "bit_xor",
    "bool", "bool_and", "bool_or", "broadcast", "btrim", "cardinality", "casefold", "cbrt", "chr",
    "clock_timestamp", "col_description", "convert", "convert_from", "convert_to", "cosd", "cosh",
    "cotd", "crc32", "crc32c", "crypt", "current_catalog", "current_database", "current_query",
    "current_schemas", "current_setting", "currval", "date", "date_add", "date_bin", "date_part",
    "date_subtract", "date_trunc", "datemultirange", "daterange", "decode", "defined",
    "difference", "digest", "div", "dmetaphone", "dmetaphone_alt", "each", "encode", "erf", "erfc",
    "every", "exist", "factorial", "family", "float4", "float8", "format", "format_type", "gcd",
    "gen_random_bytes", "gen_random_uuid", "gen_salt", "generate_series", "generate_subscripts",
    "get_bit", "get_byte", "get_current_ts_config", "has_any_column_privilege",
    "has_column_privilege", "has_database_privilege", "has_foreign_data_wrapper_privilege",
    "has_function_privilege", "has_language_privilege", "has_largeobject_privilege",
    "has_parameter_privilege", "has_schema_privilege", "has_sequence_privilege",
    "has_server_privilege", "has_table_privilege", "has_tablespace_privilege",
    "has_type_privilege", "hmac", "host", "hostmask", "hstore", "hstore_to_array",
    "hstore_to_json", "hstore_to_jsonb", "hstore_to_matrix", "inet_client_addr",
    "inet_client_port", "inet_merge", "inet_same_family", "inet_server_addr", "inet_server_port",
    "initcap", "int2", "int4", "int4multirange", "int4range", "int8", "int8multirange",
    "int8range", "interval", "isempty", "isfinite", "json_agg", "json_array",
    "json_array_elements", "json_array_elements_text", "json_array_length", "json_arrayagg",
    "json_build_array", "json_build_object", "json_each", "json_each_text", "json_exists",
    "json_extract_path", "json_extract_path_text", "json_object", "json_object_agg",
    "json_object_agg_strict", "json_object_agg_unique", "json_object_agg_unique_strict",
    "json_object_keys", "json_objectagg", "json_populate_record", "json_populate_recordset",
    "json_query", "json_scalar", "json_serialize", "json_strip_nulls", "json_to_record",
    "json_to_recordset", "json_typeof", "json_value", "jsonb_agg", "jsonb_array_elements",
    "jsonb_array_elements_text", "jsonb_array_length", "jsonb_build_array", "jsonb_build_object",
    "jsonb_each", "jsonb_each_text", "jsonb_extract_path", "jsonb_extract_path_text",
    "jsonb_insert", "jsonb_object", "jsonb_object_agg", "jsonb_object_agg_strict",
    "jsonb_object_agg_unique", "jsonb_object_agg_unique_strict", "jsonb_object_keys",
    "jsonb_path_exists", "jsonb_path_exists_tz", "jsonb_path_match", "jsonb_path_match_tz",
    "jsonb_path_query", "jsonb_path_query_array", "jsonb_path_query_array_tz",
    "jsonb_path_query_first", "jsonb_path_query_first_tz", "jsonb_path_query_tz",
    "jsonb_populate_record", "jsonb_populate_record_valid", "jsonb_populate_recordset",
    "jsonb_pretty", "jsonb_set", "jsonb_set_lax", "jsonb_strip_nulls", "jsonb_to_record",
    "jsonb_to_recordset", "jsonb_typeof", "justify_days", "justify_hours", "justify_interval",
    "lastval", "lcase", "lcm", "left", "levenshtein", "levenshtein_less_equal", "log2",
    "lower_inc", "lower_inf", "make_date", "make_interval", "make_time", "make_timestamp",
    "make_timestamptz", "makeaclitem", "masklen", "metaphone", "min_scale", "mode", "multirange",
    "netmask", "network", "now", "num_nonnulls", "num_nulls", "numeric", "nummultirange",
    "numnode", "numrange", "obj_description", "parse_ident", "pg_backend_pid", "pg_basetype",
    "pg_blocking_pids", "pg_char_to_encoding", "pg_client_encoding", "pg_collation_for",
    "pg_collation_is_visible", "pg_column_compression", "pg_column_size",
    "pg_column_toast_chunk_id", "pg_conf_load_time", "pg_conversion_is_visible",
    "pg_current_snapshot", "pg_current_wal_flush_lsn", "pg_current_wal_insert_lsn",
    "pg_current_wal_lsn", "pg_current_xact_id_if_assigned", "pg_database_size",
    "pg_describe_object", "pg_encoding_to_char", "pg_filenode_relation", "pg_function_is_visible",
    "pg_get_acl", "pg_get_catalog_foreign_keys", "pg_get_constraintdef", "pg_get_expr",
    "pg_get_function_arguments", "pg_get_function_identity_arguments", "pg_get_function_result",
    "pg_get_functiondef", "pg_get_indexdef", "pg_get_keywords", "pg_get_object_address",
    "pg_get_partkeydef", "pg_get_ruledef", "pg_get_serial_sequence", "pg_get_statisticsobjdef",
    "pg_get_triggerdef", "pg_get_userbyid", "pg_get_viewdef", "pg_get_wal_replay_pause_state",
    "pg_has_role", "pg_identify_object", "pg_identify_object_as_address",
    "pg_index_column_has_property", "pg_index_has_property", "pg_indexam_has_property",
    "pg_indexes_size", "pg_input_error_info", "pg_input_is_valid", "pg_is_in_recovery",
    "pg_is_other_temp_schema", "pg_is_wal_replay_paused", "pg_jit_available",
    "pg_last_committed_xact", "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn",
    "pg_last_xact_replay_timestamp", "pg_listening_channels", "pg_my_temp_schema",
    "pg_notification_queue_usage", "pg_opclass_is_visible", "pg_operator_is_visible",
    "pg_opfamily_is_visible", "pg_options_to_table", "pg_partition_ancestors", "pg_partition_root",
    "pg_partition_tree", "pg_postmaster_start_time", "pg_relation_filenode",
    "pg_relation_filepath", "pg_relation_size", "pg_safe_snapshot_blocking_pids",
    "pg_sequence_last_value", "pg_settings_get_flags", "pg_size_bytes", "pg_size_pretty",
    "pg_snapshot_xip", "pg_snapshot_xmax", "pg_snapshot_xmin", "pg_split_walfile_name",
    "pg_statistics_obj_is_visible", "pg_table_is_visible", "pg_table_size",
    "pg_tablespace_databases", "pg_tablespace_location", "pg_tablespace_size",
    "pg_total_relation_size", "pg_trigger_depth", "pg_ts_config_is_visible",
    "pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible",
    "pg_type_is_visible", "pg_typeof", "pg_visible_in_snapshot", "pg_wal_lsn_diff",
    "pg_walfile_name", "pg_walfile_name_offset", "pg_xact_commit_timestamp", "pg_xact_status",
    "phraseto_tsquery", "plainto_tsquery", "pow", "querytree", "quote_ident", "quote_literal",
    "quote_nullable", "random", "random_normal", "range_agg", "range_intersect_agg", "range_merge",
    "regexp_count", "regexp_instr", "regexp_like", "regexp_match", "regexp_matches",
    "regexp_replace", "regexp_split_to_array", "regexp_split_to_table", "regexp_substr", "right",
    "row_security_active", "row_to_json", "scale", "set_bit", "set_byte", "set_masklen",
    "setweight", "sha224", "sha256", "sha384", "sha512", "shobj_description", "show_limit",
    "show_trgm", "similarity", "sind", "sinh", "skeys", "soundex", "split_part", "starts_with",
    "statement_timestamp", "strict_word_similarity", "string_agg", "string_to_array",
    "string_to_table", "strip", "strpos", "svals", "tand", "tanh", "text", "time", "timeofday",
    "timestamp", "timestamptz", "timezone", "to_ascii", "to_bin", "to_char", "to_date", "to_hex",
    "to_json", "to_jsonb", "to_number", "to_oct", "to_regclass", "to_regcollation",
    "to_regnamespace", "to_regoper", "to_regoperator", "to_regproc", "to_regprocedure",
    "to_regrole", "to_regtype", "to_regtypemod", "to_timestamp", "to_tsquery", "to_tsvector",
    "transaction_timestamp", "trim_array", "trim_scale", "ts_debug", "ts_delete", "ts_filter",
    "ts_headline", "ts_lexize", "ts_parse", "ts_rank", "ts_rank_cd", "ts_token_type",
    "tsmultirange", "tsrange", "tstzmultirange", "tstzrange", "tsvector_to_array",
    "txid_current_if_assigned", "txid_current_snapshot", "txid_snapshot_xip", "txid_snapshot_xmax",
    "txid_snapshot_xmin", "txid_status", "txid_visible_in_snapshot", "ucase", "unaccent", "unistr",
    "unnest", "upper_inc", "upper_inf", "uuid_extract_timestamp", "uuid_extract_version",
    "uuid_generate_v1", "uuid_generate_v1mc", "uuid_generate_v3", "uuid_generate_v4",
    "uuid_generate_v5", "uuid_nil", "uuid_ns_dns", "uuid_ns_oid", "uuid_ns_url", "uuid_ns_x500",
    "uuidv4", "uuidv7", "varchar", "version", "websearch_to_tsquery", "width_bucket",
    "word_similarity", "xml_is_well_formed", "xml_is_well_formed_content",
    "xml_is_well_formed_document", "xmlagg", "xmlcomment", "xmlconcat", "xmlelement", "xmlexists",
    "xmlforest", "xmlparse", "xmlpi", "xmlroot", "xmlserialize", "xmltext", "xpath",
    "xpath_exists",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::Postgres;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "sum",
            "date_trunc",
            "string_agg",
            "row_number",
            "pg_catalog.upper",
            "jsonb_agg",
            "generate_series",
            "jsonb_path_query",
            "currval",
            "pg_size_pretty",
            "to_char",
            "PG_CATALOG.COUNT",
            "regexp_replace",
        ] {
            assert_eq!(verdict(Postgres, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("pg_catalog.pg_sleep", Sleep),
            ("PG_SLEEP", Sleep),
            ("pg_sleep_for", Sleep),
            ("nextval", SideEffect),
            ("setval", SideEffect),
            ("set_config", SideEffect),
            ("pg_read_file", FileAccess),
            ("pg_ls_dir", FileAccess),
            ("pg_catalog.lo_import", FileAccess),
            ("lo_unlink", SideEffect),
            ("dblink_exec", Network),
            ("pg_advisory_xact_lock", Lock),
            ("pg_try_advisory_lock", Lock),
            ("query_to_xml", ExecutesSql),
            ("table_to_xmlschema", ExecutesSql),
            ("pg_terminate_backend", Administrative),
            ("pg_create_restore_point", Administrative),
            ("txid_current", SideEffect),
            ("pg_stat_reset_shared", SideEffect),
            ("binary_upgrade_set_next_pg_type_oid", Administrative),
            ("public.pg_sleep", Sleep),
        ] {
            assert_eq!(verdict(Postgres, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in [
            "my_udf",
            "my_schema.upper",
            "pg_catalog.my_udf",
            "other_db.pg_catalog.upper",
        ] {
            assert_eq!(verdict(Postgres, name), Unknown, "{name}");
        }
    }
}
