//! PNG figures for reproduction reports: grouped bars and lines, with plotters.
//!
//! Text needs a font; plotters is built without system font lookup (no C libraries), so a
//! TrueType font is loaded from the usual system places once. Without one, figures are
//! drawn without text and the caller is told so.

use std::path::Path;
use std::sync::OnceLock;

use plotters::prelude::*;

const FONT_PATHS: [&str; 5] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
];

/// Whether a font is available for text (registered on first call).
pub fn have_font() -> bool {
    static FONT: OnceLock<bool> = OnceLock::new();
    *FONT.get_or_init(|| {
        for p in FONT_PATHS {
            if let Ok(bytes) = std::fs::read(p) {
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                    return true;
                }
            }
        }
        false
    })
}

const COLORS: [RGBColor; 6] = [
    RGBColor(120, 120, 120),
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
];

type PlotResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// Grouped bars: one group per category, one bar per series.
pub fn bars(
    path: &Path,
    title: &str,
    y_label: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
) -> PlotResult {
    let text = have_font();
    let width = (160 + categories.len() * (series.len() * 14 + 16)).max(640) as u32;
    let root = BitMapBackend::new(path, (width, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let ymax = series.iter().flat_map(|s| s.1.iter().copied()).fold(0.0f64, f64::max).max(1e-9) * 1.1;
    let n = categories.len().max(1);
    let mut b = ChartBuilder::on(&root);
    b.margin(10);
    if text {
        b.caption(title, ("sans-serif", 18)).x_label_area_size(60).y_label_area_size(60);
    }
    let mut chart = b.build_cartesian_2d(0.0..n as f64, 0.0..ymax)?;
    let cats = categories.to_vec();
    let fmt = move |x: &f64| {
        let i = x.floor() as usize;
        if (x - x.floor() - 0.5).abs() < 1e-6 && i < cats.len() {
            cats[i].clone()
        } else {
            String::new()
        }
    };
    let mut mesh = chart.configure_mesh();
    mesh.disable_x_mesh();
    if text {
        mesh.y_desc(y_label).x_labels(n * 2 + 1).x_label_formatter(&fmt).x_label_style(("sans-serif", 11));
    } else {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw()?;
    let k = series.len().max(1) as f64;
    let w = 0.8 / k;
    for (si, (name, vals)) in series.iter().enumerate() {
        let color = COLORS[si % COLORS.len()];
        let rects = vals.iter().enumerate().map(move |(ci, &v)| {
            let x0 = ci as f64 + 0.1 + si as f64 * w;
            Rectangle::new([(x0, 0.0), (x0 + w * 0.9, v)], color.filled())
        });
        let drawn = chart.draw_series(rects)?;
        if text {
            drawn
                .label(name.as_str())
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        }
    }
    if text {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// Lines over a log2 x axis (transfer sizes).
pub fn lines_log2(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    xs: &[f64],
    series: &[(String, Vec<f64>)],
) -> PlotResult {
    let lx: Vec<f64> = xs.iter().map(|x| x.log2()).collect();
    let fmt = |v: &f64| {
        let bytes = 2f64.powf(*v);
        if bytes >= 1048576.0 {
            format!("{:.0}M", bytes / 1048576.0)
        } else {
            format!("{:.0}K", bytes / 1024.0)
        }
    };
    draw_lines(path, (title, x_label, y_label), &lx, series, &fmt)
}

/// Lines over a linear x axis (channel counts, ...), x values printed as they are.
pub fn lines(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    xs: &[f64],
    series: &[(String, Vec<f64>)],
) -> PlotResult {
    draw_lines(path, (title, x_label, y_label), xs, series, &|v: &f64| format!("{v}"))
}

/// Lines through (x, value) points, x already on the axis's scale; `fmt` labels the x axis.
fn draw_lines(
    path: &Path,
    (title, x_label, y_label): (&str, &str, &str),
    lx: &[f64],
    series: &[(String, Vec<f64>)],
    fmt: &dyn Fn(&f64) -> String,
) -> PlotResult {
    let text = have_font();
    let root = BitMapBackend::new(path, (720, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let (x0, x1) = (lx.first().copied().unwrap_or(0.0), lx.last().copied().unwrap_or(1.0).max(lx[0] + 1.0));
    let ymax = series.iter().flat_map(|s| s.1.iter().copied()).fold(0.0f64, f64::max).max(1e-9) * 1.1;
    let mut b = ChartBuilder::on(&root);
    b.margin(10);
    if text {
        b.caption(title, ("sans-serif", 18)).x_label_area_size(45).y_label_area_size(60);
    }
    let mut chart = b.build_cartesian_2d(x0..x1, 0.0..ymax)?;
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc(x_label).y_desc(y_label).x_label_formatter(fmt);
    } else {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw()?;
    for (si, (name, vals)) in series.iter().enumerate() {
        let color = COLORS[si % COLORS.len()];
        let pts: Vec<(f64, f64)> = lx.iter().copied().zip(vals.iter().copied()).collect();
        let drawn = chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?;
        if text {
            drawn.label(name.as_str()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], color));
        }
        chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    if text {
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    }
    root.present()?;
    Ok(())
}
