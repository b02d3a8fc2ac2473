//! Loading a scenario: the text parsed, the command line's overrides applied to it and
//! checked, and the grid built from it (axes, points, controllers, seeds), with errors that name
//! the line and the field, or the option.

use serde::Deserialize;
use toml::{Table, Value};

use crate::error::{HarnessError, Result};
use crate::scenario::context::{Context, Parsed};
use crate::scenario::grid::{cartesian, check_axes_reach, check_labels, identify_runs};
use crate::scenario::model::{Grid, MAX_RUNS, Override, Scenario, Source};
use crate::scenario::schema::ScenarioFile;
use crate::scenario::tomldoc;
use crate::stack::Stack;

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

/// An error of the file itself (its syntax, or a section serde cannot read), with the line, the
/// column and, when the file parsed, the field it points into.
fn parse_error(
    source: &Source,
    parsed: Option<&Parsed<'_>>,
    message: &str,
    span: Option<std::ops::Range<usize>>,
) -> HarnessError {
    let message = message.trim();
    match span {
        Some(span) => {
            let (line, col) = line_col(&source.text, span.start);
            let field = parsed
                .and_then(|doc| tomldoc::key_at(doc, span.start))
                .map(|k| format!("field `{k}`: "))
                .unwrap_or_default();
            HarnessError::bad_input(format!(
                "{}: line {line}, column {col}: {field}{message}",
                source.name
            ))
        }
        None => HarnessError::bad_input(format!("{}: {message}", source.name)),
    }
}

/// The parsed file as a plain TOML table: the document overrides and axes are applied to.
fn table_of(parsed: &Parsed<'_>) -> std::result::Result<Table, toml_edit::de::Error> {
    Table::deserialize(toml_edit::de::Deserializer::from(parsed.clone()))
}

/// Loads `source` with `overrides` applied and expands it into a grid that this build can run
/// (the ns-3 backend needs the `ns3` feature).
pub fn load(source: &Source, overrides: &[Override]) -> Result<Grid> {
    load_checked(source, overrides, true)
}

/// Loads `source` and expands it into a grid, whether or not this build can run it (for
/// listing presets).
pub fn load_description(source: &Source) -> Result<Grid> {
    load_checked(source, &[], false)
}

