//! DuckDB's sqlparser dialect with the simplified PIVOT/UNPIVOT statements, SUMMARIZE and
//! `* RENAME`.

use std::any::TypeId;

use sqlparser::ast::Statement;
use sqlparser::dialect::{Dialect, DuckDbDialect};
use sqlparser::parser::{Parser, ParserError};

use super::{duckdb_pivot, duckdb_summarize};

/// [`DuckDbDialect`], extended (see the [module docs](super)).
#[derive(Debug, Default)]
pub(crate) struct DuckDbExtended;

const DUCKDB: DuckDbDialect = DuckDbDialect {};

impl Dialect for DuckDbExtended {
    // The parser's `dialect_of!` checks compare this type id: they must see DuckDB.
    fn dialect(&self) -> TypeId {
        TypeId::of::<DuckDbDialect>()
    }

    fn parse_statement(&self, parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
        duckdb_pivot::parse_statement(parser).or_else(|| duckdb_summarize::parse_statement(parser))
    }

    fn supports_select_wildcard_rename(&self) -> bool {
        true
    }

    // Every method DuckDbDialect overrides, answered as it answers. A sqlparser upgrade that
    // adds one is caught by the test comparing this dialect's trees with DuckDbDialect's.
    fn supports_cte_materialization(&self) -> bool {
        DUCKDB.supports_cte_materialization()
    }
    fn supports_string_literal_column_alias(&self, explicit: bool) -> bool {
        DUCKDB.supports_string_literal_column_alias(explicit)
    }
    fn supports_string_literal_table_alias(&self, explicit: bool) -> bool {
        DUCKDB.supports_string_literal_table_alias(explicit)
    }
    fn supports_trailing_commas(&self) -> bool {
        DUCKDB.supports_trailing_commas()
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        DUCKDB.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        DUCKDB.is_identifier_part(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        DUCKDB.identifier_quote_style(identifier)
    }
    fn supports_filter_during_aggregation(&self) -> bool {
        DUCKDB.supports_filter_during_aggregation()
    }
    fn supports_group_by_expr(&self) -> bool {
        DUCKDB.supports_group_by_expr()
    }
    fn supports_bitwise_shift_operators(&self) -> bool {
        DUCKDB.supports_bitwise_shift_operators()
    }
    fn supports_tilde_like_match_operator(&self) -> bool {
        DUCKDB.supports_tilde_like_match_operator()
    }
    fn supports_aggregate_order_by_with_empty_args(&self) -> bool {
        DUCKDB.supports_aggregate_order_by_with_empty_args()
    }
    fn supports_comparison_in_between_low_bound(&self) -> bool {
        DUCKDB.supports_comparison_in_between_low_bound()
    }
    fn supports_named_fn_args_with_eq_operator(&self) -> bool {
        DUCKDB.supports_named_fn_args_with_eq_operator()
    }
    fn supports_named_fn_args_with_assignment_operator(&self) -> bool {
        DUCKDB.supports_named_fn_args_with_assignment_operator()
    }
    fn supports_dictionary_syntax(&self) -> bool {
        DUCKDB.supports_dictionary_syntax()
    }
    fn support_map_literal_syntax(&self) -> bool {
        DUCKDB.support_map_literal_syntax()
    }
    fn supports_lambda_functions(&self) -> bool {
        DUCKDB.supports_lambda_functions()
    }
    fn allow_extract_single_quotes(&self) -> bool {
        DUCKDB.allow_extract_single_quotes()
    }
    fn supports_explain_with_utility_options(&self) -> bool {
        DUCKDB.supports_explain_with_utility_options()
    }
    fn supports_load_extension(&self) -> bool {
        DUCKDB.supports_load_extension()
    }
    fn supports_array_typedef_with_brackets(&self) -> bool {
        DUCKDB.supports_array_typedef_with_brackets()
    }
    fn supports_from_first_select(&self) -> bool {
        DUCKDB.supports_from_first_select()
    }
    fn supports_order_by_all(&self) -> bool {
        DUCKDB.supports_order_by_all()
    }
    fn supports_select_wildcard_exclude(&self) -> bool {
        DUCKDB.supports_select_wildcard_exclude()
    }
    fn supports_notnull_operator(&self) -> bool {
        DUCKDB.supports_notnull_operator()
    }
    fn supports_install(&self) -> bool {
        DUCKDB.supports_install()
    }
    fn supports_detach(&self) -> bool {
        DUCKDB.supports_detach()
    }
    fn supports_select_wildcard_replace(&self) -> bool {
        DUCKDB.supports_select_wildcard_replace()
    }
    fn supports_comma_separated_trim(&self) -> bool {
        DUCKDB.supports_comma_separated_trim()
    }
    fn supports_numeric_literal_underscores(&self) -> bool {
        DUCKDB.supports_numeric_literal_underscores()
    }
    fn supports_nested_comments(&self) -> bool {
        DUCKDB.supports_nested_comments()
    }
    fn supports_add_column_if_not_exists(&self) -> bool {
        DUCKDB.supports_add_column_if_not_exists()
    }
}
