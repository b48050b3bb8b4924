//! SQL Server / Azure SQL / Fabric / Synapse (T-SQL) built-ins, allowed unqualified or in the
//! `sys` schema (`sys.fn_listextendedproperty`).
//!
//! `OPENROWSET`, `OPENQUERY` and `OPENDATASOURCE` reach other servers or files and are denied;
//! `OPENXML` only reads a document handle that `sp_xml_preparedocument` (a procedure, never
//! allowed) must have prepared, and `OPENJSON` parses a value: both allowed. Extended and system
//! procedures (`xp_*`, `sp_*`) and the trace/audit file readers are denied.

/// Side-effect-free T-SQL built-ins beyond [`super::common::COMMON`] (lower case, sorted).
#[rustfmt::skip]
pub(super) const MSSQL: &[&str] = &[
    "app_name", "approx_count_distinct", "approx_percentile_cont", "approx_percentile_disc",
    "atn2", "binary_checksum", "bit_count", "char", "charindex", "checksum", "checksum_agg",
    "choose", "col_length", "col_name", "columnproperty", "compress", "context_info", "convert",
    "count_big", "current_timezone", "current_timezone_id", "cursor_status", "databasepropertyex",
    "datalength", "date_bucket", "dateadd", "datediff", "datediff_big", "datefromparts",
    "datename", "datepart", "datetime2fromparts", "datetimefromparts", "datetimeoffsetfromparts",
    "datetrunc", "day", "db_id", "db_name", "decompress", "difference", "eomonth", "error_line",
    "error_message", "error_number", "error_procedure", "error_severity", "error_state", "file_id",
    "file_name", "filegroup_name", "fileproperty", "fn_builtin_permissions",
    "fn_listextendedproperty", "fn_my_permissions", "fn_varbintohexstr", "format",
    "generate_series", "get_bit", "getdate", "getutcdate", "grouping_id", "has_dbaccess",
    "has_perms_by_name", "hashbytes", "host_id", "host_name", "ident_current", "ident_incr",
    "ident_seed", "iif", "index_col", "indexproperty", "is_member", "is_rolemember",
    "is_srvrolemember", "isdate", "isjson", "isnull", "isnumeric", "json_array", "json_arrayagg",
    "json_modify", "json_object", "json_objectagg", "json_path_exists", "json_query", "json_value",
    "left", "left_shift", "len", "month", "nchar", "newid", "object_definition", "object_id",
    "object_name", "object_schema_name", "objectproperty", "objectpropertyex", "openjson",
    "openxml", "original_login", "parse", "patindex", "permissions", "quotename", "rand",
    "replicate", "right", "right_shift", "schema_id", "schema_name", "scope_identity",
    "serverproperty", "session_context", "set_bit", "smalldatetimefromparts", "soundex", "space",
    "square", "stdev", "stdevp", "str", "string_agg", "string_escape", "string_split", "stuff",
    "suser_id", "suser_name", "suser_sid", "suser_sname", "switchoffset", "sysdatetime",
    "sysdatetimeoffset", "system_user", "sysutcdatetime", "timefromparts", "todatetimeoffset",
    "try_cast", "try_convert", "try_parse", "type_id", "type_name", "typeproperty", "unicode",
    "user_id", "user_name", "var", "varp", "xact_state", "year",
];

#[cfg(test)]
mod tests {
    use crate::FunctionClass::*;
    use crate::SqlDialect::MsSql;
    use crate::functions::Catalogued::{Allowed, Denied, Unknown};
    use crate::functions::testing::verdict;

    #[test]
    fn analyst_functions_are_allowed() {
        for name in [
            "getdate",
            "sysdatetime",
            "datename",
            "datepart",
            "dateadd",
            "datediff",
            "isnull",
            "iif",
            "len",
            "charindex",
            "format",
            "string_agg",
            "newid",
            "convert",
            "try_convert",
            "eomonth",
            "sys.fn_listextendedproperty",
            "openjson",
        ] {
            assert_eq!(verdict(MsSql, name), Allowed, "{name}");
        }
    }

    #[test]
    fn dangerous_functions_are_denied() {
        for (name, class) in [
            ("xp_cmdshell", ExecutesSql),
            ("master.dbo.xp_dirtree", ExecutesSql),
            ("OPENROWSET", Network),
            ("openquery", Network),
            ("sp_executesql", ExecutesSql),
            ("sys.fn_get_audit_file", FileAccess),
            ("fn_xe_file_target_read_file", FileAccess),
        ] {
            assert_eq!(verdict(MsSql, name), Denied(class), "{name}");
        }
    }

    #[test]
    fn other_names_are_unknown() {
        for name in ["dbo.my_udf", "dbo.getdate"] {
            assert_eq!(verdict(MsSql, name), Unknown, "{name}");
        }
    }
}