fn load_checked(source: &Source, overrides: &[Override], runnable: bool) -> Result<Grid> {
    let parsed = Parsed::parse(source.text.as_str())
        .map_err(|e| parse_error(source, None, e.message(), e.span()))?;
    let file = ScenarioFile::deserialize(toml_edit::de::Deserializer::from(parsed.clone()))
        .map_err(|e| parse_error(source, Some(&parsed), e.message(), e.span()))?;
    let mut doc =
        table_of(&parsed).map_err(|e| parse_error(source, Some(&parsed), e.message(), e.span()))?;
    for o in overrides {
        match &o.value {
            Some(value) => tomldoc::set_path(&mut doc, &o.key, value.clone()).map_err(|e| {
                HarnessError::bad_input(format!("{}: cannot set `{}`: {e}", o.flag, o.key))
            })?,
            None => tomldoc::remove_path(&mut doc, &o.key),
        }
    }
    let file = if overrides.is_empty() {
        file
    } else {
        Value::Table(doc.clone())
            .try_into::<ScenarioFile>()
            .map_err(|e| {
                let message = e.message().trim();
                // The option that set the field serde names, when one did (`unknown field
                // `max_speed``: `--speed`); else the first option whose setting makes the
                // document unreadable, applied one at a time; else every option given.
                let culprit = message
                    .split('`')
                    .nth(1)
                    .and_then(|field| {
                        overrides.iter().rev().find(|o| {
                            o.value.is_some()
                                && (o.key == field || o.key.ends_with(&format!(".{field}")))
                        })
                    })
                    .or_else(|| first_unreadable(table_of(&parsed).ok()?, overrides))
                    .map(|o| format!("{} `{}`", o.flag, o.key));
                let flags = culprit.unwrap_or_else(|| {
                    let mut flags: Vec<&str> = Vec::new();
                    for o in overrides {
                        if !flags.contains(&o.flag.as_str()) {
                            flags.push(&o.flag);
                        }
                    }
                    flags.join(", ")
                });
                let message = message
                    .replace(
                        ", there are no fields",
                        " (this path model has no settings)",
                    )
                    .replace(
                        "wanted exactly 1 element, more than 1 element",
                        "give exactly one of its keys, not several",
                    );
                HarnessError::bad_input(format!("{flags} (on {}): {message}", source.name))
            })?
    };
    doc.remove("axis");
    let ctx = Context {
        source,
        parsed: &parsed,
        overrides,
        runnable,
    };
    let axes = ctx.axes(&file.axis)?;
    check_axes_reach(&doc, &file.axis)?;
    let mut points = Vec::new();
    for combination in cartesian(&axes) {
        points.push(ctx.point(&doc, &axes, &combination)?);
    }
    let name = file
        .name
        .clone()
        .unwrap_or_else(|| source.default_name.clone());
    let mut stacks: Vec<Stack> = points.iter().map(|p| p.stack.unwrap_or_default()).collect();
    stacks.dedup();
    // A mix that names every flow's controller (`--mix petra,cubic`): its first flow is the
    // run's, and the grid runs that controller alone.
    let mut section = file.controllers.clone();
    if let Some(first) = points.first()
        && !first.mix.is_empty()
        && first.mix.iter().all(|f| f.controller.is_some())
    {
        if section.select.is_some() {
            return Err(ctx.field_error(
                "controllers.select",
                "the [[flow]] tables (--mix) name every flow's controller, so there is no flow for \
                 the grid's controllers to run: mark the flow under test with no controller (in \
                 --mix: `run`, e.g. --controllers karak,petra --mix run,cubic), or drop \
                 controllers.select (--controllers)",
            ));
        }
        let name = first.mix[0]
            .controller
            .as_ref()
            .map(|c| c.name.clone())
            .unwrap_or_default();
        section.select = Some(vec![name]);
        for point in &mut points {
            point.mix[0].controller = None;
        }
    }
    let controllers = ctx.controllers(&section, &stacks)?;
    ctx.check_stacks(&points, &controllers)?;
    ctx.check_settings_act(&section, &points, &controllers)?;
    check_axes_not_overridden(&file.axis, overrides)?;
    check_backend_overrides(&points, overrides)?;
    check_path_overrides_act(&points, overrides, doc.get("ns3").and_then(Value::as_table))?;
    check_link_unused(&ctx, &parsed, &points)?;
    ctx.check_backend_axes(&points, &axes)?;
    let seeds = ctx.seeds(file.seeds.as_ref())?;
    let runs = points
        .len()
        .saturating_mul(controllers.len())
        .saturating_mul(seeds.len());
    if runs > MAX_RUNS {
        return Err(HarnessError::bad_input(format!(
            "the grid has {} points x {} controllers x {} seeds = {runs} runs, more than {MAX_RUNS}: split it into several grids",
            points.len(),
            controllers.len(),
            seeds.len()
        )));
    }
    let mut grid = Grid {
        description: described(file.description.as_deref().unwrap_or_default(), overrides),
        paper: file.paper.clone(),
        axes: axes.iter().map(|a| a.name.clone()).collect(),
        points: points
            .into_iter()
            .map(|mut p| {
                if p.point.is_empty() {
                    p.point = name.clone();
                }
                p
            })
            .collect(),
        controllers,
        seeds,
        name,
        run_ids: Vec::new(),
    };
    check_labels(&grid)?;
    grid.run_ids = identify_runs(&grid)?;
    Ok(grid)
}

/// The first override that, applied after the ones before it, makes `doc` unreadable as a
/// scenario: the option to blame when serde's message names no field.
fn first_unreadable(mut doc: Table, overrides: &[Override]) -> Option<&Override> {
    for o in overrides {
        match &o.value {
            Some(value) => tomldoc::set_path(&mut doc, &o.key, value.clone()).ok()?,
            None => tomldoc::remove_path(&mut doc, &o.key),
        }
        if Value::Table(doc.clone())
            .try_into::<ScenarioFile>()
            .is_err()
        {
            return Some(o);
        }
    }
    None
}

