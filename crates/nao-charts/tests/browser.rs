//! Charts and a story in a real browser: headless Chromium loads every chart type's SVG and a
//! story page, and a script in the page measures what it drew: no script errors, every chart
//! drawn at a non-zero size with marks of a non-zero size, no text outside its chart (or the
//! KPI number outside its card), every text drawn at the width charts-rs laid it out for (also
//! when a wider font than Roboto draws it), no story content wider than the page. Each chart and the
//! story are also saved as PNG screenshots in `target/tmp/nao-charts-browser/` for a person to
//! look at.
//!
//! Needs `NAO_TEST_CHROMIUM` (the browser, e.g. `/usr/bin/chromium` from Debian's `chromium`
//! package; `.ci/run` installs it and sets this); without it the test says so and passes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod common;

use std::path::{Path, PathBuf};

use common::chromium::{chromium, profile_dir, screenshot};
use common::demo_queries::{BY_CATEGORY, MONTHLY_BY_CHANNEL as MONTHLY};
use common::{demo_context, query_in as query};
use nao_charts::{render_story_html, render_svg};
use nao_core::QueryResult;
use nao_core::chart::{AxisType, ChartSpec, ChartType, Series};
use nao_core::story::StoryVersion;
use serde_json::{Value, json};

/// The script each page runs once loaded: it writes what it measured as JSON into
/// `<pre id="nao-result">`, which the test reads from the DOM Chromium prints.
const MEASURE: &str = r#"<script>
const naoErrors = [];
window.addEventListener('error', e => naoErrors.push(String(e.message)));
const naoConsoleError = console.error;
console.error = (...args) => { naoErrors.push(args.join(' ')); naoConsoleError(...args); };
window.addEventListener('load', () => {
  const charts = [];
  for (const svg of document.querySelectorAll('svg')) {
    const box = svg.getBoundingClientRect();
    const chart = { id: svg.closest('[data-kind]')?.dataset.kind ?? 'story', width: box.width,
      height: box.height, marks: 0, outside: [], unfitted: [], texts: 0, fitted: 0,
      widest: 0 };
    for (const mark of svg.querySelectorAll('rect, path, circle, polyline, line')) {
      const b = mark.getBoundingClientRect();
      if (b.width > 0 || b.height > 0) chart.marks += 1;
    }
    for (const text of svg.querySelectorAll('text')) {
      const content = text.textContent.trim();
      if (!content) continue;
      chart.texts += 1;
      const want = parseFloat(text.getAttribute('textLength'));
      if (want > 0) {
        // Drawn at the width the layout gave it, whatever the font: and how wide the font
        // would have drawn it unfitted.
        chart.fitted += 1;
        const drawn = text.getBBox().width;
        if (Math.abs(drawn - want) > Math.max(2, want * 0.06)) {
          chart.unfitted.push({ text: content, want, drawn });
        }
        text.removeAttribute('textLength');
        chart.widest = Math.max(chart.widest, text.getComputedTextLength() / want);
        text.setAttribute('textLength', want);
      }
      // Chromium's box of a text is a pixel wider than its advance (30.36 px of "150k" at
      // 14 px in a 31.36 px box), and charts-rs sets an end label flush with the chart's
      // edge: up to one and a half pixels past the edge is that box, not text.
      const b = text.getBoundingClientRect();
      if (b.width <= 0 || b.left < box.left - 1.5 || b.right > box.right + 1.5 ||
          b.top < box.top - 1 || b.bottom > box.bottom + 1) {
        chart.outside.push({ text: content, left: b.left - box.left, right: b.right - box.left,
          top: b.top - box.top, bottom: b.bottom - box.top, width: box.width, height: box.height });
      }
    }
    charts.push(chart);
  }
  const page = { scrollWidth: document.documentElement.scrollWidth, width: window.innerWidth };
  const result = document.createElement('pre');
  result.id = 'nao-result';
  result.textContent = JSON.stringify({ errors: naoErrors, charts, page });
  document.body.appendChild(result);
});
</script>"#;

/// What the page's script measured, read from the DOM Chromium printed.
fn measured(browser: &Path, profile: &Path, page: &Path) -> Value {
    let dom = chromium(
        browser,
        profile,
        &["--dump-dom".to_owned()],
        &format!("file://{}", page.display()),
    );
    let start = dom.find("<pre id=\"nao-result\">").expect("the script ran") + 21;
    let end = dom[start..].find("</pre>").unwrap() + start;
    let json = dom[start..end]
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    serde_json::from_str(&json).unwrap()
}

