//! SVG plots (plotters' SVG backend; text is written as SVG `<text>`, so no system font
//! libraries are needed): per scenario point, the congestion window over time of flow 0 of the
//! first seed for every controller, with the periods the route was down shaded where they are
//! known (netsim's path models), and the goodput per controller (mean with a ±1 sd bar);
//! for a grid with one axis, goodput against the swept parameter as the papers plot it, one
//! line per controller with the 95% confidence interval of its mean.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::{ReportMeta, SummaryRow};
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;

/// A file-name-safe version of a point label. Lossy (`a/b` and `a_b` give one slug): the plot
/// files' names are made unique after (`render_all`).
pub fn slug(label: &str) -> String {
    let mut out: String = label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    out.truncate(80);
    out
}

/// Time spans `(from, to)` in seconds of link time.
pub type Spans = Vec<(f64, f64)>;

/// One plot: the file name it is written under (`goodput-<point>.svg`, ...), a caption, and
/// the SVG document.
#[derive(Clone, Debug, PartialEq)]
pub struct Plot {
    /// File name in a `--plot` directory.
    pub file: String,
    /// What it shows, in words.
    pub caption: String,
    /// The SVG document.
    pub svg: String,
}

/// Renders every plot of a report: for a grid with one axis and several points
/// `goodput-vs-<axis>.svg`, then per point `goodput-<point>.svg` and, when the runs carry
/// window traces, `cwnd-<point>.svg` (results read back from a file have none).
/// `route_down(point, seed, until)` gives the spans a point's route was down in the run with
/// that seed, shaded on its cwnd plot.
pub fn render_all(
    meta: &ReportMeta,
    rows: &[SummaryRow],
    runs: &[RunResult],
    route_down: &dyn Fn(&str, u64, f64) -> Spans,
) -> Result<Vec<Plot>> {
    let failed = |file: &str, e: Box<dyn std::error::Error>| {
        HarnessError::output(Path::new(file), std::io::Error::other(e.to_string()))
    };
    let mut plots = Vec::new();
    if let ([axis], true) = (meta.axes.as_slice(), meta.points.len() > 1) {
        let file = format!("goodput-vs-{}.svg", slug(axis));
        let mut svg = String::new();
        goodput_vs_axis(&mut svg, meta, axis, rows).map_err(|e| failed(&file, e))?;
        plots.push(Plot {
            file,
            caption: format!("Goodput against {axis}: mean over seeds with its 95% interval"),
            svg,
        });
    }
    let traced = runs
        .iter()
        .any(|r| r.flows.iter().any(|f| !f.window_trace.is_empty()));
    for point in &meta.points {
        let at_point: Vec<&SummaryRow> = rows.iter().filter(|r| &r.point == point).collect();
        if at_point.is_empty() {
            continue;
        }
        let file = format!("goodput-{}.svg", slug(point));
        let mut svg = String::new();
        goodput(&mut svg, point, &at_point).map_err(|e| failed(&file, e))?;
        plots.push(Plot {
            file,
            caption: format!("{point}: goodput per controller, mean ± 1 sd over seeds"),
            svg,
        });
        if !traced {
            continue;
        }
        let file = format!("cwnd-{}.svg", slug(point));
        let first_seed = runs
            .iter()
            .filter(|r| &r.point == point)
            .map(|r| r.seed)
            .min();
        let traces: Vec<&RunResult> = runs
            .iter()
            .filter(|r| &r.point == point && Some(r.seed) == first_seed)
            .collect();
        let t_max = traces.iter().map(|r| r.window_s).fold(1.0f64, f64::max);
        // ns-3 runs carry their route-down spans; netsim's are replayed from the seed.
        let down = match traces.iter().find(|r| !r.route_down_s.is_empty()) {
            Some(run) => run.route_down_s.clone(),
            None => first_seed.map_or_else(Vec::new, |seed| route_down(point, seed, t_max)),
        };
        let mut svg = String::new();
        cwnd(&mut svg, point, &traces, t_max, &down).map_err(|e| failed(&file, e))?;
        plots.push(Plot {
            file,
            caption: format!(
                "{point}: congestion window of flow 0, seed {}, route-down periods shaded",
                first_seed.unwrap_or_default()
            ),
            svg,
        });
    }
    // File names unique whatever the labels: `a/b` and `a_b` share a slug, and a point may be
    // named like another plot's file. The later one gets `-2`, `-3`, ...
    let mut taken = std::collections::HashSet::new();
    for plot in &mut plots {
        let stem = plot.file.trim_end_matches(".svg").to_owned();
        let mut n = 1;
        while !taken.insert(plot.file.clone()) {
            n += 1;
            plot.file = format!("{stem}-{n}.svg");
        }
    }
    Ok(plots)
}

