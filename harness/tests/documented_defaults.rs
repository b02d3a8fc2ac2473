//! What `--help` and harness/README.md say a grid runs by default is what the registry runs.

mod common;

use common::{run_in, stdout};
use harness::registry;
use harness::stack::Stack;

/// The `--controllers` paragraph of `harness sweep --help`, and the README's `--controllers`
/// row.
fn documented() -> [String; 2] {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(&run_in(dir.path(), &["sweep", "--help"]));
    let start = help.find("--controllers <LIST>").unwrap();
    let paragraph = help[start..]
        .split("\n\n")
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.starts_with("| `--controllers LIST`"))
        .unwrap()
        .to_owned();
    [paragraph, row]
}

#[test]
fn the_documented_default_controllers_are_the_registrys() {
    let defaults = registry::names(&[Stack::Quinn]);
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !(c.is_alphanumeric() || c == '-'))
            .map(str::to_owned)
            .collect()
    };
    for text in documented() {
        let words = words(&text);
        for name in &defaults {
            assert!(
                words.iter().any(|w| w == name),
                "`{name}` missing from: {text}"
            );
        }
        // Every controller the registry has, named there, is either a default or said to run
        // only when named.
        for info in registry::all() {
            if words.iter().any(|w| w == info.name) && !defaults.contains(&info.name) {
                assert!(
                    text.contains("only when named") || info.name == "bbr3",
                    "`{}` is listed but is no default: {text}",
                    info.name
                );
            }
        }
    }
}
