//! ClickHouse's sqlparser dialect with expression aliases in `WITH`.

use std::any::TypeId;

use sqlparser::ast::Statement;
use sqlparser::dialect::{ClickHouseDialect, Dialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};

use super::clickhouse_with;

/// [`ClickHouseDialect`], extended (see the [module docs](super)).
#[derive(Debug, Default)]
pub(crate) struct ClickHouseExtended;

const CLICKHOUSE: ClickHouseDialect = ClickHouseDialect {};

impl Dialect for ClickHouseExtended {
    // The parser's `dialect_of!` checks compare this type id: they must see ClickHouse.
    fn dialect(&self) -> TypeId {
        TypeId::of::<ClickHouseDialect>()
    }

    fn parse_statement(&self, parser: &mut Parser<'_>) -> Option<Result<Statement, ParserError>> {
        clickhouse_with::parse_statement(parser)
    }

    // Every method ClickHouseDialect overrides, answered as it answers. A sqlparser upgrade
    // that adds one is caught by the test comparing this dialect's trees with
    // ClickHouseDialect's.
    fn is_identifier_start(&self, ch: char) -> bool {
        CLICKHOUSE.is_identifier_start(ch)
    }
    fn supports_string_literal_column_alias(&self, explicit: bool) -> bool {
        CLICKHOUSE.supports_string_literal_column_alias(explicit)
    }
    fn supports_string_literal_table_alias(&self, explicit: bool) -> bool {
        CLICKHOUSE.supports_string_literal_table_alias(explicit)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        CLICKHOUSE.is_identifier_part(ch)
    }
    fn is_table_factor(&self, kw: &Keyword, parser: &mut Parser<'_>) -> bool {
        CLICKHOUSE.is_table_factor(kw, parser)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        CLICKHOUSE.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        CLICKHOUSE.supports_string_literal_backslash_escape()
    }
    fn supports_select_wildcard_except(&self) -> bool {
        CLICKHOUSE.supports_select_wildcard_except()
    }
    fn describe_requires_table_keyword(&self) -> bool {
        CLICKHOUSE.describe_requires_table_keyword()
    }
    fn require_interval_qualifier(&self) -> bool {
        CLICKHOUSE.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        CLICKHOUSE.supports_limit_comma()
    }
    fn supports_insert_table_function(&self) -> bool {
        CLICKHOUSE.supports_insert_table_function()
    }
    fn supports_insert_format(&self) -> bool {
        CLICKHOUSE.supports_insert_format()
    }
    fn supports_numeric_literal_underscores(&self) -> bool {
        CLICKHOUSE.supports_numeric_literal_underscores()
    }
    fn supports_partition_by_after_order_by(&self) -> bool {
        CLICKHOUSE.supports_partition_by_after_order_by()
    }
    fn supports_array_join_syntax(&self) -> bool {
        CLICKHOUSE.supports_array_join_syntax()
    }
    fn supports_array_typedef_with_parentheses(&self) -> bool {
        CLICKHOUSE.supports_array_typedef_with_parentheses()
    }
    fn supports_map_typedef_with_parentheses(&self) -> bool {
        CLICKHOUSE.supports_map_typedef_with_parentheses()
    }
    fn supports_dictionary_syntax(&self) -> bool {
        CLICKHOUSE.supports_dictionary_syntax()
    }
    fn supports_in_unparenthesized_expr(&self) -> bool {
        CLICKHOUSE.supports_in_unparenthesized_expr()
    }
    fn supports_global_in(&self) -> bool {
        CLICKHOUSE.supports_global_in()
    }
    fn supports_lambda_functions(&self) -> bool {
        CLICKHOUSE.supports_lambda_functions()
    }
    fn supports_from_first_select(&self) -> bool {
        CLICKHOUSE.supports_from_first_select()
    }
    fn supports_order_by_all(&self) -> bool {
        CLICKHOUSE.supports_order_by_all()
    }
    fn supports_group_by_expr(&self) -> bool {
        CLICKHOUSE.supports_group_by_expr()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        CLICKHOUSE.supports_group_by_with_modifier()
    }
    fn supports_nested_comments(&self) -> bool {
        CLICKHOUSE.supports_nested_comments()
    }
    fn supports_hash_comment(&self) -> bool {
        CLICKHOUSE.supports_hash_comment()
    }
    fn requires_hash_comment_space(&self) -> bool {
        CLICKHOUSE.requires_hash_comment_space()
    }
    fn supports_optimize_table(&self) -> bool {
        CLICKHOUSE.supports_optimize_table()
    }
    fn supports_prewhere(&self) -> bool {
        CLICKHOUSE.supports_prewhere()
    }
    fn supports_with_fill(&self) -> bool {
        CLICKHOUSE.supports_with_fill()
    }
    fn supports_limit_by(&self) -> bool {
        CLICKHOUSE.supports_limit_by()
    }
    fn supports_interpolate(&self) -> bool {
        CLICKHOUSE.supports_interpolate()
    }
    fn supports_settings(&self) -> bool {
        CLICKHOUSE.supports_settings()
    }
    fn supports_select_format(&self) -> bool {
        CLICKHOUSE.supports_select_format()
    }
    fn supports_select_wildcard_replace(&self) -> bool {
        CLICKHOUSE.supports_select_wildcard_replace()
    }
    fn supports_comma_separated_trim(&self) -> bool {
        CLICKHOUSE.supports_comma_separated_trim()
    }
    fn supports_alter_column_position(&self) -> bool {
        CLICKHOUSE.supports_alter_column_position()
    }
    fn supports_tuple_element_access(&self) -> bool {
        CLICKHOUSE.supports_tuple_element_access()
    }
}
