//! A PNG of a training run: the loss of every step (top panel) and the train/test accuracy
//! of every epoch (bottom panel), with axis labels and legends.
//!
//! Text is drawn with the DejaVu Sans font compiled in (crate `dejavu`) through `ab_glyph`,
//! so no system font, fontconfig or freetype is needed.
//!
//! ```
//! use xla::train::TrainLog;
//!
//! let mut log = TrainLog::default();
//! for i in 0..50 {
//!     log.record_loss(2.3 / (1.0 + i as f64 / 5.0));
//!     if i % 10 == 9 {
//!         log.record_epoch(Some(60.0 + i as f64 / 2.0), Some(58.0 + i as f64 / 2.0));
//!     }
//! }
//! let path = std::env::temp_dir().join(format!("xla-doc-plot-{}.png", std::process::id()));
//! log.save_plot(&path, "doc example")?;
//! assert!(std::fs::read(&path).unwrap().starts_with(b"\x89PNG"));
//! # std::fs::remove_file(&path).unwrap();
//! # Ok::<(), xla::train::TrainError>(())
//! ```

use super::error::{Result, TrainError};
use super::fsutil::write_atomic_with;
use super::log::{EpochRecord, TrainLog};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;
use std::path::Path;
use std::sync::Once;

/// The font family the plots use.
const FONT: &str = "sans-serif";
/// Image size in pixels.
const SIZE: (u32, u32) = (1000, 800);
const TRAIN_COLOR: RGBColor = RGBColor(31, 119, 180);
const TEST_COLOR: RGBColor = RGBColor(214, 39, 40);

static REGISTER_FONT: Once = Once::new();

/// Registers the embedded font with plotters once per process.
fn register_font() {
    REGISTER_FONT.call_once(|| {
        // DejaVu Sans is a valid TrueType font: registration cannot fail for it; if it ever
        // did, text would be missing and drawing reports the error.
        let _ = plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Draws `log` to the PNG `path` (written atomically), titled `title`. Without epoch
/// records only the loss panel is drawn.
///
/// # Errors
/// If drawing or writing the file fails.
pub fn save_plot(log: &TrainLog, path: &Path, title: &str) -> Result<()> {
    register_font();
    let err = |e: String| TrainError::Plot {
        path: path.display().to_string(),
        reason: e,
    };
    write_atomic_with(path, |tmp| {
        let root = BitMapBackend::new(tmp, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        let root = root
            .titled(title, (FONT, 26))
            .map_err(|e| err(e.to_string()))?;
        let has_acc = log
            .epochs
            .iter()
            .any(|e| e.train_accuracy.is_some() || e.test_accuracy.is_some());
        if has_acc {
            let (top, bottom) = root.split_vertically(SIZE.1 / 2 - 20);
            draw_loss(log, &top).map_err(err)?;
            draw_accuracy(log, &bottom).map_err(err)?;
        } else {
            draw_loss(log, &root).map_err(err)?;
        }
        root.present().map_err(|e| err(e.to_string()))
    })
}

/// A range covering the finite `values`, padded by 5% (`fallback` when there are none).
fn padded_range(values: impl Iterator<Item = f64>, fallback: Range<f64>) -> Range<f64> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if lo > hi {
        return fallback;
    }
    let pad = if hi > lo {
        (hi - lo) * 0.05
    } else {
        lo.abs().max(1.0) * 0.05
    };
    (lo - pad)..(hi + pad)
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// The top panel: loss per step.
fn draw_loss(log: &TrainLog, area: &Area<'_>) -> std::result::Result<(), String> {
    let first = log.losses.first().map_or(0, |&(s, _)| s) as f64;
    let last = log.losses.last().map_or(1, |&(s, _)| s) as f64;
    let x = first..last.max(first + 1.0);
    let y = padded_range(log.losses.iter().map(|&(_, l)| l), 0.0..1.0);
    let mut chart = build_chart(area, "training loss", 20, x, y)?;
    draw_mesh(&mut chart, ("step", "loss"), None, (true, false))?;
    let points: Vec<(f64, f64)> = log
        .losses
        .iter()
        .filter(|(_, l)| l.is_finite())
        .map(|&(s, l)| (s as f64, l))
        .collect();
    let raw = TRAIN_COLOR.mix(0.35).stroke_width(1);
    chart
        .draw_series(LineSeries::new(points.iter().copied(), raw))
        .map_err(|e| e.to_string())?
        .label("loss per step")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], raw));
    let smooth = TRAIN_COLOR.stroke_width(2);
    chart
        .draw_series(LineSeries::new(smoothed(&points), smooth))
        .map_err(|e| e.to_string())?
        .label("smoothed")
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], smooth));
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// A centred moving average of `points` over a window of about 1/25 of their number (so it
/// does not lag behind the raw curve); shorter windows at the ends.
fn smoothed(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let half = points.len() / 50;
    let mut prefix = Vec::with_capacity(points.len() + 1);
    prefix.push(0.0);
    for &(_, y) in points {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + y);
    }
    points
        .iter()
        .enumerate()
        .map(|(i, &(x, _))| {
            let (lo, hi) = (i.saturating_sub(half), (i + half + 1).min(points.len()));
            let sum =
                prefix.get(hi).copied().unwrap_or(0.0) - prefix.get(lo).copied().unwrap_or(0.0);
            (x, sum / (hi - lo) as f64)
        })
        .collect()
}

