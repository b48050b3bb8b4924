//! The KPI card: a title, one big number and its label.

use nao_core::chart::{ChartData, PALETTE};
use nao_core::render::human_number;

use crate::escape::escape;
use crate::render::FONT_STACK;

pub(crate) fn kpi_svg(title: &str, data: &ChartData, width: u32, height: u32) -> String {
    let series = data.series.first();
    let value = series
        .and_then(|s| s.values.first().copied().flatten())
        .map_or_else(|| "—".to_owned(), human_number);
    let label = series.map_or("", |s| s.label.as_str());
    let color = series.map_or(PALETTE[0], |s| s.color.as_str());
    let cx = width / 2;
    // Big, but inside the card with room to spare: in Roboto a digit is about 0.6 em; the
    // number takes at most 70% of the width there, and the renderer draws it at Roboto's
    // width whatever font the browser picks (`fit_text`).
    let chars = u32::try_from(value.chars().count())
        .unwrap_or(u32::MAX)
        .max(1);
    let font_size = (width * 7 / 10 * 10 / 6 / chars).clamp(12, 72);
    format!(
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         xmlns=\"http://www.w3.org/2000/svg\">\n\
         <rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>\n\
         <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{FONT_STACK}\" font-size=\"20\" \
         fill=\"#464646\">{}</text>\n\
         <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{FONT_STACK}\" font-size=\"{font_size}\" \
         font-weight=\"bold\" fill=\"{}\">{}</text>\n\
         <text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-family=\"{FONT_STACK}\" font-size=\"16\" \
         fill=\"#6e7079\">{}</text>\n</svg>",
        height / 5,
        escape(title),
        height / 2 + 24,
        escape(color),
        escape(&value),
        height * 4 / 5,
        escape(label),
    )
}
