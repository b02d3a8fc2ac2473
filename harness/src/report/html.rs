//! `--html FILE`: one self-contained HTML page per run or sweep, to look at rather than read.
//!
//! The page holds what the terminal shows and more: the scenario (name, description, paper,
//! ns-3 scenarios, points, controllers, seeds), the summary table and, for ns-3 rows, what the
//! network did (the same cells as the terminal table, [`super::table`]), every plot the
//! `--plot` directory would get, inline as SVG ([`super::plot::render_all`]), and how it was
//! made: the command line, the harness, QUIC stack, ns-3 and compiler versions, and the number
//! of runs. It loads nothing (no script, no stylesheet, no font, no image from elsewhere), so
//! it opens offline and can be mailed or archived as one file.

use std::fmt::Write;
use std::path::Path;

use super::plot::Plot;
use super::table::{self, Table};
use super::{ReportMeta, SummaryRow};
use crate::error::{HarnessError, Result};
use crate::metrics::RunResult;
use crate::stack::Stack;

/// Where a report came from, for its last section.
#[derive(Clone, Debug, PartialEq)]
pub struct Provenance {
    /// The command line, as typed (arguments shell-quoted where needed).
    pub command: String,
    /// (name, version) of what made the results: harness, stacks, ns-3, compiler.
    pub versions: Vec<(String, String)>,
}

impl Provenance {
    /// This process's command line, and the versions this harness was built with (ns-3's only
    /// when `ns3` is true: the report has ns-3 rows).
    pub fn current(ns3: bool) -> Self {
        let command = std::env::args()
            .map(|a| shell_quote(&a))
            .collect::<Vec<_>>()
            .join(" ");
        let quiche = cfg!(feature = "quiche").then_some(Stack::Quiche);
        let mut versions = vec![("harness".to_owned(), crate::VERSION.to_owned())];
        for stack in [Stack::Quinn, Stack::Noq].into_iter().chain(quiche) {
            let (krate, version) = stack.crate_version();
            versions.push((krate.to_owned(), version.to_owned()));
        }
        if ns3 {
            versions.push((
                "ns-3".to_owned(),
                netsim_ns3::NS3_VERSION
                    .unwrap_or("not built in (feature ns3)")
                    .to_owned(),
            ));
        }
        versions.push((
            "compiler".to_owned(),
            env!("HARNESS_RUSTC_VERSION").to_owned(),
        ));
        Self { command, versions }
    }
}