/// The bottom panel: train and test accuracy per epoch.
fn draw_accuracy(log: &TrainLog, area: &Area<'_>) -> std::result::Result<(), String> {
    let first = log.epochs.first().map_or(1, |e| e.epoch) as f64;
    let last = log.epochs.last().map_or(1, |e| e.epoch) as f64;
    let x = (first - 0.5)..(last + 0.5);
    let all = log
        .epochs
        .iter()
        .flat_map(|e| [e.train_accuracy, e.test_accuracy])
        .flatten();
    let y = padded_range(all.chain([100.0]), 0.0..100.0);
    let mut chart = build_chart(area, "accuracy per epoch", 20, x, y.start..y.end.min(101.0))?;
    let ticks = ((last - first) as usize + 1).min(12);
    draw_mesh(
        &mut chart,
        ("epoch", "accuracy (%)"),
        Some(ticks),
        (true, true),
    )?;
    let train: Accuracy = |e| e.train_accuracy;
    let test: Accuracy = |e| e.test_accuracy;
    for (name, color, accuracy) in [("train", TRAIN_COLOR, train), ("test", TEST_COLOR, test)] {
        let points: Vec<(f64, f64)> = log
            .epochs
            .iter()
            .filter_map(|e| accuracy(e).map(|a| (e.epoch as f64, a)))
            .collect();
        if points.is_empty() {
            continue;
        }
        let style = color.stroke_width(2);
        chart
            .draw_series(LineSeries::new(points.clone(), style))
            .map_err(|e| e.to_string())?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        let dots = points
            .into_iter()
            .map(|p| Circle::new(p, 4, color.filled()));
        chart.draw_series(dots).map_err(|e| e.to_string())?;
    }
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// Reads one accuracy of an epoch.
type Accuracy = fn(&EpochRecord) -> Option<f64>;

/// A chart with the common margins on `area`.
fn build_chart<'a, 'b>(
    area: &'a Area<'b>,
    caption: &str,
    caption_size: u32,
    x: Range<f64>,
    y: Range<f64>,
) -> std::result::Result<Chart<'a, 'b>, String> {
    ChartBuilder::on(area)
        .caption(caption, (FONT, caption_size))
        .margin(12)
        .margin_right(30)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x, y)
        .map_err(|e| e.to_string())
}

/// How many labels the y axes ask for (plotters' default).
const Y_LABELS: usize = 11;

/// The fewest decimals (at most 6) that print the ticks plotters places on `range` for
/// `labels` labels all differently: 98.5–100 in steps of 0.5 needs one (98.5, 99.0, ...).
fn tick_decimals(range: Range<f64>, labels: usize) -> usize {
    let ticks = RangedCoordf64::from(range).key_points(labels);
    (0..6)
        .find(|&d| {
            let shown: Vec<String> = ticks.iter().map(|v| format!("{v:.d$}")).collect();
            shown.windows(2).all(|w| w[0] != w[1])
        })
        .unwrap_or(6)
}

