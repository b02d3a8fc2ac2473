//! Every harness command the documentation shows runs as written: each `harness run` and
//! `harness sweep` in the READMEs and docs is checked with `--dry-run` (its grid, every
//! setting, its outputs and, for a sweep, that its `--out` directory resumes: the committed
//! result file there is this grid's and this build's), and every `presets`, `controllers`,
//! `check`, `scorecard` and file-free `merge` runs. Commands with placeholders (`DIR`, `NAME`, `...`) are
//! forms, not commands, and are left out; commands on the ns-3 presets need the `ns3` feature
//! (CI's ns3 stage runs this test with it).

mod common;

use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The Markdown files whose commands a user copies.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut files: Vec<PathBuf> = [
        "README.md",
        "CONTRIBUTING.md",
        "harness/README.md",
        "results/README.md",
        "netsim-ns3/README.md",
        "harness/slurm/README.md",
    ]
    .iter()
    .map(|f| root.join(f))
    .collect();
    for dir in ["docs", "docs/results"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files
}

/// The harness arguments of every command in `text`: code spans (which may wrap over lines
/// within a paragraph) and code-block lines (joined over trailing backslashes) that invoke the
/// harness.
fn commands(text: &str) -> Vec<String> {
    let mut snippets = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    let mut paragraph = String::new();
    let mut shell = true;
    let flush = |paragraph: &mut String, snippets: &mut Vec<String>| {
        snippets.extend(paragraph.split('`').skip(1).step_by(2).map(str::to_owned));
        paragraph.clear();
    };
    for line in text.lines() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            flush(&mut paragraph, &mut snippets);
            in_block = !in_block;
            // Shell blocks hold commands; YAML, Dockerfiles and the like hold configuration.
            shell = ["", "sh", "bash", "console", "shell", "text"].contains(&info.trim());
            continue;
        }
        if in_block && !shell {
            continue;
        }
        if in_block {
            let line = line.trim();
            if let Some(rest) = line.strip_suffix('\\') {
                pending.push_str(rest);
                pending.push(' ');
                continue;
            }
            pending.push_str(line);
            snippets.push(std::mem::take(&mut pending));
        } else if line.trim().is_empty() {
            flush(&mut paragraph, &mut snippets);
        } else {
            paragraph.push_str(line.trim());
            paragraph.push(' ');
        }
    }
    flush(&mut paragraph, &mut snippets);
    let invocations = [
        "target/release/harness ",
        "target/debug/harness ",
        "-p harness -- ",
        "--features ns3 -- ",
        "harness ",
    ];
    snippets
        .iter()
        .filter_map(|s| {
            let s = s.trim().trim_start_matches("$ ");
            invocations
                .iter()
                .find_map(|inv| s.find(inv).map(|at| s[at + inv.len()..].to_owned()))
        })
        .filter(|args| {
            let sub = args.split_whitespace().next().unwrap_or("");
            [
                "run",
                "sweep",
                "merge",
                "check",
                "scorecard",
                "presets",
                "controllers",
            ]
            .contains(&sub)
        })
        .collect()
}

/// A form rather than a command: placeholders, elisions, shell syntax.
fn is_form(args: &[String]) -> bool {
    // An option that takes a value, given none: a command cut short in prose.
    let takes_value = [
        "--out",
        "--json",
        "--preset",
        "--link",
        "--duration",
        "--scenario",
        "--adopt",
    ];
    if args
        .last()
        .is_some_and(|a| takes_value.contains(&a.as_str()))
    {
        return true;
    }
    // `merge`, `sweep`, `check` and `scorecard` (and a scorecard's subcommand) alone name the
    // command in prose: each needs arguments.
    if args.len() == 1 && ["merge", "sweep", "check", "scorecard"].contains(&args[0].as_str()) {
        return true;
    }
    if args.len() == 2 && args[0] == "scorecard" {
        return true;
    }
    args.iter().any(|a| {
        a.starts_with('[')
            || a.contains("...")
            || a.contains('<')
            || a.contains('$')
            || ["|", "&&", ">", ";", "#"].contains(&a.as_str())
            // A placeholder (`R`, `DIR`, `delay=D`, `I/N`), or a site's own absolute path.
            || (!a.starts_with("--")
                && a.split(['=', '-', '/', ',']).any(|piece| {
                    piece.chars().any(|c| c.is_ascii_uppercase())
                        && piece
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
                }))
            || a.starts_with('/')
            || a.starts_with("NEW")
            || a.contains("DIR")
    })
}

/// Whether a merge writes files (it has no dry run; the check leaves the tree alone).
fn writes(args: &[String]) -> bool {
    args.iter().any(|a| {
        [
            "--json",
            "--csv",
            "--markdown",
            "--html",
            "--plot",
            "--jsonl",
        ]
        .iter()
        .any(|f| a == f || a.starts_with(&format!("{f}=")))
    })
}

#[test]
fn every_documented_command_runs_as_written() {
    let root = root();
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for doc in documents() {
        let text = std::fs::read_to_string(&doc).unwrap();
        // Directories an earlier command of this document writes: a later command reading one
        // (`--adopt`, `merge`) is the next step of a sequence, and runs after it, not alone.
        let mut written: Vec<String> = Vec::new();
        for command in commands(&text) {
            let Some(mut args) = shlex::split(&command) else {
                continue;
            };
            if is_form(&args) || !seen.insert(args.clone()) {
                continue;
            }
            let reads_earlier_output = args.iter().enumerate().any(|(i, a)| {
                let read = i > 0 && (args[0] == "merge" || args[i - 1] == "--adopt");
                read && written.contains(a) && !root.join(a).exists()
            });
            if let Some(i) = args.iter().position(|a| a == "--out") {
                written.extend(args.get(i + 1).cloned());
            }
            if reads_earlier_output {
                continue;
            }
            match args[0].as_str() {
                "run" | "sweep" => args.push("--dry-run".to_owned()),
                "merge" if writes(&args) => continue,
                // A split or a picture is a file of its own: written by the tests, not here.
                "scorecard" if args.iter().any(|a| a == "--out") => continue,
                _ => {}
            }
            let output = common::harness()
                .args(&args)
                .current_dir(&root)
                .env_remove("RUST_LOG")
                .output()
                .unwrap();
            let err = common::stderr(&output);
            if !cfg!(feature = "ns3") && err.contains("the ns-3 backend is not in this build") {
                continue;
            }
            checked += 1;
            if !output.status.success() {
                failures.push(format!(
                    "{}: harness {}\n  {}",
                    doc.strip_prefix(&root).unwrap_or(&doc).display(),
                    args.join(" "),
                    err.trim()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} documented commands fail as written:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        checked >= 20,
        "only {checked} commands found: the extraction broke"
    );
}