/// The SVG width and height attributes.
fn svg_size(svg: &str) -> (u32, u32) {
    let tag = &svg[..svg.find('>').unwrap()];
    let get = |name: &str| {
        let start = tag.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
        let end = tag[start..].find('"').unwrap() + start;
        tag[start..end].parse::<f64>().unwrap().ceil() as u32
    };
    (get("width"), get("height"))
}

#[tokio::test(flavor = "multi_thread")]
async fn every_chart_and_a_story_render_in_chromium() {
    let Some(browser) = std::env::var_os("NAO_TEST_CHROMIUM").map(PathBuf::from) else {
        eprintln!(
            "skipped: set NAO_TEST_CHROMIUM to a Chromium binary (apt-get install chromium; \
             .ci/run does both) to check the charts in a real browser"
        );
        return;
    };
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nao-charts-browser");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let profile = profile_dir(&dir);

    let ctx = demo_context();
    let monthly = query(&ctx, MONTHLY).await;
    let category = query(&ctx, BY_CATEGORY).await;
    let products = query(&ctx, "SELECT price, cost FROM products").await;
    let total = query(&ctx, "SELECT SUM(total) AS revenue FROM orders").await;
    let named = query(
        &ctx,
        "SELECT name || ' (' || category || ', catalogue edition)' AS product, price \
         FROM products ORDER BY price DESC LIMIT 8",
    )
    .await;
    let daily = query(
        &ctx,
        "SELECT date(ordered_at) AS day, total FROM orders ORDER BY random() LIMIT 200",
    )
    .await;
    let channels = || {
        vec![
            Series::new("web").with_label("Web"),
            Series::new("mobile").with_label("Mobile"),
            Series::new("store").with_label("Store"),
        ]
    };
    let revenue = || vec![Series::new("revenue").with_label("Revenue")];
    let charts: Vec<(ChartType, &QueryResult, &str, AxisType, Vec<Series>)> = vec![
        (
            ChartType::Bar,
            &named,
            "product",
            AxisType::Category,
            vec![Series::new("price")],
        ),
        (
            ChartType::Scatter,
            &daily,
            "day",
            AxisType::Date,
            vec![Series::new("total")],
        ),
        (
            ChartType::Bar,
            &category,
            "category",
            AxisType::Category,
            revenue(),
        ),
        (
            ChartType::HorizontalBar,
            &category,
            "category",
            AxisType::Category,
            revenue(),
        ),
        (
            ChartType::StackedBar,
            &monthly,
            "month",
            AxisType::Date,
            channels(),
        ),
        (
            ChartType::Line,
            &monthly,
            "month",
            AxisType::Date,
            channels(),
        ),
        (
            ChartType::Area,
            &monthly,
            "month",
            AxisType::Date,
            vec![Series::new("web")],
        ),
        (
            ChartType::StackedArea,
            &monthly,
            "month",
            AxisType::Date,
            channels(),
        ),
        (
            ChartType::Pie,
            &category,
            "category",
            AxisType::Category,
            revenue(),
        ),
        (
            ChartType::Donut,
            &category,
            "category",
            AxisType::Category,
            revenue(),
        ),
        (
            ChartType::Scatter,
            &products,
            "price",
            AxisType::Number,
            vec![Series::new("cost")],
        ),
        (
            ChartType::KpiCard,
            &total,
            "revenue",
            AxisType::Number,
            revenue(),
        ),
    ];
    let mut figures = String::new();
    let mut pages = Vec::new();
    for (kind, result, x, axis, series) in charts {
        let spec = ChartSpec::new(result.id.as_str(), kind, x, axis, series, kind.name());
        let svg = render_svg(&spec, result).unwrap();
        // A chart type's first chart is named by its type, the next ones by their x column too.
        let name = if pages
            .iter()
            .any(|(p, _): &(PathBuf, _)| p.ends_with(format!("{}.svg", kind.name())))
        {
            format!("{}-by-{x}", kind.name())
        } else {
            kind.name().to_owned()
        };
        let path = dir.join(format!("{name}.svg"));
        std::fs::write(&path, &svg).unwrap();
        pages.push((path, svg_size(&svg)));
        figures.push_str(&format!(
            "<figure data-kind=\"{name}\" style=\"margin:0 0 1rem\">{svg}</figure>\n"
        ));
    }
    let harness = dir.join("charts.html");
    std::fs::write(
        &harness,
        format!("<!doctype html><html><body style=\"margin:0\">{figures}{MEASURE}</body></html>"),
    )
    .unwrap();
    // The same charts on a machine whose sans-serif is wider than the Roboto charts-rs lays
    // text out with: DejaVu Sans (Debian's default, installed with Chromium) for every text.
    let wide_font = dir.join("charts-wide-font.html");
    std::fs::write(
        &wide_font,
        format!(
            "<!doctype html><html><head><style>svg text {{ font-family: 'DejaVu Sans' \
             !important }}</style></head><body style=\"margin:0\">{figures}{MEASURE}</body></html>"
        ),
    )
    .unwrap();

    let story = StoryVersion::new(
        1,
        "Revenue review",
        format!(
            "# Summary\n\n1. **Electronics** leads, *well ahead*.\n2. Then [the rest](#rest).\n\n\
             | a | b |\n|---|---|\n| 1 | 2 |\n\n\
             <grid cols=\"2\">\n<chart query_id=\"{}\" chart_type=\"line\" x_axis_key=\"month\" \
             x_axis_type=\"date\" series='[{{\"data_key\": \"web\", \"label\": \"Web\"}}]' \
             title=\"Monthly web revenue\" />\n<table query_id=\"{}\" title=\"By category\" />\n\
             </grid>\n\n<chart query_id=\"{}\" chart_type=\"kpi_card\" x_axis_key=\"revenue\" \
             series='[{{\"data_key\": \"revenue\"}}]' title=\"Total revenue\" />\n",
            monthly.id, category.id, total.id
        ),
        None,
    );
    let html = render_story_html(&story, ctx.results()).await.unwrap();
    // The page as a host serves it (for the screenshot), and a copy with the measuring script.
    let story_page = dir.join("story.html");
    std::fs::write(&story_page, &html).unwrap();
    let story_measured = dir.join("story-measured.html");
    std::fs::write(
        &story_measured,
        html.replace("</body>", &format!("{MEASURE}</body>")),
    )
    .unwrap();

    // The measurements, in the fonts this machine picks from the stack, then in a wide one.
    let mut widest = 0.0_f64;
    for page in [&harness, &wide_font] {
        let charts = measured(&browser, &profile, page);
        let page = page.display();
        assert_eq!(charts["errors"], json!([]), "script errors in {page}");
        let drawn = charts["charts"].as_array().unwrap();
        assert_eq!(drawn.len(), pages.len(), "one SVG per chart: {charts}");
        for chart in drawn {
            let id = chart["id"].as_str().unwrap();
            assert!(
                chart["width"].as_f64().unwrap() > 0.0 && chart["height"].as_f64().unwrap() > 0.0,
                "{id} has no size: {chart}"
            );
            assert!(
                chart["marks"].as_u64().unwrap() > 0,
                "{id} drew no mark: {chart}"
            );
            assert_eq!(
                chart["outside"],
                json!([]),
                "{id}, {page}: text outside the chart"
            );
            assert_eq!(
                chart["fitted"], chart["texts"],
                "{id}, {page}: every text sized to its layout: {chart}"
            );
            assert_eq!(
                chart["unfitted"],
                json!([]),
                "{id}, {page}: text not at its width"
            );
            widest = widest.max(chart["widest"].as_f64().unwrap());
        }
    }
    // The check means something: unfitted, the wide font would draw some text well past the
    // width it was laid out for.
    assert!(
        widest > 1.05,
        "no text would have been drawn wider than laid out ({widest:.3}x)"
    );
    let story = measured(&browser, &profile, &story_measured);
    assert_eq!(story["errors"], json!([]), "script errors in the story");
    let story_charts = story["charts"].as_array().unwrap();
    assert_eq!(story_charts.len(), 2, "the story's two charts: {story}");
    for chart in story_charts {
        assert!(
            chart["width"].as_f64().unwrap() > 0.0,
            "story chart: {chart}"
        );
        assert_eq!(
            chart["outside"],
            json!([]),
            "story chart text outside: {chart}"
        );
    }
    assert!(
        story["page"]["scrollWidth"].as_f64().unwrap() <= story["page"]["width"].as_f64().unwrap(),
        "the story is wider than the page: {}",
        story["page"]
    );

    // The screenshots, a few browsers at a time.
    let mut shots = Vec::new();
    for batch in pages.chunks(4) {
        let handles: Vec<_> = batch
            .iter()
            .cloned()
            .map(|(page, size)| {
                let (browser, profile) = (browser.clone(), profile_dir(&dir));
                std::thread::spawn(move || screenshot(&browser, &profile, &page, size))
            })
            .collect();
        shots.extend(handles.into_iter().map(|h| h.join().unwrap()));
    }
    shots.push(screenshot(&browser, &profile, &story_page, (1200, 1600)));
    eprintln!("screenshots: {shots:?}");
}