/// Grid, tick labels (round numbers where `round` says so: integers on x, on y as few
/// decimals as keep adjacent labels apart) and axis descriptions.
fn draw_mesh(
    chart: &mut Chart<'_, '_>,
    (x_desc, y_desc): (&str, &str),
    x_ticks: Option<usize>,
    round: (bool, bool),
) -> std::result::Result<(), String> {
    let int = |v: &f64| format!("{v:.0}");
    let decimals = tick_decimals(chart.y_range(), Y_LABELS);
    let y_label = move |v: &f64| format!("{v:.decimals$}");
    let mut mesh = chart.configure_mesh();
    mesh.y_labels(Y_LABELS);
    mesh.x_desc(x_desc)
        .y_desc(y_desc)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17));
    if let Some(n) = x_ticks {
        mesh.x_labels(n);
    }
    if round.0 {
        mesh.x_label_formatter(&int);
    }
    if round.1 {
        mesh.y_label_formatter(&y_label);
    }
    mesh.draw().map_err(|e| e.to_string())
}

/// A chart of `f64` against `f64` on a bitmap.
type Chart<'a, 'b> =
    ChartContext<'a, BitMapBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// The legend box at `position`.
fn draw_legend<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    position: SeriesLabelPosition,
) -> std::result::Result<(), String> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 16))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

/// What [`save_fit_plot`] draws: observations, a predicted curve, and optionally a band of
/// ±2 standard deviations and the true function (for regression examples).
#[derive(Clone, Copy, Debug)]
pub struct FitPlot<'a> {
    /// The image's title.
    pub title: &'a str,
    /// Observed `(x, y)` points.
    pub observations: &'a [(f64, f64)],
    /// Where the curve is evaluated (increasing).
    pub x: &'a [f64],
    /// The predicted mean at each `x`.
    pub mean: &'a [f64],
    /// The predicted standard deviation at each `x` (drawn as mean ± 2 std).
    pub std: Option<&'a [f64]>,
    /// The true function at each `x`.
    pub truth: Option<&'a [f64]>,
}

