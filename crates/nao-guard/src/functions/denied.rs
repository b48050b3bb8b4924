//! The denied tier shared by every dialect: functions that sleep, lock, read or list server files,
//! reach the network, run SQL text the guard cannot see, change state or administer the server.
//!
//! A name is denied if its case-folded last part is in [`EXACT`], starts with a [`PREFIXES`]
//! entry or ends with a [`SUFFIXES`] entry (unless the affix lists it as an exception). Names like
//! `pg_sleep` or `xp_cmdshell` are never a legitimate built-in elsewhere, so they are denied in
//! every dialect; a name that is dangerous in one engine but an ordinary built-in in another
//! (`glob`, `merge`) lives in that engine's own `DENIED` list instead.
//!
//! Class choices: `getenv` reads the server host, so `FileAccess`; `lo_import`/`lo_export` move
//! files, other `lo_*` change large objects (`SideEffect`); `txid_current`/`pg_current_xact_id`
//! assign a transaction id (`SideEffect`); shell-running UDFs (`sys_exec`) and JVM reflection are
//! `ExecutesSql`, the nearest class to "runs code the guard cannot see".

use super::Affix;
use crate::FunctionClass::{
    self, Administrative, ExecutesSql, FileAccess, Lock, Network, SideEffect, Sleep,
};

/// Denied in every dialect, whatever the qualification and quoting (lower case, sorted by name).
#[rustfmt::skip]
pub(super) const EXACT: &[(&str, FunctionClass)] = &[
    ("applock_test", Lock), ("arrowflight", Network), ("benchmark", Sleep),
    ("brin_desummarize_range", SideEffect), ("brin_summarize_new_values", SideEffect),
    ("brin_summarize_range", SideEffect), ("build_scoped_file_url", FileAccess),
    ("build_stage_file_url", FileAccess), ("catboostevaluate", FileAccess),
    ("checkpoint", Administrative), ("cloud_files_state", FileAccess), ("cluster", Network),
    ("clusterallreplicas", Network), ("connectby", ExecutesSql), ("dbgen", SideEffect),
    ("disable_logging", Administrative), ("dsdgen", SideEffect),
    ("duckdb_secrets", Administrative), ("edit", FileAccess), ("enable_logging", Administrative),
    ("eval", ExecutesSql), ("executable", ExecutesSql), ("external_query", ExecutesSql),
    ("file", FileAccess), ("filecluster", FileAccess), ("filesystem", FileAccess),
    ("fn_dblog", Administrative), ("fn_dump_dblog", FileAccess), ("fn_get_audit_file", FileAccess),
    ("fn_trace_gettable", FileAccess), ("fn_xe_file_target_read_file", FileAccess),
    ("force_checkpoint", Administrative), ("fsdir", FileAccess),
    ("fts3_tokenizer", Administrative), ("gcs", Network), ("get_absolute_path", FileAccess),
    ("get_lock", Lock), ("get_presigned_url", FileAccess), ("get_relative_path", FileAccess),
    ("get_stage_location", FileAccess), ("getenv", FileAccess),
    ("gin_clean_pending_list", SideEffect), ("in_file", FileAccess), ("infer_schema", FileAccess),
    ("input", SideEffect), ("is_free_lock", Lock), ("is_used_lock", Lock),
    ("java_method", ExecutesSql), ("jdbc", Network), ("last_insert_id", SideEffect),
    ("list_secrets", Administrative), ("lo_export", FileAccess), ("lo_import", FileAccess),
    ("load_aws_credentials", Administrative), ("load_extension", Administrative),
    ("load_file", FileAccess), ("loread", SideEffect), ("lowrite", SideEffect),
    ("master_gtid_wait", Sleep), ("master_pos_wait", Sleep), ("mongodb", Network),
    ("mysql", Network), ("mysql_execute", ExecutesSql), ("mysql_query", ExecutesSql),
    ("mysql_scan", Network), ("nextval", SideEffect), ("odbc", Network),
    ("opendatasource", Network), ("openquery", Network), ("openrowset", Network),
    ("parquet_scan", FileAccess), ("pg_cancel_backend", Administrative),
    ("pg_current_logfile", FileAccess), ("pg_current_xact_id", SideEffect),
    ("pg_drop_replication_slot", Administrative), ("pg_export_snapshot", Administrative),
    ("pg_import_system_collations", Administrative),
    ("pg_log_backend_memory_contexts", Administrative),
    ("pg_log_standby_snapshot", Administrative), ("pg_logdir_ls", FileAccess),
    ("pg_notify", SideEffect), ("pg_prewarm", SideEffect), ("pg_promote", Administrative),
    ("pg_read_binary_file", FileAccess), ("pg_read_file", FileAccess),
    ("pg_reload_conf", Administrative), ("pg_replication_slot_advance", Administrative),
    ("pg_start_backup", Administrative), ("pg_stat_file", FileAccess),
    ("pg_stat_statements_reset", SideEffect), ("pg_stop_backup", Administrative),
    ("pg_switch_wal", Administrative), ("pg_switch_xlog", Administrative),
    ("pg_sync_replication_slots", Administrative), ("pg_terminate_backend", Administrative),
    ("pg_truncate_visibility_map", SideEffect), ("pg_wal_replay_pause", Administrative),
    ("pg_wal_replay_resume", Administrative), ("postgres_execute", ExecutesSql),
    ("postgres_query", ExecutesSql), ("postgres_scan", Network),
    ("postgres_scan_pushdown", Network), ("postgresql", Network), ("query", ExecutesSql),
    ("query_table", ExecutesSql), ("raw_query", ExecutesSql), ("read_kafka", Network),
    ("read_kinesis", Network), ("read_pubsub", Network), ("read_pulsar", Network),
    ("readfile", FileAccess), ("redis", Network), ("reflect", ExecutesSql),
    ("reflect2", ExecutesSql), ("release_all_locks", Lock), ("release_lock", Lock),
    ("remote", Network), ("remotesecure", Network), ("s3", Network), ("s3cluster", Network),
    ("secret", Administrative), ("set_config", SideEffect), ("set_limit", SideEffect),
    ("setseed", SideEffect), ("setval", SideEffect), ("sleep", Sleep), ("sleepeachrow", Sleep),
    ("sniff_csv", FileAccess), ("source_pos_wait", Sleep), ("sqlite", FileAccess),
    ("sqlite_dbdata", FileAccess), ("sqlite_dbpage", FileAccess), ("sqlite_dbptr", FileAccess),
    ("sqlite_scan", FileAccess), ("sys_eval", ExecutesSql), ("sys_exec", ExecutesSql),
    ("sys_set", SideEffect), ("system$wait", Sleep), ("truncate_duckdb_logs", Administrative),
    ("try_reflect", ExecutesSql), ("ts_rewrite", ExecutesSql), ("ts_stat", ExecutesSql),
    ("txid_current", SideEffect), ("url", Network), ("urlcluster", Network),
    ("wait_for_executed_gtid_set", Sleep), ("wait_until_sql_thread_after_gtids", Sleep),
    ("which_secret", Administrative), ("writefile", FileAccess), ("xpath_table", ExecutesSql),
    ("ytsaurus", Network), ("zipfile", FileAccess), ("zipfile_cds", FileAccess),
];

