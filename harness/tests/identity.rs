//! Run identity: what a run id covers, and result files of other code refused (`check`,
//! resume, `merge`, `--adopt`) or re-identified by proof (`sweep --reidentify`).

mod common;

use std::path::Path;

use common::{run_in, stderr, stdout, sweep_args, sweep_file};
use serde_json::Value;

const SHARD: &str = "shard-0-of-1.jsonl";

fn lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `dir/out`'s file as an older build would have written it: karak's revision one lower.
fn older_karak(dir: &Path, out: &str) {
    let path = dir.join(out).join(SHARD);
    let mut file = lines(&std::fs::read_to_string(&path).unwrap());
    let controllers = file[0]["provenance"]["controllers"].as_array_mut().unwrap();
    let karak = controllers
        .iter_mut()
        .find(|c| c["spec"]["name"] == "karak")
        .unwrap();
    karak["identity"]["revision"]["port"] = Value::from(0);
    common::write_sealed(&path, &file);
}

#[test]
fn the_flow_mix_is_part_of_the_run_id() {
    let dir = tempfile::tempdir().unwrap();
    let args = |mix: &'static str| {
        [
            "sweep",
            "--preset",
            "coexist",
            "--mix",
            mix,
            "--controllers",
            "karak",
            "--seed",
            "1",
            "--duration",
            "2s",
            "--out",
            "d",
            "-q",
        ]
    };
    let first = run_in(dir.path(), &args("run,cubic"));
    assert!(first.status.success(), "{}", stderr(&first));
    // The same command with another competitor is another grid: refused, not "0 to run".
    let second = run_in(dir.path(), &args("run,newreno"));
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("another grid"),
        "{}",
        stderr(&second)
    );
}

#[test]
fn check_reports_current_files_and_names_what_makes_one_stale() {
    let dir = tempfile::tempdir().unwrap();
    sweep_file(dir.path(), "d", "2s", "1", "newreno,karak");
    let current = run_in(dir.path(), &["check", "d"]);
    assert!(current.status.success(), "{}", stderr(&current));
    assert!(
        stdout(&current).contains("1 current, 0 stale"),
        "{}",
        stdout(&current)
    );

    older_karak(dir.path(), "d");
    let stale = run_in(dir.path(), &["check", "d"]);
    assert_eq!(stale.status.code(), Some(1));
    let out = stdout(&stale);
    assert!(
        out.contains("STALE")
            && out.contains("controller karak: revision.port is 0 in the file and 1 in this build"),
        "{out}"
    );
    // Which runs are current and which are not.
    assert!(out.contains("newreno: 1 runs current"), "{out}");
    assert!(
        out.contains("karak: 1 runs stale (controller karak: revision.port is 0"),
        "{out}"
    );
}

#[test]
fn resume_merge_and_adopt_refuse_a_stale_file_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    sweep_file(dir.path(), "d", "2s", "1", "newreno,karak");
    older_karak(dir.path(), "d");
    let path = dir.path().join("d").join(SHARD);
    let before = std::fs::read(&path).unwrap();
    let refused = |output: std::process::Output, what: &str| {
        assert_eq!(output.status.code(), Some(2), "{what}: {}", stderr(&output));
        let err = stderr(&output);
        assert!(
            err.contains(&format!("{what}: the runs in"))
                && err.contains("revision.port is 0 in the file and 1 in this build")
                && err.contains("new --out directory"),
            "{err}"
        );
    };
    refused(
        run_in(dir.path(), &sweep_args("d", "2s", "1", "newreno,karak")),
        "resume",
    );
    refused(run_in(dir.path(), &["merge", "d"]), "merge");
    let mut adopt = sweep_args("e", "2s", "1", "newreno,karak").to_vec();
    adopt.extend(["--adopt", "d"]);
    refused(run_in(dir.path(), &adopt), "--adopt");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// `dir/out`'s file rewritten as format 1 (no provenance) under made-up old ids.
fn as_format_1(dir: &Path, out: &str) {
    let path = dir.join(out).join(SHARD);
    let mut file = lines(&std::fs::read_to_string(&path).unwrap());
    let old_id = |i: usize| format!("{i:016x}");
    let count = file[0]["run_ids"].as_array().unwrap().len();
    let ids: Vec<String> = (0..count).map(old_id).collect();
    file[0]["format"] = Value::from(1);
    file[0].as_object_mut().unwrap().remove("provenance");
    // The header's own check: its grid id is the FNV-1a hash of its run ids.
    let hash = ids
        .join(",")
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    file[0]["grid_id"] = Value::from(format!("{hash:016x}"));
    file[0]["run_ids"] = Value::from(ids);
    for line in &mut file[1..] {
        let index = line["result"]["index"].as_u64().unwrap() as usize;
        line["result"]["run_id"] = Value::from(old_id(index));
    }
    common::write_sealed(&path, &file);
}

