//! Generated scenario files and command lines (issue 17): every input either builds a grid,
//! or is refused as bad input (exit code 2) with a message that names what is wrong; nothing
//! panics. Seeded (ChaCha), so a failure reproduces.

mod common;

use harness::scenario::{Grid, Source, load};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Values of every kind, valid and not, as TOML.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "50",
    "1200",
    "4294967296",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "0.5",
    "1e-6",
    "-0.0",
    "true",
    "\"\"",
    "\"2Mbps\"",
    "\"-2Mbps\"",
    "\"45\"",
    "\"45ms\"",
    "\"120s\"",
    "\"1e9s\"",
    "\"off\"",
    "\"abc\"",
    "\"newreno,karak\"",
    "[]",
    "[1, 2]",
    "[\"karak\"]",
    "{}",
    "{ packets = 50 }",
    "{ bytes = -1 }",
    "[{ model = \"ber\", ber = 1e-6 }]",
    "[{ model = \"per\", p = 2.0 }]",
    "\"mobility\"",
    "\"always_up\"",
    "\"time_threshold\"",
    "\"persistent_congestion\"",
    "\"quiche\"",
    "\"ns3\"",
    "\"real\"",
    "\"virtual\"",
    "\"2MBps\"",
    "\"2000kbps\"",
    "\"2mbps\"",
    "\"0.5bps\"",
    "\"1ns\"",
    "\"1000ms\"",
    "\"a\\nb\"",
    "\"\\u001b[31m\"",
];

/// Keys the scenario format knows, under their tables, plus a few it does not, each with a
/// value it accepts (where it has one).
const KEYS: &[(&str, &str, &str)] = &[
    ("", "name", "\"g\""),
    ("", "description", "\"d\""),
    ("", "seeds", "2"),
    ("", "flows", "2"),
    ("", "flow_stagger", "\"1s\""),
    ("", "controllers", "[\"newreno\", \"karak\"]"),
    ("", "clock", "\"virtual\""),
    ("", "receiver", "\"quinn\""),
    ("", "receiver", "\"noq\""),
    ("", "stack", "\"noq\""),
    ("", "stack", "\"quiche\""),
    ("", "backend", "\"netsim\""),
    ("", "colour", "\"blue\""),
    ("transfer", "duration", "\"10s\""),
    ("transfer", "bytes", "1000000"),
    ("transfer", "timeout", "\"60s\""),
    ("link.both", "rate", "\"2Mbps\""),
    ("link.both", "delay", "\"20ms\""),
    ("link.both", "jitter", "\"1ms\""),
    ("link.both", "queue", "{ packets = 50 }"),
    ("link.both", "errors", "[{ model = \"ber\", ber = 1e-6 }]"),
    ("link.both", "mtu", "1200"),
    ("link.both", "speed", "\"x\""),
    ("link.a_to_b", "rate", "\"2Mbps\""),
    ("link.b_to_a", "delay", "\"20ms\""),
    ("link.path", "model", "\"always_up\""),
    ("link.path", "nodes", "20"),
    ("link.path", "area_width", "1000.0"),
    ("link.path", "radio_range", "250.0"),
    ("link.path", "min_speed", "5.0"),
    ("link.path", "max_speed", "10.0"),
    ("link.path", "pause", "\"5s\""),
    ("link.path", "mean_up", "\"10s\""),
    ("link.path", "sink", "1"),
    ("transport", "idle_timeout", "\"off\""),
    ("transport", "packet_threshold", "3"),
    ("transport", "time_threshold", "1.125"),
    ("transport", "timeout_reading", "\"probe_timeout\""),
    ("transport", "quinn_full_window", "true"),
    ("transport", "quinn_full_window", "3"),
    ("transport", "window", "1"),
    ("ns3", "nodes", "20"),
    ("ns3", "sources", "1"),
    ("link.path", "step", "\"100ms\""),
    ("link.path", "interference_hops", "3"),
    ("link.path", "schedule", "\"0 up 4294967295\""),
];