/// `arg` as a POSIX shell would need it to be typed.
fn shell_quote(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// `text` escaped for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #1a1a1a; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 2em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
p.description { color: #333; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3em 1em; }
dt { font-weight: 600; }
dd { margin: 0; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.5em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; white-space: nowrap; }
th { background: #f0f0f0; }
td:nth-child(1), td:nth-child(2), th:nth-child(1), th:nth-child(2) { text-align: left; }
tr.first-of-point td { border-top: 2px solid #888; }
ul.notes { font-size: 0.85em; color: #444; }
figure { margin: 1.5em 0; }
figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { font-size: 0.9em; color: #444; }
code { font-family: ui-monospace, monospace; background: #f5f5f5; padding: 0.1em 0.3em; word-break: break-all; }
";

/// A table as HTML, a thicker rule between points.
fn html_table(out: &mut String, class: &str, table: &Table) {
    let _ = write!(out, "<table class=\"{class}\"><thead><tr>");
    for h in &table.headers {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr></thead><tbody>\n");
    let mut last: Option<&str> = None;
    for (point, cells) in &table.rows {
        let first = last.is_some_and(|l| l != point);
        last = Some(point);
        out.push_str(if first {
            "<tr class=\"first-of-point\">"
        } else {
            "<tr>"
        });
        for cell in cells {
            let _ = write!(out, "<td>{}</td>", escape(cell));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

/// Renders the page.
pub fn render(
    meta: &ReportMeta,
    rows: &[SummaryRow],
    runs: &[RunResult],
    plots: &[Plot],
    provenance: &Provenance,
) -> String {
    let mut out = String::new();
    let title = format!("{}: harness report", meta.name);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta name=\"generator\" content=\"harness {}\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(crate::VERSION),
        escape(&title)
    );
    let _ = writeln!(out, "<h1>{}</h1>", escape(&meta.name));
    if !meta.description.is_empty() {
        let _ = writeln!(
            out,
            "<p class=\"description\">{}</p>",
            escape(&meta.description)
        );
    }

    out.push_str("<section id=\"scenario\">\n<h2>Scenario</h2>\n<dl>\n");
    let mut item = |name: &str, value: String| {
        let _ = writeln!(out, "<dt>{}</dt><dd>{value}</dd>", escape(name));
    };
    if let Some(paper) = &meta.paper {
        item("follows", escape(paper));
    }
    for backend in &meta.backends {
        item("backend", escape(backend));
    }
    if !meta.axes.is_empty() {
        item("swept", escape(&meta.axes.join(", ")));
    }
    item(
        "points",
        format!(
            "{} ({})",
            meta.points.len(),
            escape(&meta.points.join(", "))
        ),
    );
    item("controllers", escape(&meta.controllers.join(", ")));
    let seeds: Vec<String> = meta.seeds.iter().map(u64::to_string).collect();
    item(
        "seeds",
        format!("{} (mean ± sd over seeds)", escape(&seeds.join(", "))),
    );
    out.push_str("</dl>\n</section>\n");

    out.push_str("<section id=\"results\">\n<h2>Results</h2>\n");
    html_table(&mut out, "summary", &table::summary(rows));
    out.push_str("<ul class=\"notes\">\n");
    for note in table::notes(rows) {
        let _ = writeln!(out, "<li>{}</li>", escape(note));
    }
    out.push_str("</ul>\n");
    if let Some(coexistence) = table::coexistence(rows) {
        let _ = writeln!(out, "<h3>{}</h3>", escape(table::COEXISTENCE_TITLE));
        html_table(&mut out, "coexistence", &coexistence);
        let _ = writeln!(
            out,
            "<p class=\"notes\">{}</p>",
            escape(table::COEXISTENCE_NOTE)
        );
    }
    if let Some(ns3) = table::ns3(rows) {
        let _ = writeln!(out, "<h3>{}</h3>", escape(table::NS3_TITLE));
        html_table(&mut out, "ns3", &ns3);
        let _ = writeln!(out, "<p class=\"notes\">{}</p>", escape(table::NS3_NOTE));
    }
    out.push_str("</section>\n");

    if !plots.is_empty() {
        out.push_str("<section id=\"plots\">\n<h2>Plots</h2>\n");
        for plot in plots {
            // plotters writes a standalone SVG document; inline it without the XML declaration.
            let svg = plot.svg.trim_start_matches(|c: char| c != '<').trim_start();
            let svg = match svg.strip_prefix("<?xml") {
                Some(rest) => rest.split_once("?>").map_or(rest, |(_, after)| after),
                None => svg,
            };
            let _ = writeln!(
                out,
                "<figure id=\"{}\">\n{}\n<figcaption>{}</figcaption>\n</figure>",
                escape(&plot.file),
                svg.trim(),
                escape(&plot.caption)
            );
        }
        out.push_str("</section>\n");
    }

    out.push_str("<section id=\"provenance\">\n<h2>How this was made</h2>\n<dl>\n");
    let _ = writeln!(
        out,
        "<dt>command</dt><dd><code>{}</code></dd>",
        escape(&provenance.command)
    );
    let _ = writeln!(out, "<dt>runs</dt><dd>{}</dd>", runs.len());
    for (name, version) in &provenance.versions {
        let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(name), escape(version));
    }
    out.push_str("</dl>\n</section>\n</body>\n</html>\n");
    out
}

/// Renders the page and writes it to `path`.
pub fn write(
    path: &Path,
    meta: &ReportMeta,
    rows: &[SummaryRow],
    runs: &[RunResult],
    plots: &[Plot],
    provenance: &Provenance,
) -> Result<()> {
    std::fs::write(path, render(meta, rows, runs, plots, provenance))
        .map_err(|e| HarnessError::output(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<b>"a" & 'b'</b>"#),
            "&lt;b&gt;&quot;a&quot; &amp; &#39;b&#39;&lt;/b&gt;"
        );
    }

    #[test]
    fn quotes_only_what_a_shell_needs() {
        assert_eq!(shell_quote("--seeds"), "--seeds");
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }
}
