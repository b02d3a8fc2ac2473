//! The throughput-delay picture of an experiment, as Pantheon drew its results: per point, one
//! marker per controller at its mean p95 RTT (x) and mean goodput (y) over seeds, with bars of
//! one standard deviation each way. Up and to the left is better.

use plotters::prelude::*;

use super::experiment::{Experiment, Seeds, controller_name};
use crate::error::{HarnessError, Result};
use crate::metrics::Spread;

/// Panels per row.
const COLUMNS: usize = 3;
/// At most this many points are drawn: more panels would be too small to read.
pub const MAX_POINTS: usize = 48;

struct Marker {
    controller: String,
    rtt: Spread,
    goodput: Spread,
}

fn marker(controller: &str, seeds: &Seeds) -> Option<Marker> {
    let rtts: Vec<f64> = seeds.values().filter_map(|f| f.rtt_p95_ms).collect();
    let goodputs: Vec<f64> = seeds.values().map(|f| f.goodput_bps / 1e6).collect();
    Some(Marker {
        controller: controller.to_owned(),
        rtt: Spread::of(&rtts)?,
        goodput: Spread::of(&goodputs)?,
    })
}

/// The SVG picture of `experiment`.
pub fn render(experiment: &Experiment) -> Result<String> {
    let n = experiment.points.len();
    if n == 0 || n > MAX_POINTS {
        return Err(HarnessError::bad_input(format!(
            "`{}` holds {n} points: a throughput-delay picture draws 1 to {MAX_POINTS}",
            experiment.path.display()
        )));
    }
    let controllers: Vec<&str> = experiment.controllers().into_iter().collect();
    let mut svg = String::new();
    draw(&mut svg, experiment, &controllers).map_err(|e| {
        HarnessError::bad_input(format!(
            "throughput-delay picture of `{}`: {e}",
            experiment.path.display()
        ))
    })?;
    Ok(svg)
}

fn draw(
    svg: &mut String,
    experiment: &Experiment,
    controllers: &[&str],
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let n = experiment.points.len();
    let columns = n.min(COLUMNS);
    let rows = n.div_ceil(columns);
    let root = SVGBackend::with_string(svg, (420 * columns as u32, 340 * rows as u32 + 40))
        .into_drawing_area();
    root.fill(&WHITE)?;
    let (title, body) = root.split_vertically(40);
    title.draw(&Text::new(
        format!(
            "{}: goodput against p95 RTT, mean and 1 sd over seeds (up and left is better)",
            experiment.name
        ),
        (10, 12),
        ("sans-serif", 16),
    ))?;
    let color = |c: &str| {
        let i = controllers.iter().position(|x| *x == c).unwrap_or(0);
        Palette99::pick(i).to_rgba()
    };
    for (point, area) in experiment
        .points
        .iter()
        .zip(body.split_evenly((rows, columns)))
    {
        let markers: Vec<Marker> = point
            .controllers
            .iter()
            .filter_map(|(c, seeds)| marker(controller_name(c), seeds))
            .collect();
        let x_top = markers
            .iter()
            .map(|m| m.rtt.mean + m.rtt.sd)
            .fold(1e-3f64, f64::max)
            * 1.15;
        let y_top = markers
            .iter()
            .map(|m| m.goodput.mean + m.goodput.sd)
            .fold(1e-6f64, f64::max)
            * 1.15;
        let mut chart = ChartBuilder::on(&area)
            .caption(&point.label, ("sans-serif", 14))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(45)
            .build_cartesian_2d(0f64..x_top, 0f64..y_top)?;
        chart
            .configure_mesh()
            .x_desc("p95 RTT (ms)")
            .y_desc("goodput (Mb/s)")
            .x_labels(5)
            .y_labels(5)
            .max_light_lines(0)
            .draw()?;
        for m in &markers {
            let c = color(&m.controller);
            let (x, y) = (m.rtt.mean, m.goodput.mean);
            chart.draw_series([
                PathElement::new(
                    vec![((x - m.rtt.sd).max(0.0), y), (x + m.rtt.sd, y)],
                    c.stroke_width(1),
                ),
                PathElement::new(
                    vec![(x, (y - m.goodput.sd).max(0.0)), (x, y + m.goodput.sd)],
                    c.stroke_width(1),
                ),
            ])?;
            chart
                .draw_series([Circle::new((x, y), 4, c.filled())])?
                .label(m.controller.clone())
                .legend(move |(lx, ly)| Circle::new((lx + 8, ly), 4, c.filled()));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .label_font(("sans-serif", 11))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
