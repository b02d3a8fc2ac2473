//! `harness scorecard` on the committed result files: the tables it prints, the files it
//! writes, and the input it refuses (exit 2, a message naming what is wrong, nothing written).

mod common;

use std::path::{Path, PathBuf};

use common::{refused_untouched, run_in, stderr, stdout};

fn results() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../results")
        .canonicalize()
        .unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `harness scorecard COMMAND DIR --format json`, run in `cwd`, parsed (it must succeed).
fn scorecard_json(cwd: &Path, command: &str, dir: &Path) -> serde_json::Value {
    let output = run_in(cwd, &["scorecard", command, path(dir), "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

#[test]
fn targets_print_the_composites_verdicts_as_markdown_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let demo = results().join("manet/quinn/demo");
    let output = run_in(dir.path(), &["scorecard", "targets", path(&demo)]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("| experiment | point | x default (Cubic) |"),
        "{text}"
    );
    assert!(text.contains("| quinn/demo | demo |"), "{text}");
    assert!(text.contains("targets met,"), "{text}");
    let json = scorecard_json(dir.path(), "targets", &demo);
    let table = &json["blocks"][0]["table"];
    assert_eq!(table["columns"][2], "x default (Cubic)");
    let ratio = &table["rows"][0][2];
    let (mean, low, high) = (
        ratio["mean"].as_f64().unwrap(),
        ratio["low"].as_f64().unwrap(),
        ratio["high"].as_f64().unwrap(),
    );
    assert!(
        low <= mean && mean <= high && ratio["seeds"] == 5,
        "{ratio}"
    );
}

#[test]
fn the_papers_pool_counts_a_shared_default_point_once() {
    let dir = tempfile::tempdir().unwrap();
    let papers = results().join("manet/papers-ns3");
    let mut args = vec!["scorecard", "targets", "--pooled"];
    let dirs: Vec<PathBuf> = ["abra-pause-ns3", "abra-speed-ns3"]
        .iter()
        .map(|d| papers.join(d))
        .collect();
    args.extend(dirs.iter().map(|d| path(d)));
    let output = run_in(dir.path(), &args);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    // 6 + 6 points of 5 seeds, the default point (pause 10 s, speed 15 m/s) in both: 60 pairs
    // offered, 55 distinct.
    assert!(
        text.contains("(55 pairs (5 more were the same runs under another point, counted once))"),
        "{text}"
    );
}

#[test]
fn against_jain_and_ablation_read_their_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let chain = results().join("ns3-chain-tcp");
    let output = run_in(
        dir.path(),
        &[
            "scorecard",
            "against",
            path(&chain),
            "--baseline",
            "tcp-newreno",
            "--controller",
            "karak",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("| karak x tcp-newreno |"));
    let own4 = results().join("manet/quinn/coexist-own4");
    let output = run_in(dir.path(), &["scorecard", "jain", path(&own4)]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("| manet >= 0.95 |"));
    let output = run_in(
        dir.path(),
        &["scorecard", "ablation", path(&results().join("manet"))],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("without backlog_bound"));
}

/// Jain's table pairs the runs' goodputs, all four flows together, against Cubic's four: the
/// column's mean is the geometric mean over seeds of the totals' ratios, recomputed here from
/// the result file's flows.
#[test]
fn jain_pairs_all_four_flows_against_cubics_four() {
    let dir = tempfile::tempdir().unwrap();
    let own4 = results().join("manet/quinn/ns3-chain-own4");
    let json = scorecard_json(dir.path(), "jain", &own4);
    let table = &json["blocks"][0]["table"];
    let column = table["columns"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c == "manet x cubic, all flows")
        .expect("the all-flows column");
    let mut totals = std::collections::BTreeMap::new();
    let file = std::fs::read_to_string(own4.join("shard-0-of-1.jsonl")).unwrap();
    for line in file.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["kind"] != "run" {
            continue;
        }
        let r = &v["result"];
        let flows = r["flows"].as_array().unwrap();
        assert_eq!(flows.len(), 4, "four flows per run");
        let total: f64 = flows
            .iter()
            .map(|f| f["goodput_bps"].as_f64().unwrap())
            .sum();
        let key = (
            r["controller"].as_str().unwrap().to_owned(),
            r["point"].as_str().unwrap().to_owned(),
            r["seed"].as_u64().unwrap(),
        );
        totals.insert(key, total);
    }
    let rows = table["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{table}");
    for row in rows {
        let point = row[1].as_str().unwrap();
        let logs: Vec<f64> = (1..=5)
            .map(|seed| {
                let of = |c: &str| totals[&(c.to_owned(), point.to_owned(), seed)];
                (of("manet") / of("cubic")).ln()
            })
            .collect();
        let expected = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        let cell = &row[column];
        let mean = cell["mean"].as_f64().unwrap();
        assert!(
            (mean - expected).abs() < 1e-9,
            "{point}: {mean} != {expected}"
        );
        assert_eq!(cell["seeds"], 5, "{cell}");
    }
}

#[test]
fn a_split_is_seeded_drawn_once_and_never_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let petra = results().join("manet/quinn/petra-table-4.2");
    let draw = |out: &str, seed: &str| {
        run_in(
            d,
            &[
                "scorecard",
                "split",
                path(&petra),
                "--seed",
                seed,
                "--out",
                out,
            ],
        )
    };
    for (out, seed) in [("a.toml", "7"), ("b.toml", "7"), ("c.toml", "8")] {
        let output = draw(out, seed);
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(stderr(&output).contains("drew 8 development and 4 validation cells"));
    }
    let read = |f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    assert_eq!(read("a.toml"), read("b.toml"));
    assert_ne!(read("a.toml"), read("c.toml"));
    // The split judges: targets with it print the two sets apart.
    let output = run_in(
        d,
        &["scorecard", "targets", path(&petra), "--split", "a.toml"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("### Development cells") && text.contains("### Validation cells"));
    refused_untouched(
        d,
        &[
            "scorecard",
            "split",
            path(&petra),
            "--seed",
            "9",
            "--out",
            "a.toml",
        ],
        &["--out `a.toml`", "drawn once"],
    );
    // A split without a cell the inputs hold is refused, not scored as either set.
    let demo = results().join("manet/quinn/demo");
    refused_untouched(
        d,
        &["scorecard", "targets", path(&demo), "--split", "a.toml"],
        &["no cell experiment = \"demo\", point = \"demo\""],
    );
}

#[test]
fn a_throughput_delay_picture_is_an_svg_and_never_replaces_a_result() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let jitter = results().join("manet/noq/jitter");
    let output = run_in(
        d,
        &[
            "scorecard",
            "throughput-delay",
            path(&jitter),
            "--out",
            "td.svg",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let svg = std::fs::read_to_string(d.join("td.svg")).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("p95 RTT (ms)"),
        "{}",
        &svg[..200]
    );
    for point in ["jitter=5 ms PER=0", "jitter=20 ms PER=0.001"] {
        assert!(svg.contains(point), "{point}");
    }
    // Copied in, a result file is refused as the picture's output.
    std::fs::copy(jitter.join("shard-0-of-1.jsonl"), d.join("copy.jsonl")).unwrap();
    refused_untouched(
        d,
        &[
            "scorecard",
            "throughput-delay",
            path(&jitter),
            "--out",
            "copy.jsonl",
        ],
        &["is a harness result file"],
    );
}

#[test]
fn the_decision_table_follows_its_rule() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let manet = results().join("manet/quinn");
    let spec = format!(
        r#"featured = "manet"

[[row]]
path = "lossy"
experiments = ["{petra}"]
points = ["row=3", "row=4"]
page = "docs/results/manet.md"

[[row]]
path = "mobile"
experiments = ["{demo}"]
page = "docs/results/demo.md"
"#,
        petra = path(&manet.join("petra-table-4.2")),
        demo = path(&manet.join("demo")),
    );
    std::fs::write(d.join("spec.toml"), &spec).unwrap();
    let output = run_in(d, &["scorecard", "decision", "spec.toml"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    // On PETRA's rows 3-4, quinn's BBR carries more than `manet`; both are far above Cubic.
    assert!(text.contains("| lossy | quinn | `bbr` |"), "{text}");
    // On the demo nothing's interval over Cubic lies above 1.
    assert!(
        text.contains("| mobile | quinn | Cubic (the default) | none above 1; best "),
        "{text}"
    );
    std::fs::write(
        d.join("bad-point.toml"),
        spec.replace("\"row=4\"", "\"row=44\""),
    )
    .unwrap();
    refused_untouched(
        d,
        &["scorecard", "decision", "bad-point.toml"],
        &[
            "row 1 (\"lossy\")",
            "point \"row=44\" is in none of its experiments",
        ],
    );
    std::fs::write(d.join("typo.toml"), spec.replace("page =", "pgae =")).unwrap();
    refused_untouched(d, &["scorecard", "decision", "typo.toml"], &["pgae"]);
}

#[test]
fn bad_inputs_are_refused_with_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let chain = results().join("ns3-chain");
    let text = std::fs::read_to_string(chain.join("shard-0-of-1.jsonl")).unwrap();
    std::fs::create_dir(d.join("edited")).unwrap();
    std::fs::write(
        d.join("edited/shard-0-of-1.jsonl"),
        text.replacen("\"goodput_bps\":1", "\"goodput_bps\":9", 1),
    )
    .unwrap();
    std::fs::create_dir(d.join("torn")).unwrap();
    // Cut in the middle of its third run: the first two runs and a torn line.
    let cut = text.match_indices('\n').nth(2).unwrap().0 + 100;
    std::fs::write(d.join("torn/shard-0-of-1.jsonl"), &text[..cut]).unwrap();
    std::fs::create_dir(d.join("empty")).unwrap();
    let chain = path(&chain);
    for (args, needles) in [
        (
            &["scorecard", "targets", "nowhere"][..],
            &["`nowhere` is not a directory"][..],
        ),
        (
            &["scorecard", "targets", chain],
            &["manet: no runs", "it holds"],
        ),
        (
            &[
                "scorecard",
                "against",
                chain,
                "--baseline",
                "cubic",
                "--controller",
                "manett",
            ],
            &["manett: no runs"],
        ),
        (
            &["scorecard", "targets", "empty"],
            &["no .jsonl result files"],
        ),
        (&["scorecard", "jain", "edited"], &["line 2", "was edited"]),
        (
            &["scorecard", "jain", "torn"],
            &["is not a complete sweep", "resume the sweep"],
        ),
        (
            &["scorecard", "ablation", "empty"],
            &["ablation` is not a directory"],
        ),
        (
            &[
                "scorecard",
                "targets",
                chain,
                "--controller",
                "karak",
                "--split",
                "nowhere.toml",
            ],
            &["nowhere.toml"],
        ),
        (
            &[
                "scorecard",
                "split",
                chain,
                "--seed",
                "1",
                "--validation",
                "1",
                "--out",
                "s.toml",
            ],
            &["--validation 1", "(0, 1)"],
        ),
        (
            &["scorecard", "decision", "nowhere.toml"],
            &["nowhere.toml"],
        ),
    ] {
        refused_untouched(d, args, needles);
    }
}
