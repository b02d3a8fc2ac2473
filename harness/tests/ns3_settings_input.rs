//! `--ns3 KEY=VALUE` of the wrong type: refused (exit 2) naming the key, its value and the
//! type expected, with nothing written.

mod common;

use common::{run_in, stderr};

#[test]
fn a_wrongly_typed_ns3_setting_is_named() {
    let dir = tempfile::tempdir().unwrap();
    for (setting, expected) in [
        (
            "wifi.rts_cts=5",
            "wifi.rts_cts = 5: invalid type: integer `5`, expected a boolean",
        ),
        ("start=true", "start = true: expected a duration"),
        ("sink=1.5", "sink = 1.5: invalid type: floating point `1.5`"),
        (
            "aodv.gratuitous_reply=\"yes\"",
            "aodv.gratuitous_reply = \"yes\": invalid type",
        ),
        ("bogus=1", "bogus = 1: unknown field `bogus`"),
    ] {
        let output = run_in(
            dir.path(),
            &[
                "run",
                "--preset",
                "ns3-chain",
                "--ns3",
                setting,
                "--json",
                "out.json",
            ],
        );
        assert_eq!(
            output.status.code(),
            Some(2),
            "{setting}: {}",
            stderr(&output)
        );
        let err = stderr(&output);
        assert!(
            err.contains("--ns3") && err.contains(expected),
            "{setting}: {err}"
        );
        assert!(!dir.path().join("out.json").exists());
    }
}