/// Writes every plot of [`render_all`] into `dir`; returns the files written.
pub fn write_all(
    dir: &Path,
    meta: &ReportMeta,
    rows: &[SummaryRow],
    runs: &[RunResult],
    route_down: &dyn Fn(&str, u64, f64) -> Spans,
) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| HarnessError::output(dir, e))?;
    let mut written = Vec::new();
    for plot in render_all(meta, rows, runs, route_down)? {
        let path = dir.join(&plot.file);
        crate::output_file::write_replacing(&path, plot.svg)
            .map_err(|e| HarnessError::output(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

type PlotResult = std::result::Result<(), Box<dyn std::error::Error>>;

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Draws the series' legend and writes the file.
fn legend_and_present<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    root: &DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
) -> PlotResult {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// Goodput against the grid's one axis: a line per controller through its means, each point
/// with the 95% confidence interval of the mean over seeds.
fn goodput_vs_axis(
    out: &mut String,
    meta: &ReportMeta,
    axis: &str,
    rows: &[SummaryRow],
) -> PlotResult {
    let root = SVGBackend::with_string(out, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let labels: Vec<String> = meta
        .points
        .iter()
        .map(|point| {
            rows.iter()
                .find(|r| &r.point == point)
                .and_then(|r| r.params.get(axis).cloned())
                .unwrap_or_else(|| point.clone())
        })
        .collect();
    let interval = |row: &SummaryRow| {
        let (low, high) = super::paired::ci95(&row.goodput_bps);
        (low.max(0.0) / 1e6, row.goodput_bps.mean / 1e6, high / 1e6)
    };
    let top = rows
        .iter()
        .map(|r| interval(r).2)
        .fold(0.0f64, f64::max)
        .max(1e-3)
        * 1.1;
    let n = meta.points.len();
    let seeds = meta.seeds.len();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{} - goodput vs {axis}", meta.name),
            ("sans-serif", 18),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0f64..top)?;
    let label_of = |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < n {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n.max(2) * 2 + 1)
        .x_label_formatter(&label_of)
        .x_desc(axis)
        .y_desc(format!(
            "goodput (Mb/s), mean and 95% CI over {seeds} seed(s)"
        ))
        .draw()?;
    for (i, controller) in meta.controllers.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let points: Vec<(f64, (f64, f64, f64))> = meta
            .points
            .iter()
            .enumerate()
            .filter_map(|(x, point)| {
                let row = rows
                    .iter()
                    .find(|r| &r.point == point && &r.controller == controller)?;
                // Controllers side by side within a point, so their intervals do not overlap.
                let offset = (i as f64 - (meta.controllers.len() as f64 - 1.0) / 2.0) * 0.03;
                Some((x as f64 + offset, interval(row)))
            })
            .collect();
        if points.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|&(x, (_, mean, _))| (x, mean)),
                color.stroke_width(2),
            ))?
            .label(controller.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(points.iter().map(|&(x, (low, _, high))| {
            PathElement::new(vec![(x, low), (x, high)], color.stroke_width(1))
        }))?;
        chart.draw_series(
            points
                .iter()
                .map(|&(x, (_, mean, _))| Circle::new((x, mean), 3, color.filled())),
        )?;
    }
    legend_and_present(&mut chart, &root)
}