/// The scenario's description, followed by what the command line changed of the path and the
/// workload it describes, so that a report of the demo at another rate does not describe the
/// demo's.
fn described(description: &str, overrides: &[Override]) -> String {
    let changed: Vec<String> = overrides
        .iter()
        .filter(|o| {
            // What the description describes: the path and the workload. The stacks, clock,
            // transport settings, controllers and seeds have columns of their own.
            [
                "link",
                "transfer",
                "flows",
                "flow",
                "flow_stagger",
                "ns3",
                "backend",
            ]
            .iter()
            .any(|k| o.key == *k || o.key.starts_with(&format!("{k}.")))
        })
        .filter_map(|o| {
            let value = o.value.as_ref()?.to_string();
            let value = if value.chars().count() > 60 {
                format!("{}...", value.chars().take(57).collect::<String>())
            } else {
                value
            };
            Some(format!("{} = {value} ({})", o.key, o.flag))
        })
        .collect();
    if changed.is_empty() {
        description.to_owned()
    } else {
        format!(
            "{description} [changed on the command line: {}]",
            changed.join("; ")
        )
    }
}

/// Refuses netsim's per-direction link settings written in a file whose every point runs on
/// ns-3, where the 802.11 MAC and PHY take the link's place: they would act on no run. (A
/// netsim file run with `--backend ns3`, such as the demo, describes netsim's link and keeps it
/// for netsim; the command line, not the file, chose ns-3 there.)
fn check_link_unused(ctx: &Context<'_>, parsed: &Parsed<'_>, points: &[Scenario]) -> Result<()> {
    let Ok(file) = table_of(parsed) else {
        return Ok(());
    };
    let declares_ns3 = file.get("backend").and_then(Value::as_str) == Some("ns3");
    if !declares_ns3 || points.iter().any(|p| p.backend.is_netsim()) {
        return Ok(());
    }
    let link = file.get("link").and_then(Value::as_table);
    let set = ["both", "a_to_b", "b_to_a", "mac"]
        .into_iter()
        .find(|key| link.is_some_and(|l| l.contains_key(*key)));
    match set {
        Some(key) => Err(ctx.field_error(
            &format!("link.{key}"),
            format!(
                "link.{key} sets netsim's link, and every point of this file runs on ns-3 \
                 (backend = \"ns3\"), where the 802.11 MAC and PHY carry the datagrams: it \
                 would act on no run; set ns-3's radio in [ns3.wifi] instead, or drop it"
            ),
        )),
        None => Ok(()),
    }
}

/// On ns-3, a netsim mobility path hands its terrain, movement and ends to ns-3 (see
/// `backend::inherited`); a command-line change to a path field acts only if it is one of
/// those, the `[ns3]` table does not set its counterpart, and (for the movement) the nodes
/// still move by random waypoint. Anything else would not act: refused.
fn check_path_overrides_act(
    points: &[Scenario],
    overrides: &[Override],
    ns3: Option<&Table>,
) -> Result<()> {
    use netsim_ns3::Topology;
    // netsim's mobility field -> where it lands in [ns3], and whether it is movement.
    const CARRIED: &[(&str, &str, bool)] = &[
        ("nodes", "nodes", false),
        ("area_width", "area_width", true),
        ("area_height", "area_height", true),
        ("min_speed", "topology.min_speed", true),
        ("max_speed", "topology.max_speed", true),
        ("pause", "topology.pause", true),
        ("radio_range", "propagation.range", false),
        ("source", "source", false),
        ("sink", "sink", false),
    ];
    let set_in_ns3 = |key: &str| {
        let mut at = ns3.map(|t| Value::Table(t.clone()));
        for part in key.split('.') {
            at = at.and_then(|v| v.get(part).cloned());
        }
        at.is_some()
    };
    for point in points.iter().filter(|p| !p.backend.is_netsim()) {
        let (Some(config), netsim::PathModelConfig::Mobility(_)) =
            (point.backend.ns3(), &point.link.path)
        else {
            continue;
        };
        let moving = matches!(config.topology, Topology::RandomWaypoint { .. });
        for o in overrides.iter().filter(|o| o.value.is_some()) {
            let Some(field) = o.key.strip_prefix("link.path.") else {
                continue;
            };
            let why = match CARRIED.iter().find(|(f, _, _)| *f == field) {
                None => format!(
                    "link.path.{field} is netsim's alone; ns-3 takes only the path's terrain, movement and ends"
                ),
                Some(("radio_range", _, _))
                    if !matches!(config.propagation, netsim_ns3::Propagation::Range { .. }) =>
                {
                    format!(
                        "point `{}` propagates by another model than the unit disk, which has no range",
                        point.point
                    )
                }
                Some((_, _, true)) if !moving => format!(
                    "point `{}`'s ns-3 topology places its nodes itself, so the path's movement does not carry over",
                    point.point
                ),
                Some((_, target, _)) if set_in_ns3(target) => {
                    format!("[ns3] sets {target}, which takes the place of link.path.{field}")
                }
                Some(_) => continue,
            };
            return Err(HarnessError::bad_input(format!(
                "{} `{}`: on the ns-3 backend it would not act: {why}; set ns-3's scenario with --ns3",
                o.flag, o.key
            )));
        }
    }
    Ok(())
}