#[test]
fn reidentify_rewrites_ids_only_after_identical_reruns() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = sweep_file(dir.path(), "d", "2s", "2", "newreno,karak");
    as_format_1(dir.path(), "d");
    let old = run_in(dir.path(), &["check", "d"]);
    assert_eq!(old.status.code(), Some(1));
    assert!(
        stdout(&old).contains("result-file format is 1"),
        "{}",
        stdout(&old)
    );

    let mut args = sweep_args("n", "2s", "2", "newreno,karak").to_vec();
    args.extend(["--reidentify", "d", "--verify", "4"]);
    let done = run_in(dir.path(), &args);
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(
        stderr(&done).contains("4 rerun and identical"),
        "{}",
        stderr(&done)
    );
    // Exactly what a fresh sweep writes: the same header and the same lines.
    let new = std::fs::read_to_string(dir.path().join("n").join(SHARD)).unwrap();
    assert_eq!(lines(&new), lines(&fresh));
    // A second re-identification into the same place overwrites nothing.
    let again = run_in(dir.path(), &args);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        stderr(&again).contains("overwrites none"),
        "{}",
        stderr(&again)
    );

    // A line whose run does not rerun identically: its controller's runs are left out, and a
    // resumed sweep runs them again with this build.
    let path = dir.path().join("d").join(SHARD);
    let mut file = lines(&std::fs::read_to_string(&path).unwrap());
    let result = &mut file[1]["result"];
    let bytes = result["bytes_delivered"].as_u64().unwrap() + 1;
    result["bytes_delivered"] = Value::from(bytes);
    result["flows"][0]["bytes_delivered"] = Value::from(bytes);
    let flow_goodput = bytes as f64 * 8.0 / result["window_s"].as_f64().unwrap();
    result["flows"][0]["goodput_bps"] = Value::from(flow_goodput);
    result["goodput_bps"] = Value::from(bytes as f64 * 8.0 / result["window_s"].as_f64().unwrap());
    let run = result["run_id"].as_str().unwrap().to_owned();
    let controller = result["controller"].as_str().unwrap().to_owned();
    common::write_sealed(&path, &file);
    let mut args = sweep_args("m", "2s", "2", "newreno,karak").to_vec();
    args.extend(["--reidentify", "d", "--verify", "4"]);
    let partial = run_in(dir.path(), &args);
    assert!(partial.status.success(), "{}", stderr(&partial));
    let err = stderr(&partial);
    assert!(
        err.contains(&format!("run {run}"))
            && err.contains("is not what this build produces: at `bytes_delivered`")
            && err.contains("runs were left out"),
        "{err}"
    );
    let kept = lines(&std::fs::read_to_string(dir.path().join("m").join(SHARD)).unwrap());
    assert_eq!(
        kept.len(),
        1 + 2,
        "the header and the other controller's two runs"
    );
    assert!(
        kept[1..]
            .iter()
            .all(|l| l["result"]["controller"] != controller.as_str())
    );
    // Resuming runs the left-out runs with this build: the file is then a fresh sweep's.
    let resumed = run_in(dir.path(), &sweep_args("m", "2s", "2", "newreno,karak"));
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let sorted = |text: &str| {
        let mut all: Vec<String> = lines(text).iter().map(|l| l.to_string()).collect();
        all.sort();
        all
    };
    let done = std::fs::read_to_string(dir.path().join("m").join(SHARD)).unwrap();
    assert_eq!(sorted(&done), sorted(&fresh));
}

#[test]
fn reidentify_refuses_another_grid() {
    let dir = tempfile::tempdir().unwrap();
    sweep_file(dir.path(), "d", "2s", "1", "newreno,karak");
    as_format_1(dir.path(), "d");
    let mut args = sweep_args("n", "2s", "1", "newreno,cubic").to_vec();
    args.extend(["--reidentify", "d"]);
    let refused = run_in(dir.path(), &args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("its controllers are [\"newreno\", \"karak\"]"),
        "{}",
        stderr(&refused)
    );
}

/// The run id of the first run of an ns-3 grid whose nodes an ns-2 trace places.
fn ns3_trace_run_id(trace: &Path) -> String {
    let text = format!(
        "backend = \"ns3\"\nseeds = [1]\n[controllers]\nselect = [\"newreno\"]\n\
         [transfer]\nduration = \"5s\"\n[ns3]\nnodes = 2\n\
         topology = {{ model = \"ns2_trace\", path = \"{}\" }}\n",
        trace.display()
    );
    let source = harness::scenario::Source {
        name: "ns-2 trace grid".to_owned(),
        default_name: "trace".to_owned(),
        text,
        dir: None,
    };
    // Described, not run: the grid and its ids need no ns-3 in this build.
    let grid = harness::scenario::load_description(&source).unwrap();
    grid.run_id(0).unwrap().to_owned()
}

#[test]
fn an_ns2_traces_contents_and_ns3s_environment_are_part_of_the_run_id() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("moves.ns2");
    let place = |x1: f64| {
        format!(
            "$node_(0) set X_ 100.0\n$node_(0) set Y_ 100.0\n$node_(0) set Z_ 0.0\n\
             $node_(1) set X_ {x1}\n$node_(1) set Y_ 100.0\n$node_(1) set Z_ 0.0\n"
        )
    };
    std::fs::write(&trace, place(200.0)).unwrap();
    let first = ns3_trace_run_id(&trace);
    assert_eq!(
        first,
        ns3_trace_run_id(&trace),
        "the same file, the same id"
    );
    // The same path, other contents: another run.
    std::fs::write(&trace, place(300.0)).unwrap();
    let moved = ns3_trace_run_id(&trace);
    assert_ne!(first, moved);
    // ns-3 reads NS_ATTRIBUTE_DEFAULT at start: a value set there makes another run. (Only
    // ns-3 points hash it; this test binary's other tests run netsim grids.)
    // SAFETY: no other thread of this test binary reads the environment of this process for
    // an ns-3 grid; the variable is removed again below.
    unsafe { std::env::set_var("NS_ATTRIBUTE_DEFAULT", "ns3::WifiMacQueue::MaxSize=10p") };
    let with_env = ns3_trace_run_id(&trace);
    unsafe { std::env::remove_var("NS_ATTRIBUTE_DEFAULT") };
    assert_ne!(moved, with_env);
    assert_eq!(moved, ns3_trace_run_id(&trace));
}