/// Name prefixes denied in every dialect (lower case, sorted).
#[rustfmt::skip]
pub(super) const PREFIXES: &[Affix] = &[
    Affix { text: "ai_", class: Network, except: &[] },
    Affix { text: "azureblobstorage", class: Network, except: &[] },
    Affix { text: "binary_upgrade_", class: Administrative, except: &[] },
    Affix { text: "crosstab", class: ExecutesSql, except: &[] },
    Affix { text: "cursor_to_xml", class: ExecutesSql, except: &[] },
    Affix { text: "database_to_xml", class: ExecutesSql, except: &[] },
    Affix { text: "dblink", class: Network, except: &[] },
    Affix { text: "deltalake", class: FileAccess, except: &[] },
    Affix { text: "ducklake_", class: Administrative, except: &[] },
    Affix { text: "hdfs", class: FileAccess, except: &[] },
    Affix { text: "http_", class: Network, except: &[] },
    Affix { text: "hudi", class: FileAccess, except: &[] },
    Affix { text: "iceberg", class: FileAccess, except: &[] },
    Affix { text: "lo_", class: SideEffect, except: &[] },
    Affix { text: "paimon", class: FileAccess, except: &[] },
    Affix { text: "parquet_", class: FileAccess, except: &[] },
    Affix { text: "pg_advisory_", class: Lock, except: &[] },
    Affix { text: "pg_backup_", class: Administrative, except: &[] },
    Affix { text: "pg_clear_", class: SideEffect, except: &[] },
    Affix { text: "pg_copy_", class: Administrative, except: &[] },
    Affix { text: "pg_create_", class: Administrative, except: &[] },
    Affix { text: "pg_file_", class: FileAccess, except: &[] },
    Affix { text: "pg_logical_", class: Administrative, except: &[] },
    Affix { text: "pg_ls_", class: FileAccess, except: &[] },
    Affix { text: "pg_replication_origin_", class: Administrative, except: &[] },
    Affix { text: "pg_restore_", class: SideEffect, except: &[] },
    Affix { text: "pg_rotate_logfile", class: Administrative, except: &[] },
    Affix { text: "pg_sleep", class: Sleep, except: &[] },
    Affix { text: "pg_stat_reset", class: SideEffect, except: &[] },
    Affix { text: "pg_try_advisory_", class: Lock, except: &[] },
    Affix { text: "pgr_", class: ExecutesSql, except: &[] },
    Affix { text: "query_to_xml", class: ExecutesSql, except: &[] },
    Affix { text: "read_", class: FileAccess, except: &[] },
    Affix { text: "schema_to_xml", class: ExecutesSql, except: &[] },
    Affix { text: "sp_", class: ExecutesSql, except: &[] },
    Affix { text: "sqlar_", class: FileAccess, except: &[] },
    Affix { text: "st_read", class: FileAccess, except: &[] },
    Affix { text: "system$", class: Administrative, except: &[] },
    Affix { text: "table_to_xml", class: ExecutesSql, except: &[] },
    Affix { text: "xp_", class: ExecutesSql, except: &[] },
];

/// Name suffixes denied in every dialect (lower case, sorted); `except` keeps built-ins such as
/// `json_query` that merely end the same way.
#[rustfmt::skip]
pub(super) const SUFFIXES: &[Affix] = &[
    Affix { text: "_attach", class: Administrative, except: &[] },
    Affix { text: "_execute", class: ExecutesSql, except: &[] },
    Affix { text: "_query", class: ExecutesSql, except: &["current_query", "json_query", "jsonb_path_query", "url_extract_query"] },
    Affix { text: "_scan", class: FileAccess, except: &[] },
];
