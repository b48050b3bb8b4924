//! Charts over stored query results: the typed [`ChartSpec`] the display_chart tool takes, its
//! validation against the result ([`validate`]), the plotted values ([`ChartData`], read from
//! the result, never from the model) and the Vega-Lite export ([`to_vega_lite`]). SVG rendering
//! lives in the `nao-charts` crate, so this crate stays light.

mod data;
mod palette;
mod spec;
mod thin;
mod validate;
mod values;
mod vega_lite;

pub use data::{ChartData, SeriesData};
pub use palette::PALETTE;
pub use spec::{AxisType, ChartSpec, ChartType, Series};
pub use thin::MAX_PLOTTED_POINTS;
pub use validate::{
    ChartSpecError, MAX_BARS, MAX_CHART_ROWS, MAX_PIE_SLICES, MAX_SERIES, MAX_TITLE_CHARS, validate,
};
pub use values::{
    XValue, format_number, is_numeric, is_temporal, looks_like_iso_date, number_at, x_value_at,
};
pub use vega_lite::{VEGA_LITE_SCHEMA, to_vega_lite, vega_lite_from_data};