/// Refuses a command-line setting that an axis sets at every point (`--ns3 nodes=5` on a grid
/// sweeping `ns3.nodes`): the axis would overwrite it, and the report would say it was changed.
fn check_axes_not_overridden(
    axes: &[crate::scenario::schema::Axis],
    overrides: &[Override],
) -> Result<()> {
    // Whether `axis` sets `key` at its points: the key itself, or a field inside a table the
    // axis's values hold (an axis over `link` whose values set `both.rate` leaves
    // `link.a_to_b.queue` alone).
    let sets = |axis: &crate::scenario::schema::Axis, key: &str| {
        if key == axis.key {
            return true;
        }
        let Some(rest) = key.strip_prefix(&format!("{}.", axis.key)) else {
            return false;
        };
        axis.values.iter().any(|value| {
            let mut at = value;
            for part in rest.split('.') {
                match at.as_table().and_then(|t| t.get(part)) {
                    Some(inner) => at = inner,
                    None => return !at.is_table(),
                }
            }
            true
        })
    };
    for o in overrides.iter().filter(|o| o.value.is_some()) {
        if let Some(axis) = axes.iter().find(|a| sets(a, &o.key)) {
            return Err(HarnessError::bad_input(format!(
                "{} `{}`: the axis `{}` sets {} at every point, so this setting would be \
                 overwritten; drop it, or write a scenario file whose axis has the values you \
                 want (`harness presets --show NAME` prints a preset as one)",
                o.flag,
                o.key,
                axis.name.as_deref().unwrap_or(&axis.key),
                axis.key
            )));
        }
    }
    Ok(())
}