fn goodput(out: &mut String, point: &str, rows: &[&SummaryRow]) -> PlotResult {
    let root = SVGBackend::with_string(out, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let top = rows
        .iter()
        .map(|r| (r.goodput_bps.mean + r.goodput_bps.sd) / 1e6)
        .fold(0.0f64, f64::max)
        .max(1e-3)
        * 1.2;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("goodput per controller - {point}"),
            ("sans-serif", 18),
        )
        .margin(15)
        .x_label_area_size(20)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..rows.len() as f64, 0f64..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("goodput (Mb/s), mean ± 1 sd over seeds")
        .draw()?;
    for (i, row) in rows.iter().enumerate() {
        let x = i as f64;
        let mean = row.goodput_bps.mean / 1e6;
        let sd = row.goodput_bps.sd / 1e6;
        let color = Palette99::pick(i);
        chart.draw_series(std::iter::once(Rectangle::new(
            [(x + 0.15, 0.0), (x + 0.85, mean)],
            color.filled(),
        )))?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x + 0.5, (mean - sd).max(0.0)), (x + 0.5, mean + sd)],
            BLACK.stroke_width(2),
        )))?;
        chart.draw_series(std::iter::once(Text::new(
            row.controller.clone(),
            (x + 0.2, mean + sd + top * 0.03),
            ("sans-serif", 14),
        )))?;
    }
    root.present()?;
    Ok(())
}

/// The window of flow 0 of every run in `runs`, over `[0, t_max]` seconds, with `down` shaded.
fn cwnd(
    out: &mut String,
    point: &str,
    runs: &[&RunResult],
    t_max: f64,
    down: &[(f64, f64)],
) -> PlotResult {
    let root = SVGBackend::with_string(out, (900, 500)).into_drawing_area();
    root.fill(&WHITE)?;
    let traces: Vec<(&str, Vec<(f64, f64)>)> = runs
        .iter()
        .filter_map(|r| {
            let flow = r.flows.first()?;
            let points: Vec<(f64, f64)> = flow
                .window_trace
                .iter()
                .map(|p| (p.t, p.cwnd as f64 / 1000.0))
                .collect();
            Some((r.controller.as_str(), points))
        })
        .collect();
    let y_max = traces
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(_, y)| y))
        .fold(1.0f64, f64::max)
        * 1.1;
    let seed = runs.first().map(|r| r.seed).unwrap_or_default();
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("congestion window, flow 0, seed {seed} - {point}"),
            ("sans-serif", 18),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..t_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc(if down.is_empty() {
            "time (s, link time)"
        } else {
            "time (s, link time); shaded: route down"
        })
        .y_desc("cwnd (kB)")
        .draw()?;
    // Under the lines: the periods without a route.
    let shade = RGBColor(200, 200, 200).mix(0.5);
    chart.draw_series(down.iter().map(|&(from, to)| {
        Rectangle::new(
            [(from.min(t_max), 0.0), (to.min(t_max), y_max)],
            shade.filled(),
        )
    }))?;
    for (i, (name, points)) in traces.into_iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // A step plot: the window holds its value until the next change.
        let mut steps = Vec::with_capacity(points.len() * 2);
        for (j, &(t, y)) in points.iter().enumerate() {
            if j > 0 {
                steps.push((t, points[j - 1].1));
            }
            steps.push((t, y));
        }
        if let Some(&(_, y)) = points.last() {
            steps.push((t_max, y));
        }
        chart
            .draw_series(LineSeries::new(steps, color.stroke_width(1)))?
            .label(name.to_owned())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    legend_and_present(&mut chart, &root)
}