/// A scenario file of `pairs` (key index, value index), grouped under their tables.
fn document(pairs: &[(usize, usize)]) -> String {
    let mut tables: Vec<(&str, Vec<String>)> = Vec::new();
    for &(k, v) in pairs {
        let (table, key, good) = KEYS[k % KEYS.len()];
        // Half the values are the key's own good value, half from the common pool.
        let value = VALUES.get(v).copied().unwrap_or(good);
        let line = format!("{key} = {value}");
        match tables.iter_mut().find(|(t, _)| *t == table) {
            Some((_, lines)) if !lines.iter().any(|l| l.starts_with(&format!("{key} ="))) => {
                lines.push(line)
            }
            Some(_) => {}
            None => tables.push((table, vec![line])),
        }
    }
    let mut text = String::new();
    // Top-level keys first, then the tables.
    tables.sort_by_key(|(t, _)| !t.is_empty());
    for (table, lines) in tables {
        if !table.is_empty() {
            text.push_str(&format!("[{table}]\n"));
        }
        for l in lines {
            text.push_str(&l);
            text.push('\n');
        }
    }
    text
}

fn runner() -> TestRunner {
    let config = Config {
        cases: 400,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha))
}

/// Whether `message` names something: a key of the input, a flag, a line, or a quoted name.
fn names_a_field(message: &str, names: &[&str]) -> bool {
    message.contains('`')
        || message.contains("line ")
        || message.contains("--")
        || names.iter().any(|n| message.contains(n))
}