/// Refuses command-line options that would be silently ignored: `--ns3` settings when no
/// point runs on ns-3, and netsim's per-direction link settings on points that do (there the
/// 802.11 MAC and PHY take the link's place).
fn check_backend_overrides(points: &[Scenario], overrides: &[Override]) -> Result<()> {
    if points.iter().all(|p| p.backend.is_netsim()) {
        return match overrides.iter().find(|o| o.key.starts_with("ns3.")) {
            Some(o) => Err(HarnessError::bad_input(format!(
                "{}: sets the ns-3 scenario ({}), but the runs use netsim; add --backend ns3",
                o.flag, o.key
            ))),
            None => Ok(()),
        };
    }
    let under = |key: &str, prefix: &str| key == prefix || key.starts_with(&format!("{prefix}."));
    let direction = |key: &str| {
        ["link.both", "link.a_to_b", "link.b_to_a", "link.mac"]
            .iter()
            .any(|prefix| under(key, prefix))
    };
    if let Some(o) = overrides.iter().find(|o| direction(&o.key)) {
        return Err(HarnessError::bad_input(format!(
            "{}: sets netsim's link ({}), which the ns-3 backend does not use: there the 802.11 \
             MAC and PHY carry the datagrams (set them with --ns3, e.g. --ns3 \
             wifi.data_rate_mbps=11 or --ns3 wifi.queue_packets=100)",
            o.flag, o.key
        )));
    }
    // Of netsim's path models only mobility carries over to ns-3 (its terrain and movement);
    // a trace, on/off or always-up path would be dropped for ns-3's default MANET.
    let netsim_path = points
        .iter()
        .filter(|p| !p.backend.is_netsim())
        .find(|p| !matches!(p.link.path, netsim::PathModelConfig::Mobility(_)));
    if let (Some(point), Some(o)) = (
        netsim_path,
        overrides.iter().find(|o| under(&o.key, "link.path")),
    ) {
        return Err(HarnessError::bad_input(format!(
            "{}: sets netsim's path model ({}), which the ns-3 backend does not use: only \
             netsim's mobility model carries over to ns-3 (point `{}`); set ns-3's topology with \
             --ns3, e.g. --ns3 'topology={{model=\"chain\", spacing=200.0}}'",
            o.flag,
            match point.link.path {
                netsim::PathModelConfig::AlwaysUp {} => "always_up",
                netsim::PathModelConfig::OnOff(_) => "on_off",
                netsim::PathModelConfig::Mobility(_) => "mobility",
                netsim::PathModelConfig::Trace(_) => "trace",
            },
            point.point
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use netsim::PathModelConfig;

    use super::*;
    use crate::registry;

    fn source(text: &str) -> Source {
        Source {
            name: "test.toml".into(),
            default_name: "test".into(),
            text: text.into(),
            dir: None,
        }
    }

    #[test]
    fn both_is_overridden_field_by_field() {
        let grid = load(
            &source("[link.both]\nrate = \"5Mbps\"\ndelay = \"10ms\"\n[link.b_to_a]\ndelay = \"20ms\"\n"),
            &[],
        )
        .unwrap();
        let link = &grid.points[0].link;
        assert_eq!(link.a_to_b.rate, netsim::Rate::from_mbps(5));
        assert_eq!(link.b_to_a.rate, netsim::Rate::from_mbps(5));
        assert_eq!(link.a_to_b.delay, Duration::from_millis(10));
        assert_eq!(link.b_to_a.delay, Duration::from_millis(20));
        assert_eq!(grid.seeds, vec![1, 2, 3]);
        assert_eq!(
            grid.controllers.len(),
            registry::names(&[Stack::Quinn]).len()
        );
    }

    #[test]
    fn axes_expand_to_the_cartesian_product_in_order() {
        let text = "[link.path]\nmodel = \"mobility\"\n[[axis]]\nkey = \"link.path\"\nname = \"speed\"\nvalues = [{ min_speed = 5.0, max_speed = 5.0 }, { min_speed = 10.0, max_speed = 10.0 }]\nlabels = [\"5\", \"10\"]\n[[axis]]\nkey = \"flows\"\nvalues = [1, 2]\n";
        let grid = load(&source(text), &[]).unwrap();
        let labels: Vec<&str> = grid.points.iter().map(|p| p.point.as_str()).collect();
        assert_eq!(
            labels,
            [
                "speed=5 flows=1",
                "speed=5 flows=2",
                "speed=10 flows=1",
                "speed=10 flows=2"
            ]
        );
        match &grid.points[2].link.path {
            PathModelConfig::Mobility(m) => {
                assert_eq!((m.min_speed, m.max_speed, m.nodes), (10.0, 10.0, 50))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn errors_name_line_and_field() {
        let err = load(
            &source("flows = 2\n[link.both]\nrate = 7\nmtu = \"big\"\n"),
            &[],
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("line 4") && msg.contains("link.both.mtu"),
            "{msg}"
        );
        let err = load(
            &source("\n[link.both]\nerrors = [{ model = \"ber\", ber = 1.5 }]\n"),
            &[],
        )
        .unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("line 3") && msg.contains("errors[0].ber") && msg.contains("[0, 1)"),
            "{msg}"
        );
    }
}
