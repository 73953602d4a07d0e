//! PNG figures for reproduction reports: grouped bars and lines, with plotters.
//!
//! Figures for a paper (issue 33 item 6): the legend sits in its own strip right of the
//! plot, never over data; series take the Okabe–Ito colours (distinct under the common
//! colour-vision deficiencies), lines also differ by marker; both axes carry a label; a bar
//! or point may carry a 95% interval as an error bar.
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

/// Okabe & Ito's colour-blind-safe palette (black last: it is also the axes' colour).
const COLORS: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(213, 94, 0),
    RGBColor(86, 180, 233),
    RGBColor(204, 121, 167),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

/// Series `i`'s colour: the palette, then (past eight series) its colours half-tinted.
fn color(i: usize) -> RGBColor {
    let c = COLORS[i % COLORS.len()];
    if i < COLORS.len() {
        c
    } else {
        let tint = |x: u8| x / 2 + 128;
        RGBColor(tint(c.0), tint(c.1), tint(c.2))
    }
}

type PlotResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// A figure's title and axis labels.
#[derive(Clone, Copy)]
pub struct Axes<'a> {
    pub title: &'a str,
    pub x: &'a str,
    pub y: &'a str,
}

/// A 95% interval per value of each series (same shape as the series; None: no bar).
pub type Errors = [Vec<Option<(f64, f64)>>];

/// Width of the legend strip for these series names.
fn legend_width(series: &[(String, Vec<f64>)]) -> u32 {
    let longest = series.iter().map(|s| s.0.chars().count()).max().unwrap_or(0);
    (longest * 8 + 44).max(90) as u32
}

/// The legend in its own strip: a swatch (and, for lines, the marker) and the name per series.
fn draw_legend(
    area: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
    series: &[(String, Vec<f64>)],
    lines: bool,
) -> PlotResult {
    for (i, (name, _)) in series.iter().enumerate() {
        let y = 40 + i as i32 * 22;
        let c = color(i);
        if lines {
            area.draw(&PathElement::new(vec![(8, y), (30, y)], c.stroke_width(2)))?;
            area.draw(&marker(i, (19, y), c))?;
        } else {
            area.draw(&Rectangle::new([(10, y - 6), (28, y + 6)], c.filled()))?;
            area.draw(&Rectangle::new([(10, y - 6), (28, y + 6)], BLACK.stroke_width(1)))?;
        }
        area.draw(&Text::new(name.clone(), (36, y - 7), ("sans-serif", 14).into_font()))?;
    }
    Ok(())
}

/// Series `i`'s marker at `at`: circle, triangle, square, diamond in turn.
fn marker<'b>(i: usize, at: (i32, i32), c: RGBColor) -> DynElement<'static, BitMapBackend<'b>, (i32, i32)> {
    let (x, y) = at;
    let style = c.filled();
    match i % 4 {
        0 => Circle::new((x, y), 4, style).into_dyn(),
        1 => Polygon::new(vec![(x, y - 5), (x - 5, y + 4), (x + 5, y + 4)], style).into_dyn(),
        2 => Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style).into_dyn(),
        _ => Polygon::new(vec![(x, y - 5), (x - 5, y), (x, y + 5), (x + 5, y)], style).into_dyn(),
    }
}

/// A y-axis tick as a reader wants it: no decimals past 100, one past 1, two below.
fn y_tick(v: &f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 1.0 => format!("{v:.1}"),
        _ => format!("{v:.2}"),
    }
}

/// The largest value or interval end of the series, with 10% headroom.
fn y_max(series: &[(String, Vec<f64>)], errors: Option<&Errors>) -> f64 {
    let values = series.iter().flat_map(|s| s.1.iter().copied());
    let ends = errors.into_iter().flatten().flatten().flatten().map(|&(_, hi)| hi);
    values.chain(ends).filter(|v| v.is_finite()).fold(0.0f64, f64::max).max(1e-9) * 1.1
}