/// Draws a regression fit to the PNG `path` (written atomically).
///
/// ```
/// use xla::train::plot::{save_fit_plot, FitPlot};
///
/// let x: Vec<f64> = (0..50).map(|i| i as f64 / 8.0).collect();
/// let mean: Vec<f64> = x.iter().map(|x| x.sin()).collect();
/// let std = vec![0.1; 50];
/// let path = std::env::temp_dir().join(format!("xla-doc-fit-{}.png", std::process::id()));
/// let fit = FitPlot { title: "GP", observations: &[(1.0, 0.8)], x: &x, mean: &mean, std: Some(&std), truth: None };
/// save_fit_plot(&path, &fit)?;
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), xla::train::TrainError>(())
/// ```
///
/// # Errors
/// If `mean`, `std` or `truth` differ in length from `x`, or drawing or writing fails.
pub fn save_fit_plot(path: impl AsRef<Path>, fit: &FitPlot<'_>) -> Result<()> {
    let path = path.as_ref();
    let n = fit.x.len();
    let lengths = [
        Some(fit.mean.len()),
        fit.std.map(<[f64]>::len),
        fit.truth.map(<[f64]>::len),
    ];
    if lengths.iter().flatten().any(|&l| l != n) {
        return Err(TrainError::invalid(
            "save_fit_plot",
            format!("x has {n} points but mean/std/truth have {lengths:?}"),
        ));
    }
    register_font();
    let err = |e: String| TrainError::Plot {
        path: path.display().to_string(),
        reason: e,
    };
    write_atomic_with(path, |tmp| {
        let root = BitMapBackend::new(tmp, (SIZE.0, SIZE.1 * 3 / 4)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
        draw_fit(fit, &root).map_err(err)?;
        root.present().map_err(|e| err(e.to_string()))
    })
}

/// The fit chart: band, truth, mean, observations.
fn draw_fit(fit: &FitPlot<'_>, area: &Area<'_>) -> std::result::Result<(), String> {
    let band = |sign: f64| -> Vec<(f64, f64)> {
        let std = fit.std.unwrap_or_default();
        fit.x
            .iter()
            .zip(fit.mean)
            .zip(std)
            .map(|((&x, &m), &s)| (x, m + sign * 2.0 * s))
            .collect()
    };
    let (upper, lower) = (band(1.0), band(-1.0));
    let xs = fit
        .x
        .iter()
        .copied()
        .chain(fit.observations.iter().map(|p| p.0));
    let ys = fit
        .mean
        .iter()
        .copied()
        .chain(fit.observations.iter().map(|p| p.1));
    let ys = ys.chain(upper.iter().chain(&lower).map(|p| p.1));
    let ys = ys.chain(fit.truth.unwrap_or_default().iter().copied());
    let (x, y) = (padded_range(xs, 0.0..1.0), padded_range(ys, 0.0..1.0));
    let mut chart = build_chart(area, fit.title, 24, x, y)?;
    draw_mesh(&mut chart, ("x", "y"), None, (false, false))?;
    if fit.std.is_some() {
        let polygon: Vec<(f64, f64)> = upper.into_iter().chain(lower.into_iter().rev()).collect();
        chart
            .draw_series([Polygon::new(polygon, TRAIN_COLOR.mix(0.2).filled())])
            .map_err(|e| e.to_string())?
            .label("mean ± 2 std")
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 20, y + 5)], TRAIN_COLOR.mix(0.2).filled())
            });
    }
    if let Some(truth) = fit.truth {
        let line = fit.x.iter().copied().zip(truth.iter().copied());
        let style = RGBColor(90, 90, 90).stroke_width(1);
        chart
            .draw_series(LineSeries::new(line, style))
            .map_err(|e| e.to_string())?
            .label("true function")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    let mean = fit.x.iter().copied().zip(fit.mean.iter().copied());
    chart
        .draw_series(LineSeries::new(mean, TRAIN_COLOR.stroke_width(2)))
        .map_err(|e| e.to_string())?
        .label("predicted mean")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], TRAIN_COLOR.stroke_width(2)));
    chart
        .draw_series(
            fit.observations
                .iter()
                .map(|&p| Circle::new(p, 4, TEST_COLOR.filled())),
        )
        .map_err(|e| e.to_string())?
        .label("observations")
        .legend(|(x, y)| Circle::new((x + 10, y), 4, TEST_COLOR.filled()));
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The y labels plotters would draw on `range` with `labels` labels.
    fn shown(range: Range<f64>, labels: usize) -> Vec<String> {
        let d = tick_decimals(range.clone(), labels);
        let ticks = RangedCoordf64::from(range).key_points(labels);
        ticks.iter().map(|v| format!("{v:.d$}")).collect()
    }

    #[test]
    fn accuracy_labels_have_enough_decimals_to_differ() {
        // Whole percents printed these as 98, 99, 99, 100 before.
        assert_eq!(shown(98.5..100.0, 4), ["98.5", "99.0", "99.5", "100.0"]);
        let fine = shown(98.5..100.0, Y_LABELS);
        assert_eq!(fine.first().map(String::as_str), Some("98.6"));
        // Steps of 0.2: one decimal.
        assert!(fine
            .iter()
            .all(|l| l.split_once('.').map(|(_, d)| d.len()) == Some(1)));
        assert!(fine.windows(2).all(|w| w[0] != w[1]), "{fine:?}");
        assert_eq!(tick_decimals(99.9..100.0, Y_LABELS), 2);
    }

    #[test]
    fn whole_ranges_keep_integer_labels() {
        assert_eq!(tick_decimals(0.0..100.0, Y_LABELS), 0);
        assert_eq!(shown(0.0..100.0, 6), ["0", "20", "40", "60", "80", "100"]);
    }
}
