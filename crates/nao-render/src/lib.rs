//! Compact, truthful Markdown for a language model from Arrow query results.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{Decimal128Array, RecordBatch, StringArray};
//! use arrow_schema::{DataType, Field, Schema};
//! use nao_render::{render_result, RenderBudget, ResultFacts, Truncation};
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("customer", DataType::Utf8, true),
//!     Field::new("revenue", DataType::Decimal128(12, 2), true),
//! ]));
//! let customers = StringArray::from(vec![Some("Acme | Co"), None, Some("Globex")]);
//! let revenue = Decimal128Array::from(vec![1_250_000, 99, 5]).with_precision_and_scale(12, 2)?;
//! let batch = RecordBatch::try_new(schema.clone(), vec![Arc::new(customers), Arc::new(revenue)])?;
//!
//! // The engine stopped at its row cap of 3 rows; the model may see 2 of them.
//! let facts = ResultFacts::new("q_7f3a9c21d0e4", 3).with_truncation(Truncation::RowCap { cap: 3 });
//! let budget = RenderBudget::default().with_max_rows(2);
//! let markdown = render_result(&schema, &[batch], &facts, &budget);
//! assert_eq!(markdown, "\
//! Query q_7f3a9c21d0e4: 3 rows (incomplete), 2 columns.
//!
//! | # | customer: Utf8 | revenue: Decimal128(12, 2) |
//! |---|---|---|
//! | 1 | Acme \\| Co | 12500.00 |
//! | 2 | ∅ | 0.99 |
//!
//! - Incomplete result: the engine stopped at its row cap of 3 rows and more rows exist, so 3 is not the total. To count or summarise all rows, use COUNT(*) or GROUP BY in SQL.
//! - 1 more row (row 3) not shown: call read_query_result with query_id \"q_7f3a9c21d0e4\" and offset 2.
//! - ∅ is NULL (a text value that is exactly ∅ shows as \\u{2205}).
//! ");
//! # Ok::<(), arrow_schema::ArrowError>(())
//! ```
//!
//! # Usage
//!
//! Half of a data agent's user is a language model, and what it reads after a query decides
//! whether it answers truthfully. This crate turns Arrow [`RecordBatch`](arrow_array::RecordBatch)es
//! into Markdown that says exactly what the model is looking at:
//!
//! - [`render_result`]: the output of a query. A summary line (query id, row count, column
//!   count), a table with a row-number column and each column's Arrow type, then notices: the
//!   result is incomplete because the engine stopped at a cap or a timeout; the row count equals
//!   the query's own `LIMIT`, so it is not a total; how many rows are not shown and the exact
//!   `read_query_result` call (query id and offset) that shows them; hidden columns, by name;
//!   values cut to fit.
//! - [`render_page`]: rows `a–b of N` for `read_query_result`, with row numbers that continue
//!   and a message giving the valid offsets when the offset is past the end.
//! - [`render_tool_error`]: a failed tool call (kind, message quoted in a code block, what to
//!   do, whether a retry can help), so every tool output speaks in one voice.
//!
//! Tools that write their own Markdown (table lists, column lists, chart and story summaries)
//! build it from the same escaping and budgets, so no database- or model-derived text reaches
//! the model raw:
//!
//! - [`MarkdownTable`]: a table built row by row within a [`RenderBudget`], with the notice on
//!   rows left out ("12 more tables are not shown: …").
//! - [`escape_cell`]: one text for a table cell or a line of prose.
//! - [`inline_code`]: a name in a sentence, in a code span no backtick run can close.
//! - [`code_block`]: text quoted verbatim (a database's message), in a fence no line can close.
//! - [`quoted`]: a short one-line quotation inside a message that [`render_tool_error`] shows.
//!
//! The facts the batches cannot tell (query id, stored row count, why the engine stopped, the
//! detected `LIMIT`) come in a [`ResultFacts`]; the limits in a [`RenderBudget`]. Rendering is
//! pure: no I/O, no clock, no randomness; the same input always gives the same text.
//!
//! Values: integers as is; floats with the shortest text that reads back to the same value
//! (`0.1`, `1e300`, `-0`, `NaN`, `inf`); decimals exactly, from the integer and scale, never
//! through a float; dates, times and timestamps in ISO 8601 (`2024-03-01T12:00:00.5Z`, `+05:30`
//! for a fixed offset, no suffix without a zone; a named zone such as `Europe/Paris` is shown as
//! the UTC instant with `Z`, as this crate carries no time-zone database); durations and
//! intervals as ISO 8601 durations (`P1DT2H`); binary as a hex prefix of at most 16 bytes and
//! the length (`0x48656c6c6f (5 bytes)`); lists, structs and maps as compact JSON; dictionary
//! values by their value. NULL is `∅`; text that is exactly `∅` is written `\u{2205}`, and the
//! text `NULL` stays `NULL`.
//!
//! # Untrusted input
//!
//! Values come from databases and so, indirectly, from anyone who wrote to them. The promises:
//!
//! - **No structure or markup from values.** In cells, column names and the query id, `|` `\`
//!   and `` ` `` are backslash-escaped, line breaks and tabs become `\n` `\r` `\t`, control and
//!   invisible characters (NUL, escape, bidi overrides, byte order mark) become `\u{..}`, `<`
//!   becomes `&lt;` (no tags, no autolinks), `&` becomes `&amp;` where it would start an entity,
//!   `](` becomes `\](` (no links or images), and a leading `#`, `>` or `-` of a text is
//!   escaped. Error messages go in a code block fenced longer than any backtick run inside
//!   them (line breaks kept); names in sentences go in code spans delimited the same way (`\`,
//!   `|` and line breaks escaped as in cells). In both, control and invisible characters
//!   become `\u{..}`.
//! - **Masked columns are announced.** A result column whose field metadata has
//!   [`MASKED_FIELD_METADATA`] gets a notice under the table quoting the reason and saying the
//!   values are not the stored ones.
//! - **Bounded output.** [`RenderBudget`] bounds the rows (default 40), the bytes of summary and
//!   table (default 8 KiB: rows stop before the one that would pass it, and a single row wider
//!   than the budget is shortened so something of it shows), the characters of a value (default
//!   255, cut in the middle by characters, never inside a UTF-8 sequence) and the columns
//!   (default 32). Notices are bounded lines; type names and nesting are bounded in depth.
//!   [`MarkdownTable`] keeps the same budget; [`escape_cell`], [`inline_code`], [`code_block`]
//!   and [`quoted`] take a character limit and cut in the middle past it.
//! - **No panics** on any value of any type: types without a dedicated format fall back to
//!   Arrow's display, invalid dictionary keys read as NULL, out-of-range times say so.
//!
//! # Performance
//!
//! Only the rows shown are touched: the renderer reads batch lengths up to the first row to
//! show, then formats cells straight from the arrays, with no slicing copy, no concatenation
//! and no conversion of the rest. A ten-million-row result costs the same as a 41-row one; a
//! 1 MB text value costs as much as its first and last 127 characters; a list of a million
//! elements stops being written once its cell is full. Each column's formatting path is chosen
//! once per batch, and numbers are written without `fmt` padding machinery.
//!
//! The `render` benchmark of the `nao` workspace (`cargo bench --bench render`) measures a
//! 40 × 20 page of mixed types at about 40–50 µs (roughly 20 ns per integer cell, 70 ns per
//! float or timestamp, 120 ns per small list) on a busy 2-core machine, and prints the cost per
//! cell and the 10M-row / 41-row ratio (about 1.0).
#![forbid(unsafe_code)]

mod budget;
pub mod calendar;
mod cell;
mod code_block;
mod data_type;
mod escape;
mod facts;
mod human;
mod inline_code;
mod markdown_table;
mod masked;
mod nested;
mod notice;
mod page;
mod quoted;
mod result;
mod summary;
mod table;
mod temporal;
mod text_cell;
mod tool_error;
mod value;

pub use budget::RenderBudget;
pub use cell::cell_text;
pub use code_block::code_block;
pub use facts::{ResultFacts, Truncation};
pub use human::{human_cell, human_number};
pub use inline_code::inline_code;
pub use markdown_table::MarkdownTable;
pub use masked::MASKED_FIELD_METADATA;
pub use page::render_page;
pub use quoted::quoted;
pub use result::render_result;
pub use text_cell::escape_cell;
pub use tool_error::{ToolErrorReport, render_tool_error};