/// Grouped bars: one group per category, one bar per series, each with its interval from
/// `errors` where given.
pub fn bar_chart(
    path: &Path,
    axes: Axes,
    categories: &[String],
    series: &[(String, Vec<f64>)],
    errors: Option<&Errors>,
) -> PlotResult {
    let text = have_font();
    let legend = if text { legend_width(series) } else { 0 };
    let width = (160 + categories.len() * (series.len() * 14 + 16)).max(640) as u32 + legend;
    let root = BitMapBackend::new(path, (width, 440)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot_area, legend_area) = root.split_horizontally(width - legend);
    let n = categories.len().max(1);
    let mut b = ChartBuilder::on(&plot_area);
    b.margin(10);
    if text {
        b.caption(axes.title, ("sans-serif", 18)).x_label_area_size(50).y_label_area_size(70);
    }
    let mut chart = b.build_cartesian_2d(0.0..n as f64, 0.0..y_max(series, errors))?;
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
        mesh.x_desc(axes.x)
            .y_desc(axes.y)
            .x_labels(n * 2 + 1)
            .x_label_formatter(&fmt)
            .x_label_style(("sans-serif", 11));
    } else {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw()?;
    let w = 0.8 / series.len().max(1) as f64;
    for (si, (_, vals)) in series.iter().enumerate() {
        let c = color(si);
        let x0 = |ci: usize| ci as f64 + 0.1 + si as f64 * w;
        chart.draw_series(
            vals.iter().enumerate().map(|(ci, &v)| Rectangle::new([(x0(ci), 0.0), (x0(ci) + w * 0.9, v)], c.filled())),
        )?;
        let errs = errors.and_then(|e| e.get(si)).into_iter().flatten().enumerate();
        for (ci, (lo, hi)) in errs.filter_map(|(ci, e)| e.map(|e| (ci, e))) {
            let (mid, cap) = (x0(ci) + w * 0.45, w * 0.2);
            for seg in [
                vec![(mid, lo), (mid, hi)],
                vec![(mid - cap, lo), (mid + cap, lo)],
                vec![(mid - cap, hi), (mid + cap, hi)],
            ] {
                chart.draw_series(std::iter::once(PathElement::new(seg, BLACK.stroke_width(1))))?;
            }
        }
    }
    if text {
        draw_legend(&legend_area, series, false)?;
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
            format!("{:.0} MiB", bytes / 1048576.0)
        } else {
            format!("{:.0} KiB", bytes / 1024.0)
        }
    };
    draw_lines(path, Axes { title, x: x_label, y: y_label }, &lx, series, &fmt)
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
    draw_lines(path, Axes { title, x: x_label, y: y_label }, xs, series, &|v: &f64| format!("{v}"))
}

/// Lines through (x, value) points, x already on the axis's scale; `fmt` labels the x axis.
fn draw_lines(
    path: &Path,
    axes: Axes,
    lx: &[f64],
    series: &[(String, Vec<f64>)],
    fmt: &dyn Fn(&f64) -> String,
) -> PlotResult {
    let text = have_font();
    let legend = if text { legend_width(series) } else { 0 };
    let width = 720 + legend;
    let root = BitMapBackend::new(path, (width, 440)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot_area, legend_area) = root.split_horizontally(width - legend);
    let (x0, x1) = (
        lx.first().copied().unwrap_or(0.0),
        lx.last().copied().unwrap_or(1.0).max(lx.first().copied().unwrap_or(0.0) + 1.0),
    );
    let mut b = ChartBuilder::on(&plot_area);
    b.margin(10);
    if text {
        b.caption(axes.title, ("sans-serif", 18)).x_label_area_size(50).y_label_area_size(70);
    }
    let mut chart = b.build_cartesian_2d(x0..x1, 0.0..y_max(series, None))?;
    let mut mesh = chart.configure_mesh();
    if text {
        mesh.x_desc(axes.x).y_desc(axes.y).y_label_formatter(&y_tick).x_label_formatter(fmt);
    } else {
        mesh.disable_x_axis().disable_y_axis();
    }
    mesh.draw()?;
    for (si, (_, vals)) in series.iter().enumerate() {
        let c = color(si);
        let pts: Vec<(f64, f64)> = lx.iter().copied().zip(vals.iter().copied()).collect();
        chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?;
        let backend_pts: Vec<(i32, i32)> = pts.iter().map(|&p| chart.backend_coord(&p)).collect();
        for at in backend_pts {
            plot_area.draw(&marker(si, at, c))?;
        }
    }
    if text {
        draw_legend(&legend_area, series, true)?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first 16 series get 16 different colours, the palette's eight first.
    #[test]
    fn sixteen_series_have_sixteen_colours() {
        let cs: Vec<RGBColor> = (0..16).map(color).collect();
        assert_eq!(cs[..8], COLORS);
        for (i, a) in cs.iter().enumerate() {
            assert!(cs[i + 1..].iter().all(|b| b != a), "series {i}'s colour repeats");
        }
    }

    /// The y axis reaches 10% past the largest value or interval end: 2 and 3 with an
    /// interval up to 5 → 5.5; a non-finite value is ignored.
    #[test]
    fn the_y_axis_holds_every_interval() {
        let series = [("a".to_string(), vec![2.0, 3.0]), ("b".to_string(), vec![f64::NAN, 1.0])];
        assert!((y_max(&series, None) - 3.3).abs() < 1e-12);
        let errors = [vec![None, Some((1.0, 5.0))], vec![None, None]];
        assert!((y_max(&series, Some(&errors)) - 5.5).abs() < 1e-12);
    }
}
