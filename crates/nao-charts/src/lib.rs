//! # nao-charts
//!
//! SVG rendering of the charts the display_chart tool validates ([`ChartSpec`]), from the
//! stored [`QueryResult`] they chart, without a browser: every chart type (bar,
//! horizontal_bar, stacked_bar, line, area, stacked_area, pie, donut, scatter, kpi_card).
//!
//! [`ChartSpec`]: nao_core::chart::ChartSpec
//!
//! ```
//! use std::sync::Arc;
//! use nao_core::arrow::array::{Int64Array, RecordBatch, StringArray};
//! use nao_core::arrow::datatypes::{DataType, Field, Schema};
//! use nao_core::chart::{AxisType, ChartSpec, ChartType, Series};
//! use nao_core::{QueryId, QueryResult};
//!
//! let schema = Arc::new(Schema::new(vec![
//!     Field::new("region", DataType::Utf8, false),
//!     Field::new("orders", DataType::Int64, false),
//! ]));
//! let batch = RecordBatch::try_new(schema.clone(), vec![
//!     Arc::new(StringArray::from(vec!["north", "south"])),
//!     Arc::new(Int64Array::from(vec![120, 80])),
//! ]).unwrap();
//! let mut result = QueryResult::new(QueryId::random(), "shop", "SELECT …", schema);
//! result.batches.push(batch);
//! result.row_count = 2;
//!
//! let spec = ChartSpec::new(result.id.as_str(), ChartType::Bar, "region", AxisType::Category,
//!     vec![Series::new("orders")], "Orders by region");
//! let svg = nao_charts::render_svg(&spec, &result).unwrap();
//! assert!(svg.starts_with("<svg") && svg.contains("Orders by region"));
//! ```
//!
//! ## Usage
//! Take the spec from the display_chart tool's output (or its `"chart"` artifact) and the
//! result from the [`ResultStore`](nao_core::ResultStore), and call [`render_svg`]. The spec is
//! validated again here, so a spec from elsewhere cannot draw columns the result lacks.
//! [`render_story_html`] turns a whole story into a standalone HTML document, its charts
//! inline SVG and its tables HTML tables, for a host to show or export.
//!
//! ## Why charts-rs
//! We evaluated [charts-rs](https://crates.io/crates/charts-rs) 2.3 and
//! [plotters](https://crates.io/crates/plotters) 0.3.7. charts-rs has every chart type we
//! need as a ready chart with legend, title and axis labelling (bar, horizontal bar, stacked
//! series, line, filled area, pie with an inner radius for donuts, scatter), escapes labels,
//! measures text with an embedded font (no system fonts, deterministic output), and with
//! default features off depends only on serde, serde_json, ttf-parser and arc-swap. plotters is
//! a lower-level drawing library: no stacked series, no legend layout for pies, and text
//! measurement needs its `ttf`/font-kit features (system fonts) or `ab_glyph` with a font we
//! would ship; its default features pull image codecs and chrono. The KPI card is drawn here
//! (a title, one number, a label).
//!
//! ## Untrusted input
//! Titles, labels and values come from the model and the database: every text is escaped,
//! colours are checked by the spec validation, and sizes are bounded by
//! [`MAX_CHART_ROWS`](nao_core::chart::MAX_CHART_ROWS) and
//! [`MAX_SERIES`](nao_core::chart::MAX_SERIES). Nothing panics on bad input; it returns
//! [`ChartError`].
#![forbid(unsafe_code)]

mod escape;
mod fit_text;
mod kpi;
mod render;
mod story_html;
mod ticks;
mod time_axis;

pub use render::{ChartError, SVG_HEIGHT, SVG_WIDTH, render_svg};
pub use story_html::{MAX_HTML_TABLE_ROWS, StoryHtmlError, render_story_html};

use nao_core::QueryResult;
