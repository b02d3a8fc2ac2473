//! Malformed input of every kind gets exit code 2 and a message naming what is wrong, never a
//! panic, and no run is started.

mod common;

use common::{run_in, stderr};

struct Case {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    args: &'static [&'static str],
    expect: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        name: "wrong type, with line and field",
        files: &[(
            "s.toml",
            "name = \"x\"\n[link.both]\nrate = \"2Mbps\"\nmtu = \"big\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["s.toml", "line 4", "link.both.mtu", "expected u32"],
    },
    Case {
        name: "BER outside [0, 1), with line and field",
        files: &[(
            "s.toml",
            "# comment\n\n[link.both]\nerrors = [{ model = \"ber\", ber = 1.5 }]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 4", "errors[0].ber = 1.5", "[0, 1)"],
    },
    Case {
        name: "negative rate",
        files: &[("s.toml", "[link.both]\nrate = \"-2Mbps\"\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 2", "link.both.rate", "-2Mbps"],
    },
    Case {
        name: "unknown key",
        files: &[("s.toml", "[link]\nboth = { rate = \"2Mbps\" }\nfoo = 3\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 3", "unknown field `foo`", "a_to_b"],
    },
    Case {
        name: "802.11 layer field out of range, with line and range",
        files: &[("s.toml", "[link.mac]\ncw_min = 5000\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &[
            "line 2",
            "link.mac.cw_min = 5000 is out of range: it must be in [0, cw_max (1023)]",
        ],
    },
    Case {
        name: "802.11 layer field out of range from the command line",
        files: &[],
        args: &["run", "--link", "mac.max_attempts=0"],
        expect: &["--link", "link.mac.max_attempts = 0", "in [1, 255]"],
    },
    Case {
        name: "netsim's 802.11 layer on the ns-3 backend",
        files: &[("s.toml", "backend = \"ns3\"\n[link.mac]\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 2", "link.mac is netsim's 802.11 layer", "[ns3.wifi]"],
    },
    Case {
        name: "unknown packet protection in a scenario file",
        files: &[("s.toml", "seeds = 1\npacket_protection = \"rot13\"\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 2", "packet_protection", "`tls`", "`null`"],
    },
    Case {
        name: "unknown packet protection on the command line",
        files: &[],
        args: &["run", "--packet-protection", "rot13"],
        expect: &["invalid value 'rot13'", "tls", "null"],
    },
    Case {
        name: "malformed TOML",
        files: &[("s.toml", "[transfer\nduration = 3\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["s.toml", "line 1"],
    },
    Case {
        name: "unreadable scenario file",
        files: &[],
        args: &["run", "--scenario", "missing.toml"],
        expect: &["cannot read scenario file `missing.toml`"],
    },
    Case {
        name: "flows disagreeing with the [[flow]] tables",
        files: &[(
            "s.toml",
            "seeds = 1\nflows = 3\n[[flow]]\n[[flow]]\ncontroller = \"cubic\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["flows = 3 but 2 [[flow]] tables"],
    },
    Case {
        name: "a listed flow's unknown controller",
        files: &[(
            "s.toml",
            "seeds = 1\n[[flow]]\n[[flow]]\ncontroller = \"vegas\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["flow[1].controller", "unknown controller `vegas`"],
    },
    Case {
        name: "a listed flow starting after the transfer",
        files: &[(
            "s.toml",
            "seeds = 1\n[transfer]\nduration = \"10s\"\n[[flow]]\n[[flow]]\nstart = \"10s\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["flow[1].start", "shorter than transfer.duration"],
    },
    Case {
        name: "a listed flow's access delay out of range",
        files: &[(
            "s.toml",
            "seeds = 1\n[[flow]]\n[[flow]]\naccess_delay = \"11s\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["flow[1].access_delay", "at most 10s"],
    },
    Case {
        name: "a listed flow's access delay on the ns-3 backend",
        files: &[(
            "s.toml",
            "seeds = 1\nbackend = \"ns3\"\n[[flow]]\n[[flow]]\naccess_delay = \"30ms\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["flow[1].access_delay", "netsim"],
    },
    Case {
        name: "--mix with a bad access delay",
        files: &[],
        args: &["run", "--mix", "run,cubic@30xs"],
        expect: &["--mix", "`cubic@30xs`", "access delay"],
    },
    Case {
        name: "--mix naming every flow and --controllers",
        files: &[],
        args: &["run", "--controllers", "karak", "--mix", "petra,cubic"],
        expect: &["--mix", "no flow for the grid's controllers", "run"],
    },
    Case {
        name: "--mix with an unknown controller",
        files: &[],
        args: &["run", "--mix", "run,vegas"],
        expect: &["--mix", "unknown controller `vegas`"],
    },
    Case {
        name: "--mix with a controller the stack cannot run",
        files: &[],
        args: &["run", "--mix", "run,bbr", "--stack", "noq"],
        expect: &["flow[1].controller", "bbr3"],
    },
    Case {
        name: "flows out of range",
        files: &[("s.toml", "seeds = 1\nflows = 0\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 2", "flows = 0", "[1, 64]"],
    },
    Case {
        name: "unknown controller in a file",
        files: &[(
            "s.toml",
            "[controllers]\nselect = [\"newreno\", \"vegas\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 2", "unknown controller `vegas`", "karak"],
    },
    Case {
        name: "controller knob out of range in a file",
        files: &[("s.toml", "[controllers.karak]\none_dup_ack_factor = 3.0\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 2", "karak.one_dup_ack_factor = 3", "(0, 1]"],
    },
    Case {
        name: "unknown controller on the command line",
        files: &[],
        args: &["run", "--controllers", "newreno,foo"],
        expect: &["unknown controller `foo`"],
    },
    Case {
        name: "knob out of range on the command line",
        files: &[],
        args: &["run", "--set", "sackfew.alpha=1.5"],
        expect: &["sackfew.alpha = 1.5", "[0, 1]"],
    },
    Case {
        name: "a rule between knobs, on the command line",
        files: &[],
        args: &["run", "--set", "abra.initial_min_srtt=1s"],
        expect: &["--set", "abra.initial_srtt_range", "min < max"],
    },
    Case {
        name: "bands out of order",
        files: &[],
        args: &["run", "--set", "ub.alpha=3.5"],
        expect: &[
            "--set",
            "ub.alpha = 3.5 (with gamma = 3)",
            "alpha < gamma < beta",
        ],
    },
    Case {
        name: "unknown knob",
        files: &[],
        args: &["run", "--set", "karak.nope=2"],
        expect: &["no knob `nope`", "one_dup_ack_factor"],
    },
    Case {
        name: "unknown preset",
        files: &[],
        args: &["run", "--preset", "nope"],
        expect: &["unknown preset `nope`", "petra-table-4.2"],
    },
    Case {
        name: "BER out of range on the command line",
        files: &[],
        args: &["run", "--ber", "1.5"],
        expect: &["--ber", "ber = 1.5", "[0, 1)"],
    },
    Case {
        name: "negative rate on the command line",
        files: &[],
        args: &["run", "--rate=-5Mbps"],
        expect: &["--rate", "not a rate"],
    },
    Case {
        name: "zero speed",
        files: &[],
        args: &["run", "--speed", "0"],
        expect: &["--speed", "min_speed = 0", "> 0"],
    },
    Case {
        name: "unwritable output file",
        files: &[],
        args: &["run", "--json", "no/such/dir/out.json"],
        expect: &["cannot write `no/such/dir/out.json`"],
    },
    Case {
        name: "unwritable sweep directory",
        files: &[("blocker", "a file, not a directory")],
        args: &["sweep", "--out", "blocker/results"],
        expect: &["cannot write `blocker/results`"],
    },
    Case {
        name: "malformed shard",
        files: &[],
        args: &["sweep", "--out", "r", "--shard", "4/4"],
        expect: &["4/4", "0 <= i < N"],
    },
    Case {
        name: "both duration and bytes in a file",
        files: &[("s.toml", "[transfer]\nduration = \"10s\"\nbytes = 1000\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 3", "either `duration` or `bytes`"],
    },
    Case {
        name: "axis labels do not match values",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"flows\"\nvalues = [1, 2]\nlabels = [\"one\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["line 4", "labels has 1 entries but values has 2"],
    },
    Case {
        name: "two values of an axis with one label",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"flows\"\nvalues = [1, 2]\nlabels = [\"x\", \"x\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis[0]", "same label `x`"],
    },
    Case {
        name: "a value twice in an axis",
        files: &[("s.toml", "[[axis]]\nkey = \"flows\"\nvalues = [1, 2, 1]\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis[0].values[2] repeats values[0]"],
    },
    Case {
        name: "two axes on one key",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"flows\"\nvalues = [1, 2]\n[[axis]]\nkey = \"flows\"\nname = \"f\"\nvalues = [3]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis[1].key", "sets what axis[0]"],
    },
    Case {
        name: "an axis inside another axis's table",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"link.both\"\nvalues = [{ rate = \"1Mbps\" }]\n[[axis]]\nkey = \"link.both.rate\"\nvalues = [\"2Mbps\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis[1].key", "`link.both`"],
    },
    Case {
        name: "an axis on the seeds",
        files: &[("s.toml", "[[axis]]\nkey = \"seeds\"\nvalues = [1, 2]\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis[0].key", "cannot be an axis", "seeds = [1, 2, 3]"],
    },
    Case {
        name: "two axes with one name",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"flows\"\nname = \"n\"\nvalues = [1, 2]\n[[axis]]\nkey = \"transfer.duration\"\nname = \"n\"\nvalues = [\"1s\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis[1].name", "collide"],
    },
    Case {
        name: "Gilbert-Elliott with three numbers",
        files: &[],
        args: &["run", "--gilbert-elliott", "0.01,0.1,0"],
        expect: &["four comma-separated probabilities"],
    },
    Case {
        name: "Gilbert-Elliott with a probability above 1",
        files: &[],
        args: &["run", "--gilbert-elliott", "0.01,2,0,0.5"],
        expect: &["R (bad to good) = `2`", "[0, 1]"],
    },
    Case {
        name: "a duration without its unit",
        files: &[],
        args: &["run", "--delay", "45"],
        expect: &["--delay", "`45` has no unit", "45ms"],
    },
    Case {
        name: "a negative rate on the command line",
        files: &[],
        args: &["run", "--rate", "-2Mbps"],
        expect: &["--rate", "`-2Mbps` is not a rate"],
    },
    Case {
        name: "seeds beyond the limit, with the real range",
        files: &[],
        args: &["run", "--seeds", "0"],
        expect: &["1..=10000"],
    },
    Case {
        name: "an MTU below QUIC's minimum in a file",
        files: &[("s.toml", "[link.both]\nmtu = 1000\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["mtu = 1000", "[1200, 65535]", "QUIC"],
    },
    Case {
        name: "a worker count beyond reason",
        files: &[],
        args: &["run", "--jobs", "100000"],
        expect: &["--jobs 100000", "[1, 1024]"],
    },
    Case {
        name: "a setting beside a path model without settings",
        files: &[(
            "s.toml",
            "[link.path]\nmodel = \"always_up\"\nmean_up = \"10s\"\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["link.path", "unknown field `mean_up`"],
    },
    Case {
        name: "a flag that does not apply to the path model",
        files: &[],
        args: &["run", "--path", "always-up", "--speed", "5"],
        expect: &[
            "--speed `link.path.max_speed`",
            "`max_speed`",
            "no settings",
        ],
    },
    Case {
        name: "a mobility flag on the on-off model",
        files: &[],
        args: &["run", "--path", "on-off", "--pause", "5s"],
        expect: &["--pause `link.path.pause`", "`pause`", "mean_up"],
    },
    Case {
        name: "a duration of the wrong type, in plain words",
        files: &[("s.toml", "[link.both]\ndelay = true\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["link.both.delay", "expected a duration such as"],
    },
    Case {
        name: "seeds of the wrong type, in plain words",
        files: &[("s.toml", "seeds = \"x\"\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["seeds", "expected a number of seeds"],
    },
    Case {
        name: "an astronomical speed",
        files: &[],
        args: &["run", "--speed", "1e9"],
        expect: &["min_speed", "at most 1000 m/s"],
    },
    Case {
        name: "an astronomical terrain",
        files: &[],
        args: &["run", "--area", "1e9x100"],
        expect: &["area_width", "at most 1000000 m"],
    },
    Case {
        name: "an astronomical shard count",
        files: &[],
        args: &["sweep", "--out", "r", "--shard", "0/1000000000"],
        expect: &["at most 100000 shards"],
    },
    Case {
        name: "one file for two outputs",
        files: &[],
        args: &["run", "--json", "out", "--csv", "./out"],
        expect: &["--json and --csv both name `./out`"],
    },
    Case {
        name: "the Markdown table over the HTML page",
        files: &[],
        args: &["run", "--markdown", "r.md", "--html", "r.md"],
        expect: &["--markdown and --html both name `r.md`"],
    },
    Case {
        name: "the scenario file as an output",
        files: &[("s.toml", "seeds = 1\n")],
        args: &["run", "--scenario", "s.toml", "--json", "s.toml"],
        expect: &["--json `s.toml` is an input (--scenario `s.toml`)"],
    },
    Case {
        name: "an unknown timeout reading on the command line",
        files: &[],
        args: &["run", "--timeout-reading", "rto"],
        expect: &[
            "--timeout-reading",
            "time_threshold, probe_timeout or persistent_congestion",
        ],
    },
    Case {
        name: "an unknown timeout reading in a scenario file",
        files: &[("s.toml", "[transport]\ntimeout_reading = \"rto\"\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["timeout_reading", "time_threshold"],
    },
    Case {
        name: "a controller the host stack does not ship",
        files: &[],
        args: &["run", "--stack", "noq", "--controllers", "bbr"],
        expect: &["controller `bbr` runs on quinn only, not on noq", "bbr3"],
    },
    Case {
        name: "quiche as the host stack",
        files: &[("s.toml", "stack = \"quiche\"\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["stack", "\"quinn\" or \"noq\""],
    },
    Case {
        name: "quinn's qlog on noq",
        files: &[],
        args: &["run", "--stack", "noq", "--qlog", "q"],
        expect: &["--qlog", "noq"],
    },
    Case {
        name: "a rate without a unit (bits or bytes?)",
        files: &[],
        args: &["run", "--rate", "2"],
        expect: &["--rate", "no unit", "2Mbps"],
    },
    Case {
        name: "a rate that is not a whole number of bits per second",
        files: &[],
        args: &["run", "--rate", "0.5bps"],
        expect: &["--rate", "whole number"],
    },
    Case {
        name: "a duration knob without a unit",
        files: &[],
        args: &["run", "--set", "abra.initial_max_srtt=5"],
        expect: &["abra.initial_max_srtt", "no unit", "5ms"],
    },
    Case {
        name: "[ns3] on netsim, where nothing reads it",
        files: &[("s.toml", "[ns3]\nzzz = 1\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["[ns3]", "netsim", "backend = \"ns3\""],
    },
    Case {
        name: "a scenario file without end",
        files: &[],
        args: &["run", "--scenario", "/dev/zero"],
        expect: &["scenario file `/dev/zero`", "larger than"],
    },
    Case {
        name: "a trace file without end",
        files: &[],
        args: &["run", "--trace-file", "/dev/zero"],
        expect: &["trace file `/dev/zero`", "larger than"],
    },
    Case {
        name: "a mobility step too short to simulate in bounded time",
        files: &[],
        args: &["run", "--link", "path.step=\"1ns\""],
        expect: &["path.step", ">= 1ms"],
    },
    Case {
        name: "an on/off up period too short to simulate in bounded time",
        files: &[],
        args: &["run", "--path", "on-off", "--mean-up", "1ns"],
        expect: &["mean_up", ">= 1ms"],
    },
    Case {
        name: "a trace route too long to simulate in bounded time",
        files: &[("t.trace", "0 up 4294967295\n")],
        args: &["run", "--trace-file", "t.trace", "--link", "mac={}"],
        expect: &["t.trace", "line 1", "[1, 255]"],
    },
    Case {
        name: "one rate in two spellings on an axis",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"link.both.rate\"\nvalues = [\"2Mbps\", \"2000kbps\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["2000kbps", "same run"],
    },
    Case {
        name: "one duration as a number and as a string on an axis",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"transfer.duration\"\nvalues = [1, \"1000ms\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["1000ms", "same run"],
    },
    Case {
        name: "a mix and a flow count",
        files: &[],
        args: &["run", "--mix", "run,cubic", "--flows", "3"],
        expect: &["--mix", "--flows"],
    },
    Case {
        name: "a trace file and another path model",
        files: &[("t.trace", "0 up\n")],
        args: &["run", "--trace-file", "t.trace", "--path", "on-off"],
        expect: &["--trace-file", "--path"],
    },
    Case {
        name: "a knob of a controller the run does not use",
        files: &[],
        args: &[
            "run",
            "--controllers",
            "cubic",
            "--set",
            "karak.one_dup_ack_factor=0.1",
        ],
        expect: &[
            "--set",
            "controllers.karak.one_dup_ack_factor",
            "not among",
            "cubic",
        ],
    },
    Case {
        name: "quinn's send-check compensation on noq",
        files: &[],
        args: &["run", "--stack", "noq", "--quinn-full-window"],
        expect: &["--quinn-full-window", "noq"],
    },
    Case {
        name: "quinn's send-check compensation turned off on noq",
        files: &[],
        args: &["run", "--stack", "noq", "--quinn-full-window=false"],
        expect: &["--quinn-full-window", "noq"],
    },
    Case {
        name: "quinn's send-check compensation not a boolean",
        files: &[],
        args: &["run", "--quinn-full-window=3"],
        expect: &["--quinn-full-window", "3"],
    },
    Case {
        name: "an axis on both directions that one direction overrides",
        files: &[(
            "s.toml",
            "[link.a_to_b]\nrate = \"1Mbps\"\n[[axis]]\nkey = \"link.both.rate\"\nvalues = [\"2Mbps\", \"4Mbps\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["axis `link.both.rate`", "link.a_to_b.rate", "never changes"],
    },
    Case {
        name: "Karak's grading inverted",
        files: &[],
        args: &[
            "run",
            "--controllers",
            "karak",
            "--set",
            "karak.one_dup_ack_factor=0.4",
        ],
        expect: &["one_dup_ack_factor", "two_dup_ack_factor = 0.25"],
    },
    Case {
        name: "a bad value blames its own option, not every option given",
        files: &[],
        args: &["run", "--seeds", "1", "--link", "a_to_b.delay=-1"],
        expect: &["--link `link.a_to_b.delay`", "not a valid duration"],
    },
    Case {
        name: "a queue given as packets and bytes at once",
        files: &[],
        args: &["run", "--link", "a_to_b.queue={packets=5,bytes=9000}"],
        expect: &["link.a_to_b.queue", "exactly one of its keys"],
    },
    Case {
        name: "a transport threshold out of range, named as the field",
        files: &[("s.toml", "[transport]\npacket_threshold = 0\n")],
        args: &["run", "--scenario", "s.toml"],
        expect: &["transport.packet_threshold = 0 is out of range"],
    },
    Case {
        name: "merge of something that is neither a file nor a directory",
        files: &[],
        args: &["merge", "/dev/null"],
        expect: &["`/dev/null` is neither a result file"],
    },
    Case {
        name: "a duration shorter than the timer granularity",
        files: &[],
        args: &["run", "--duration", "500us"],
        expect: &["transfer.duration = 500us", "[1ms, 24h]"],
    },
    Case {
        name: "a point label that would break a table or reach the terminal",
        files: &[(
            "s.toml",
            "[[axis]]\nkey = \"transfer.duration\"\nvalues = [\"1s\", \"2s\"]\nlabels = [\"a\\nb\", \"\\u001b[31mred\"]\n",
        )],
        args: &["run", "--scenario", "s.toml"],
        expect: &["control character", "a\\nb"],
    },
    Case {
        name: "merge of a file that is not a result file",
        files: &[("r.jsonl", "{\"hello\": 1}\n")],
        args: &["merge", "r.jsonl"],
        expect: &["r.jsonl", "line 1"],
    },
];

#[test]
fn every_malformed_input_exits_2_with_a_message_naming_the_problem() {
    assert!(CASES.len() >= 10);
    for case in CASES {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in case.files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        let output = run_in(dir.path(), case.args);
        let err = stderr(&output);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{}: exit code; stderr:\n{err}",
            case.name
        );
        for needle in case.expect {
            assert!(
                err.contains(needle),
                "{}: `{needle}` missing from stderr:\n{err}",
                case.name
            );
        }
        assert!(!err.contains("panicked"), "{}: panic:\n{err}", case.name);
        assert!(
            !err.contains("untagged enum"),
            "{}: serde's words:\n{err}",
            case.name
        );
        assert!(
            output.stdout.is_empty(),
            "{}: no table on bad input",
            case.name
        );
    }
}

#[test]
fn a_grid_too_large_to_expand_is_refused_before_it_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let values: Vec<String> = (1..=50).map(|i| format!("\"{i}s\"")).collect();
    let values = values.join(", ");
    let mut text = String::new();
    for key in [
        "transfer.duration",
        "flow_stagger",
        "transport.idle_timeout",
    ] {
        text.push_str(&format!("[[axis]]\nkey = \"{key}\"\nvalues = [{values}]\n"));
    }
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let output = run_in(dir.path(), &["run", "--scenario", "s.toml"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("more than 10000 points"), "{err}");
    // Points within bounds, runs beyond: 40 x 40 points x 9 controllers x 1000 seeds.
    let values: Vec<String> = (1..=40).map(|i| format!("\"{i}s\"")).collect();
    let values = values.join(", ");
    let text = format!(
        "seeds = 1000\n[[axis]]\nkey = \"transfer.duration\"\nvalues = [{values}]\n[[axis]]\nkey = \"transport.idle_timeout\"\nvalues = [{values}]\n"
    );
    std::fs::write(dir.path().join("s.toml"), text).unwrap();
    let output = run_in(dir.path(), &["run", "--scenario", "s.toml"]);
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("= 14400000 runs, more than 100000:"), "{err}");
}

#[test]
fn the_documented_forms_run() {
    let dir = tempfile::tempdir().unwrap();
    let quick = ["--seeds", "1", "--duration", "1s"];
    for extra in [
        &[
            "--gilbert-elliott",
            "0.01,0.1,0,0.5",
            "--controllers",
            "newreno",
        ][..],
        // The demo's queue is a packet limit: a byte limit replaces it.
        &["--queue-bytes", "30000", "--controllers", "newreno"][..],
        &[
            "--preset",
            "petra-table-4.2",
            "--queue-bytes",
            "30000",
            "--controllers",
            "newreno",
        ][..],
        // A port's setting, with a port.
        &[
            "--timeout-reading",
            "probe_timeout",
            "--controllers",
            "karak",
        ][..],
    ] {
        let args: Vec<&str> = ["run"].iter().chain(extra).chain(&quick).copied().collect();
        let output = run_in(dir.path(), &args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    }
}

#[test]
fn merge_refuses_to_overwrite_its_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let before = common::sweep_file(dir.path(), "r", "1s", "1", "newreno").into_bytes();
    let output = run_in(
        dir.path(),
        &["merge", "r", "--jsonl", "r/shard-0-of-1.jsonl"],
    );
    let err = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{err}");
    assert!(err.contains("is an input"), "{err}");
    let after = std::fs::read(dir.path().join("r/shard-0-of-1.jsonl")).unwrap();
    assert_eq!(before, after, "the input is untouched");
}

#[test]
fn help_explains_units_and_defaults() {
    let output = common::harness().args(["run", "--help"]).output().unwrap();
    let help = common::stdout(&output);
    assert!(output.status.success());
    for needle in [
        "bits per second",
        "default 60s",
        "m/s",
        "default: all",
        "Virtual (default)",
        // The demo, not the scenario-file defaults, is the base without --scenario/--preset.
        "or, with neither, the demo",
        "noq",
    ] {
        assert!(help.contains(needle), "`{needle}` missing from run --help");
    }
    // The top-level help says where every option is, as harness/README.md promises.
    let output = common::harness().arg("--help").output().unwrap();
    let help = common::stdout(&output);
    assert!(help.contains("Every option, with its unit, range and default: `harness run --help`"));
    let readme = include_str!("../README.md");
    assert!(readme.contains("-- run --help     # every option, with units and defaults"));
}
