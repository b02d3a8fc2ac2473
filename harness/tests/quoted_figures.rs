//! Hand-written pages quote measured figures only from generated ones: every ratio (`1.62x`,
//! `0.91x to 0.98x`, `0.73-1.18x`) and every interval (`0.97x [0.95, 0.98]`) in the README's
//! prose and in the results pages below must appear in a page that a command makes from the
//! result files and CI compares byte for byte: docs/results/manet.md (scripts/manet-report.sh),
//! docs/results/regimes.md (scripts/regimes-report.sh), docs/results/mesh.md
//! (scripts/mesh-report.sh), docs/results/tables/
//! (scripts/results-docs.sh) and the README's decision table
//! (scripts/readme-table.sh). A figure typed by hand, or left behind when the results changed,
//! fails here.
//!
//! A quoted interval is also bound to its rows: `quoted_rows.tsv` beside this file holds, for
//! each, the generated rows that held it when the quote was last checked. When regenerated
//! results change such a row, the figure may still stand elsewhere while its sentence no longer
//! describes it, so the test fails until the quote is checked against the new row and the file
//! refreshed: `UPDATE_QUOTES=1 cargo test -p harness --test quoted_figures` (review its diff:
//! every changed row is a quote to reread).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The hand-written pages held to the rule. The other pages of docs/results quote development
/// runs or ratios of means, each said so where it is quoted.
const CHECKED: &[&str] = &[
    "README.md",
    "docs/results/manet-analysis.md",
    "docs/results/README.md",
    "docs/results/abra.md",
    "docs/results/demo.md",
    "docs/results/karak.md",
    "docs/results/ns3-manet.md",
    "docs/results/ns3-tcp.md",
    "docs/results/sack-few.md",
];

const TABLE_BEGIN: &str = "<!-- BEGIN decision table";
const TABLE_END: &str = "<!-- END decision table -->";

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The README without its generated table, and the table.
fn readme_parts() -> (String, String) {
    let text = read(&root().join("README.md"));
    let begin = text.find(TABLE_BEGIN).expect("the README's decision table");
    let end = text
        .find(TABLE_END)
        .expect("the end of the README's decision table");
    (
        format!("{}{}", &text[..begin], &text[end..]),
        text[begin..end].to_owned(),
    )
}

fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every decimal number of `text`, with where it starts and ends.
fn decimals(text: &str) -> Vec<(usize, usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'.');
        if !starts {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        if j + 1 < bytes.len() && bytes[j] == b'.' && bytes[j + 1].is_ascii_digit() {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            // `802.11a`: a name, not a figure.
            if j == bytes.len() || !bytes[j].is_ascii_alphabetic() || bytes[j] == b'x' {
                out.push((i, j, &text[i..j]));
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// The interval written right after a figure (`x [low, high]` or ` [low, high]`), as
/// `mean [low, high]`.
fn interval_after(text: &str, mean: &str, end: usize) -> Option<String> {
    let rest = text[end..].strip_prefix('x').unwrap_or(&text[end..]);
    let inner = rest.strip_prefix(" [")?;
    let close = inner.find(']')?;
    let (low, high) = inner[..close].split_once(", ")?;
    let is_number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    (is_number(low) && is_number(high)).then(|| format!("{mean} [{low}, {high}]"))
}

/// The figures `text` quotes: intervals, and ratios (`1.62x`, either end of `0.73-1.18x` or
/// `0.91x to 0.98x`).
fn quoted(text: &str) -> (Vec<String>, Vec<String>) {
    let (mut intervals, mut ratios) = (Vec::new(), Vec::new());
    let numbers = decimals(text);
    for (k, &(start, end, number)) in numbers.iter().enumerate() {
        if let Some(interval) = interval_after(text, number, end) {
            intervals.push(interval);
            continue;
        }
        let after = &text[end..];
        let is_ratio =
            after.starts_with('x') && !after[1..].starts_with(|c: char| c.is_ascii_alphanumeric());
        if is_ratio {
            ratios.push(number.to_owned());
            // The first end of a range: `0.73-1.18x`.
            if k > 0 && start > 0 && &text[start - 1..start] == "-" {
                let (_, prev_end, prev) = numbers[k - 1];
                if prev_end == start - 1 {
                    ratios.push(prev.to_owned());
                }
            }
        }
    }
    (intervals, ratios)
}

/// The generated pages, each by its path from the repository's root (the README's decision
/// table as `README.md`), with its text.
fn generated_pages() -> Vec<(String, String)> {
    let (_, table) = readme_parts();
    let mut pages = vec![("README.md".to_owned(), table)];
    for page in [
        "docs/results/manet.md",
        "docs/results/regimes.md",
        "docs/results/mesh.md",
    ] {
        pages.push((page.to_owned(), read(&root().join(page))));
    }
    let mut tables: Vec<PathBuf> = std::fs::read_dir(root().join("docs/results/tables"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    tables.sort();
    for table in &tables {
        let name = table.strip_prefix(root()).unwrap_or(table);
        pages.push((name.display().to_string(), read(table)));
    }
    pages
}

/// The hand-written pages' text, each by its path (the README without its generated table).
fn checked_pages() -> Vec<(&'static str, String)> {
    let (prose, _) = readme_parts();
    CHECKED
        .iter()
        .map(|&page| {
            let text = if page == "README.md" {
                squeeze(&prose)
            } else {
                squeeze(&read(&root().join(page)))
            };
            (page, text)
        })
        .collect()
}

#[test]
fn every_quoted_figure_is_in_a_generated_page() {
    let mut generated = String::new();
    for (_, text) in generated_pages() {
        generated += " ";
        generated += &squeeze(&text);
    }
    let numbers: BTreeSet<&str> = decimals(&generated)
        .into_iter()
        .map(|(_, _, n)| n)
        .collect();
    let (intervals, _) = quoted(&generated);
    let intervals: BTreeSet<String> = intervals.into_iter().collect();
    let mut missing = Vec::new();
    for (page, text) in checked_pages() {
        let (page_intervals, page_ratios) = quoted(&text);
        missing.extend(
            page_intervals
                .into_iter()
                .filter(|i| !intervals.contains(i))
                .map(|i| format!("{page}: {i}")),
        );
        missing.extend(
            page_ratios
                .into_iter()
                .filter(|r| !numbers.contains(r.as_str()))
                .map(|r| format!("{page}: {r}x")),
        );
    }
    assert!(
        missing.is_empty(),
        "figures quoted in hand-written pages that no generated page holds (regenerate, or quote \
         the generated figure):\n  {}",
        missing.join("\n  ")
    );
}

const QUOTED_ROWS: &str = "harness/tests/quoted_rows.tsv";

/// One line per quoted interval and generated row that holds it: the quoting page, the
/// interval, the generated page and the row (its whitespace squeezed), tab-separated, sorted.
/// A row is a line of the generated page; an interval that a line break splits is bound to the
/// lines it spans, joined.
fn quoted_rows() -> Vec<String> {
    bind_rows(&generated_pages(), &checked_pages())
}

/// [`quoted_rows`] of the `generated` pages and the `checked` pages' (squeezed) text.
fn bind_rows(generated: &[(String, String)], checked: &[(&str, String)]) -> Vec<String> {
    let mut rows_of: std::collections::BTreeMap<String, BTreeSet<(String, String)>> =
        Default::default();
    for (page, text) in generated {
        // Each line's squeezed text and the intervals it holds, read once.
        let lines: Vec<(String, Vec<String>)> = text
            .lines()
            .map(|line| {
                let row = squeeze(line);
                let intervals = quoted(&row).0;
                (row, intervals)
            })
            .collect();
        let mut bind = |interval: String, row: &String| {
            rows_of
                .entry(interval)
                .or_default()
                .insert((page.clone(), row.clone()));
        };
        for (k, (row, intervals)) in lines.iter().enumerate() {
            for interval in intervals {
                bind(interval.clone(), row);
            }
            // Intervals that begin on this line and end on the next.
            if let Some((next, next_intervals)) = lines.get(k + 1) {
                let joined = format!("{row} {next}");
                for interval in quoted(&joined).0 {
                    if !intervals.contains(&interval) && !next_intervals.contains(&interval) {
                        bind(interval, &joined);
                    }
                }
            }
        }
    }
    let mut out = BTreeSet::new();
    for (page, text) in checked {
        for interval in quoted(text).0 {
            for (generated, row) in rows_of.get(&interval).into_iter().flatten() {
                out.insert(format!("{page}\t{interval}\t{generated}\t{row}"));
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn every_quoted_interval_keeps_the_rows_it_was_checked_against() {
    let path = root().join(QUOTED_ROWS);
    let current = quoted_rows();
    if std::env::var_os("UPDATE_QUOTES").is_some() {
        let mut text = current.join("\n");
        text.push('\n');
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let locked = read(&path);
    let locked: BTreeSet<&str> = locked.lines().collect();
    let current_set: BTreeSet<&str> = current.iter().map(String::as_str).collect();
    let gone: Vec<&str> = locked.difference(&current_set).copied().collect();
    let new: Vec<&str> = current_set.difference(&locked).copied().collect();
    assert!(
        gone.is_empty() && new.is_empty(),
        "quoted intervals whose bindings to generated rows changed (new results, or a quote \
         added, changed or removed: reread each quote against its row, then UPDATE_QUOTES=1 \
         cargo test -p harness --test quoted_figures):\n  bindings gone:\n    {}\n  \
         bindings not yet checked:\n    {}",
        gone.join("\n    "),
        new.join("\n    ")
    );
}

#[test]
fn the_figure_reader_finds_ratios_ranges_and_intervals() {
    let (intervals, ratios) = quoted(
        "at 1.62x, 0.73-1.18x, 0.91x to 0.98x, 0.97x [0.95, 0.98] and 1.05 [0.99, 1.12]; 802.11a at 2.5 Mb/s",
    );
    assert_eq!(intervals, ["0.97 [0.95, 0.98]", "1.05 [0.99, 1.12]"]);
    assert_eq!(ratios, ["1.62", "1.18", "0.73", "0.91", "0.98"]);
}

#[test]
fn a_quote_is_bound_to_every_row_that_holds_it() {
    let generated = |a: &str| {
        vec![(
            "g.md".to_owned(),
            format!("| a | 0.90 [0.80, 1.00] |\n| b | {a} |\nprose at 1.10x\n[1.05, 1.20] ends\n"),
        )]
    };
    let checked = [(
        "h.md",
        "at 0.90x [0.80, 1.00] and 1.10x [1.05, 1.20]".to_owned(),
    )];
    let rows = bind_rows(&generated("0.90 [0.80, 1.00]"), &checked);
    assert_eq!(
        rows,
        [
            "h.md\t0.90 [0.80, 1.00]\tg.md\t| a | 0.90 [0.80, 1.00] |",
            "h.md\t0.90 [0.80, 1.00]\tg.md\t| b | 0.90 [0.80, 1.00] |",
            "h.md\t1.10 [1.05, 1.20]\tg.md\tprose at 1.10x [1.05, 1.20] ends",
        ]
    );
    // Row b changed: the figure still stands in row a, but the binding moves.
    let changed = bind_rows(&generated("0.91 [0.80, 1.00]"), &checked);
    assert_ne!(rows, changed);
    assert_eq!(changed.len(), 2);
}