/// Runs 400 cases of `strategy` through `build`, which gives the names a refusal may cite and
/// the outcome. Every case must build a grid or be refused as bad input (exit code 2) with a
/// message naming one of them, a flag, a line or a quoted name, and never panic; both outcomes
/// must occur, or the generator tests little.
fn builds_or_is_refused_by_name<S: Strategy>(
    strategy: S,
    build: impl Fn(&S::Value) -> (Vec<&'static str>, harness::error::Result<Grid>),
) {
    let refused = std::cell::Cell::new(0u32);
    let built = std::cell::Cell::new(0u32);
    let result = runner().run(&strategy, |input| {
        let Ok((names, outcome)) = catch_unwind(AssertUnwindSafe(|| build(&input))) else {
            return Err(TestCaseError::fail(format!("panicked on {input:?}")));
        };
        match outcome {
            Err(e) => {
                refused.set(refused.get() + 1);
                let message = e.to_string();
                prop_assert_eq!(e.exit_code(), 2, "{}\n{:?}", message, input);
                prop_assert!(
                    names_a_field(&message, &names),
                    "the message names no field or flag: {}\n{:?}",
                    message,
                    input
                );
                prop_assert!(!message.contains("untagged enum"), "{}", message);
            }
            Ok(_) => built.set(built.get() + 1),
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    let (refused, built) = (refused.get(), built.get());
    println!("refused {refused}, built {built}");
    assert!(
        refused > 50 && built > 5,
        "refused {refused}, built {built}"
    );
}

#[test]
fn generated_scenario_files_build_or_are_refused_by_name() {
    builds_or_is_refused_by_name(
        prop::collection::vec((0..KEYS.len(), 0..2 * VALUES.len()), 1..8),
        |pairs| {
            let source = Source {
                name: "generated.toml".into(),
                default_name: "generated".into(),
                text: document(pairs),
                dir: None,
            };
            let names = pairs.iter().map(|&(k, _)| KEYS[k % KEYS.len()].1).collect();
            (names, load(&source, &[]))
        },
    );
}

/// Flags of `harness run` with values, valid and not.
const FLAGS: &[(&str, &[&str])] = &[
    (
        "--preset",
        &["demo", "petra-table-4.2", "karak-speed", "nope"],
    ),
    (
        "--controllers",
        &["newreno,karak", "karak", "", "karak,karak", "bogus"],
    ),
    (
        "--set",
        &[
            "karak.timeout_cut_one=0.2",
            "ub.alpha=9",
            "karak.x=1",
            "nope",
            "abra.initial_max_srtt=5",
            "karak.one_dup_ack_factor=0.9",
        ],
    ),
    ("--seeds", &["1", "0", "-3", "100000"]),
    ("--seed", &["4", "1,2", "x"]),
    ("--duration", &["10s", "45", "-1s", "0s"]),
    ("--bytes", &["1MB", "0", "-5"]),
    ("--flows", &["2", "0", "9999999"]),
    ("--flow-stagger", &["1s", "abc"]),
    ("--clock", &["virtual", "real", "wall"]),
    ("--receiver", &["quinn", "noq", "quiche", "other"]),
    ("--stack", &["quinn", "noq", "quiche"]),
    (
        "--rate",
        &[
            "2Mbps", "-2Mbps", "0", "fast", "2MBps", "2", "0.5bps", "2mbps",
        ],
    ),
    ("--delay", &["20ms", "45", "-1ms"]),
    ("--jitter", &["5ms", "1e9s"]),
    ("--queue-packets", &["50", "0", "-1"]),
    ("--queue-bytes", &["30000", "0"]),
    ("--mtu", &["1200", "100", "70000"]),
    ("--per", &["0.01", "1.5", "-0.1", "nan"]),
    ("--ber", &["1e-6", "2", "x"]),
    ("--gilbert-elliott", &["0.01,0.1,0,0.5", "1,2,3", "a,b,c,d"]),
    ("--reorder", &["0.1,5ms", "2,5ms", "0.1"]),
    ("--duplicate", &["0.01", "3"]),
    (
        "--path",
        &["always-up", "mobility", "on-off", "trace", "warp"],
    ),
    ("--speed", &["20", "0", "-5", "1e9"]),
    ("--pause", &["5s", "-1s"]),
    ("--nodes", &["50", "1", "0", "100000000"]),
    ("--area", &["1200x1200", "0x5", "axb", "1e9x100"]),
    ("--radio-range", &["250", "0", "-1"]),
    ("--mean-up", &["10s", "0s"]),
    ("--mean-down", &["1s", "x"]),
    ("--repair-delay", &["100ms", "-1ms"]),
    (
        "--link",
        &[
            "both.rate=\"2Mbps\"",
            "path.sink=49",
            "nope=1",
            "both.rate=-1",
        ],
    ),
    ("--backend", &["netsim", "ns3", "ns2"]),
    ("--ns3", &["routing=olsr", "nodes=0", "bogus=1"]),
    ("--idle-timeout", &["off", "30s", "30"]),
    ("--packet-threshold", &["3", "0", "5000"]),
    ("--time-threshold", &["1.125", "0.5", "nan"]),
    ("--timeout-reading", &["probe_timeout", "rto"]),
    ("--quinn-full-window", &[]),
    ("--mix", &["run,cubic", "run", "cubic,nope", "run@5ms,bbr"]),
    ("--trace-file", &["/dev/zero", "/nonexistent", "/dev/null"]),
    ("--ack-delay", &["25ms", "0s", "5"]),
];

#[test]
fn generated_command_lines_build_or_are_refused_by_name() {
    builds_or_is_refused_by_name(
        prop::collection::vec((0..FLAGS.len(), 0..8usize), 1..6),
        |picks| {
            let mut args: Vec<String> = Vec::new();
            let mut seen = Vec::new();
            for &(f, v) in picks {
                let (flag, values) = FLAGS[f];
                if seen.contains(&flag) {
                    continue;
                }
                seen.push(flag);
                args.push(flag.to_owned());
                // A switch has no value.
                if !values.is_empty() {
                    args.push(values[v % values.len()].to_owned());
                }
            }
            (seen, harness::cli::run_grid(&args))
        },
    );
}

/// Edits made to a real result file: a field of a run line set to another value, a line
/// dropped or repeated, the file cut short, a byte changed.
#[derive(Debug, Clone)]
enum Edit {
    /// `result.FIELD` of run line `line` set to `value` (JSON).
    Field {
        line: usize,
        field: &'static str,
        value: &'static str,
    },
    Drop(usize),
    Repeat(usize),
    Truncate(usize),
    Byte(usize, u8),
}

/// The fields a run line is checked on, and values to put there.
const RUN_FIELDS: &[&str] = &[
    "goodput_bps",
    "bytes_delivered",
    "seed",
    "controller",
    "point",
    "index",
    "run_id",
    "window_s",
];
const RUN_VALUES: &[&str] = &[
    "0",
    "1",
    "7",
    "9.99e12",
    "-1",
    "1e308",
    "\"cubic\"",
    "\"demo\"",
    "\"elsewhere\"",
    "\"0000000000000000\"",
    "null",
    "[]",
];

fn edit_strategy() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (1..5usize, 0..RUN_FIELDS.len(), 0..RUN_VALUES.len()).prop_map(|(line, f, v)| {
            Edit::Field {
                line,
                field: RUN_FIELDS[f],
                value: RUN_VALUES[v],
            }
        }),
        (0..5usize).prop_map(Edit::Drop),
        (0..5usize).prop_map(Edit::Repeat),
        (0..20_000usize).prop_map(Edit::Truncate),
        (0..20_000usize, any::<u8>()).prop_map(|(at, b)| Edit::Byte(at, b)),
    ]
}

/// A small sweep's result file: 2 controllers x 2 seeds, 4 run lines after the header.
fn swept_file(dir: &std::path::Path) -> String {
    common::sweep_file(dir, "r", "2s", "2", "newreno,karak")
}

/// `text` with `edit` applied; whether the edit changed a checked field's value.
fn edited(text: &str, edit: &Edit) -> (Vec<u8>, bool) {
    let lines: Vec<&str> = text.lines().collect();
    let join = |lines: &[String]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
    let owned: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    match edit {
        Edit::Field { line, field, value } => {
            let mut out = owned.clone();
            let mut json: serde_json::Value = serde_json::from_str(&out[*line]).unwrap();
            let new: serde_json::Value = serde_json::from_str(value).unwrap();
            let changed = json["result"][*field] != new;
            json["result"][*field] = new;
            out[*line] = json.to_string();
            (join(&out).into_bytes(), changed)
        }
        Edit::Drop(line) => {
            let mut out = owned.clone();
            out.remove(*line);
            (join(&out).into_bytes(), false)
        }
        Edit::Repeat(line) => {
            let mut out = owned.clone();
            out.push(owned[*line].clone());
            (join(&out).into_bytes(), false)
        }
        Edit::Truncate(at) => (text.as_bytes()[..(*at).min(text.len())].to_vec(), false),
        Edit::Byte(at, byte) => {
            let mut bytes = text.as_bytes().to_vec();
            let at = at % bytes.len();
            bytes[at] = *byte;
            (bytes, false)
        }
    }
}

#[test]
fn generated_edits_of_a_result_file_are_refused_or_harmless() {
    let dir = tempfile::tempdir().unwrap();
    let text = swept_file(dir.path());
    let path = dir.path().join("r/shard-0-of-1.jsonl");
    let (refused, accepted) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    let result = runner().run(&edit_strategy(), |edit| {
        let (bytes, changed) = edited(&text, &edit);
        std::fs::write(&path, &bytes).unwrap();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            harness::batch::merge::merge(std::slice::from_ref(&path), false)
        }));
        let Ok(outcome) = outcome else {
            return Err(TestCaseError::fail(format!("panicked on {edit:?}")));
        };
        match outcome {
            Ok(_) => {
                accepted.set(accepted.get() + 1);
                // A checked field that now says something else is never taken as real.
                prop_assert!(!changed, "accepted {:?}", edit);
            }
            Err(e) => {
                refused.set(refused.get() + 1);
                let message = e.to_string();
                prop_assert!(
                    e.exit_code() == 1 || message.contains("shard-0-of-1.jsonl"),
                    "{} {:?}",
                    message,
                    edit
                );
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
    println!("refused {}, accepted {}", refused.get(), accepted.get());
    assert!(refused.get() > 100 && accepted.get() > 5);
}
