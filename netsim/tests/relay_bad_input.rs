//! The `netsim-relay` binary under bad input and at its limits: every refusal names the flag
//! or config field and what is allowed and exits 2 without a panic; the seed range, the config
//! size limit and the address-family rule hold at start-up; the relay stops at `--duration` (or
//! a signal) whatever its link does, always prints its accounting when it has one, and exits
//! non-zero when it could forward nothing.

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, UdpSocket};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const RELAY: &str = env!("CARGO_BIN_EXE_netsim-relay");

/// A finished relay process.
#[derive(Debug)]
struct Finished {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    elapsed: Duration,
}

/// A running relay: its stdout arrives line by line, its stderr is collected.
struct Running {
    child: Child,
    started: Instant,
    lines: mpsc::Receiver<String>,
    stdout: Vec<String>,
    stderr: thread::JoinHandle<String>,
}

impl Running {
    fn spawn(args: &[&str]) -> Self {
        let started = Instant::now();
        let mut child = Command::new(RELAY)
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("netsim-relay starts");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Self {
            child,
            started,
            lines,
            stdout: Vec::new(),
            stderr,
        }
    }

    /// Waits for the `listening on ADDR (seed N)` line and returns ADDR.
    fn listen_addr(&mut self) -> SocketAddr {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(10))
            .expect("the relay prints its listen address");
        self.stdout.push(line.clone());
        let addr = line
            .strip_prefix("listening on ")
            .and_then(|rest| rest.split(' ').next())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        addr.parse().unwrap()
    }

    /// Waits up to `limit` for the process to exit; kills it (and fails) if it does not.
    fn wait(mut self, limit: Duration) -> Finished {
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let elapsed = self.started.elapsed();
                let stderr = self.stderr.join().unwrap();
                // The reader thread ends at EOF; collect what it has.
                while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(5)) {
                    self.stdout.push(line);
                }
                let finished = Finished {
                    code: status.code(),
                    stdout: self.stdout.join("\n"),
                    stderr,
                    elapsed,
                };
                assert!(
                    !finished.stderr.contains("panicked"),
                    "the relay panicked: {finished:#?}"
                );
                return finished;
            }
            if self.started.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "netsim-relay did not exit within {limit:?}; stderr so far:\n{}",
                    self.stderr.join().unwrap_or_default()
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends `signal` (a `kill` signal name) to the relay.
    #[cfg(unix)]
    fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(status.success());
    }
}

/// Runs the relay to completion, at most `limit`.
fn run(args: &[&str], limit: Duration) -> Finished {
    Running::spawn(args).wait(limit)
}

/// Bad input: exit 2 within seconds, the message containing every one of `expected`.
fn refused(args: &[&str], expected: &[&str]) -> Finished {
    let finished = run(args, Duration::from_secs(20));
    assert_eq!(finished.code, Some(2), "{args:?}: {finished:#?}");
    for part in expected {
        assert!(
            finished.stderr.contains(part),
            "{args:?}: the message lacks {part:?}: {}",
            finished.stderr
        );
    }
    finished
}

/// The printed accounting (everything after the `listening on` line) as TOML.
fn accounting(finished: &Finished) -> toml::Table {
    let text: String = finished
        .stdout
        .lines()
        .skip_while(|line| line.starts_with("listening on"))
        .collect::<Vec<_>>()
        .join("\n");
    text.parse()
        .unwrap_or_else(|e| panic!("the accounting is not TOML: {e}\n{text}"))
}

fn int(table: &toml::Table, path: &str) -> i64 {
    let mut value = table.get(path.split('.').next().unwrap());
    for key in path.split('.').skip(1) {
        value = value.and_then(|v| v.get(key));
    }
    value
        .and_then(toml::Value::as_integer)
        .unwrap_or_else(|| panic!("no integer at {path} in {table:#?}"))
}

/// A config file in the temporary directory, removed on drop.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!(
            "netsim-relay-bad-input-{}-{name}",
            std::process::id()
        ));
        std::fs::write(&path, contents).unwrap();
        Self(path)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

// 1. Seeds.

#[test]
fn a_seed_above_i64_max_is_refused_at_parse_time_naming_the_flag_and_range() {
    for seed in ["18446744073709551615", "9223372036854775808"] {
        refused(
            &[
                "--upstream",
                "127.0.0.1:4998",
                "--seed",
                seed,
                "--duration",
                "1s",
            ],
            &["--seed", "[0, 9223372036854775807]"],
        );
    }
}

#[test]
fn the_largest_seed_runs_and_prints_its_accounting() {
    let finished = run(
        &[
            "--upstream",
            "127.0.0.1:4998",
            "--seed",
            "9223372036854775807",
            "--duration",
            "200ms",
        ],
        Duration::from_secs(20),
    );
    assert_eq!(finished.code, Some(0), "{finished:#?}");
    let accounting = accounting(&finished);
    assert_eq!(int(&accounting, "seed"), i64::MAX);
    assert_eq!(int(&accounting, "a_to_b.offered.datagrams"), 0);
    assert_eq!(int(&accounting, "relay.from_client"), 0);
}

// 2. Address families and failed sends.

#[test]
fn mismatched_address_families_are_refused_naming_both_flags() {
    refused(
        &[
            "--upstream",
            "[::1]:4998",
            "--upstream-bind",
            "127.0.0.1:0",
            "--duration",
            "1s",
        ],
        &[
            "--upstream-bind 127.0.0.1:0",
            "--upstream [::1]:4998",
            "IPv4",
            "IPv6",
        ],
    );
    refused(
        &[
            "--upstream",
            "127.0.0.1:4998",
            "--upstream-bind",
            "[::1]:0",
            "--duration",
            "1s",
        ],
        &[
            "--upstream-bind [::1]:0",
            "--upstream 127.0.0.1:4998",
            "address family",
        ],
    );
}

/// An echo server on `addr` answering until it has echoed `count` datagrams (or 10 s pass).
fn echo_server(addr: &str, count: usize) -> (SocketAddr, thread::JoinHandle<usize>) {
    let socket = UdpSocket::bind(addr).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let local = socket.local_addr().unwrap();
    let task = thread::spawn(move || {
        let mut buf = [0u8; 2048];
        let mut echoed = 0;
        while echoed < count {
            let Ok((len, from)) = socket.recv_from(&mut buf) else {
                break;
            };
            socket.send_to(&buf[..len], from).unwrap();
            echoed += 1;
        }
        echoed
    });
    (local, task)
}

#[test]
fn an_ipv6_upstream_is_reached_from_an_ipv6_socket_by_default() {
    if UdpSocket::bind("[::1]:0").is_err() {
        eprintln!("skipped: no IPv6 loopback on this machine");
        return;
    }
    let (server, echo) = echo_server("[::1]:0", 3);
    let server = server.to_string();
    // The default --listen is IPv4 (the client's family is free); the socket facing the
    // server follows --upstream.
    let mut relay = Running::spawn(&["--upstream", &server, "--duration", "2s"]);
    let listen = relay.listen_addr();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    client
        .set_read_timeout(Some(Duration::from_secs(2)))
        .unwrap();
    let mut buf = [0u8; 64];
    for i in 0..3u8 {
        client.send_to(&[i; 10], listen).unwrap();
        let (len, _) = client.recv_from(&mut buf).expect("the echo comes back");
        assert_eq!((len, buf[0]), (10, i));
    }
    assert_eq!(echo.join().unwrap(), 3);
    let finished = relay.wait(Duration::from_secs(20));
    assert_eq!(finished.code, Some(0), "{finished:#?}");
    let accounting = accounting(&finished);
    assert_eq!(int(&accounting, "relay.to_server"), 3);
    assert_eq!(int(&accounting, "relay.to_server_send_errors"), 0);
    assert_eq!(int(&accounting, "relay.to_client"), 3);
}

/// 127.255.255.255 is a loopback address and the broadcast address of 127/8: Linux refuses
/// every send to it from a socket without SO_BROADCAST (EACCES).
#[cfg(target_os = "linux")]
#[test]
fn a_relay_whose_every_forward_fails_prints_the_send_errors_and_exits_1() {
    let mut relay = Running::spawn(&["--upstream", "127.255.255.255:9", "--duration", "1s"]);
    let listen = relay.listen_addr();
    let client = UdpSocket::bind("127.0.0.1:0").unwrap();
    for i in 0..5u8 {
        client.send_to(&[i; 100], listen).unwrap();
    }
    let finished = relay.wait(Duration::from_secs(20));
    assert_eq!(finished.code, Some(1), "{finished:#?}");
    assert!(
        finished
            .stderr
            .contains("every datagram to forward to the server failed to send (5 of 5"),
        "{}",
        finished.stderr
    );
    // The accounting is printed in full first.
    let accounting = accounting(&finished);
    assert_eq!(int(&accounting, "a_to_b.offered.datagrams"), 5);
    assert_eq!(int(&accounting, "relay.from_client"), 5);
    assert_eq!(int(&accounting, "relay.to_server"), 0);
    assert_eq!(int(&accounting, "relay.to_server_send_errors"), 5);
    let first = accounting["relay"]["first_send_error"].as_str().unwrap();
    assert!(first.contains("127.255.255.255:9"), "{first}");
}

// 3. Config size.

#[cfg(unix)]
#[test]
fn an_endless_config_is_refused_after_reading_past_the_limit() {
    let finished = refused(
        &["--upstream", "127.0.0.1:4998", "--config", "/dev/zero"],
        &["--config /dev/zero", "larger than 1048576 bytes (1 MiB)"],
    );
    assert!(finished.elapsed < Duration::from_secs(10), "{finished:#?}");
}

#[test]
fn a_config_of_the_limit_is_read_and_one_byte_more_is_refused() {
    const LIMIT: usize = 1 << 20;
    let mut text = b"[a_to_b]\ndelay = \"1ms\"\n".to_vec();
    while text.len() < LIMIT {
        let line = b"# padding padding padding padding padding padding padding padding\n";
        let room = LIMIT - text.len();
        if room >= line.len() {
            text.extend_from_slice(line);
        } else {
            text.extend(std::iter::repeat_n(b' ', room));
        }
    }
    assert_eq!(text.len(), LIMIT);
    let at_limit = TempFile::new("at-limit.toml", &text);
    let finished = run(
        &[
            "--upstream",
            "127.0.0.1:4998",
            "--config",
            at_limit.path(),
            "--duration",
            "100ms",
        ],
        Duration::from_secs(20),
    );
    assert_eq!(finished.code, Some(0), "{finished:#?}");
    text.push(b'\n');
    let over = TempFile::new("over-limit.toml", &text);
    refused(
        &["--upstream", "127.0.0.1:4998", "--config", over.path()],
        &[over.path(), "larger than 1048576 bytes"],
    );
}

// 4. Stopping.

#[test]
fn the_relay_exits_at_its_duration_without_traffic_and_prints_its_accounting() {
    let mobility = TempFile::new("mobility.toml", b"[path]\nmodel = \"mobility\"\n");
    let on_off = TempFile::new(
        "on-off.toml",
        b"[path]\nmodel = \"on_off\"\nmean_up = \"10s\"\nmean_down = \"1s\"\n",
    );
    for config in [None, Some(mobility.path()), Some(on_off.path())] {
        let mut args = vec!["--upstream", "127.0.0.1:4998", "--duration", "1s"];
        if let Some(path) = config {
            args.extend(["--config", path]);
        }
        let finished = run(&args, Duration::from_secs(20));
        assert_eq!(finished.code, Some(0), "{config:?}: {finished:#?}");
        assert!(
            finished.elapsed >= Duration::from_secs(1) && finished.elapsed < Duration::from_secs(6),
            "{config:?}: exited after {:?}",
            finished.elapsed
        );
        let accounting = accounting(&finished);
        assert_eq!(int(&accounting, "a_to_b.offered.datagrams"), 0);
        assert_eq!(int(&accounting, "relay.from_client"), 0);
    }
}

/// 10,000 nodes re-routed every millisecond: the path model needs far more than a second of
/// CPU per second of link time, so its accounting cannot be ready at the stop.
#[test]
fn a_link_model_slower_than_real_time_cannot_hold_the_relay_past_its_duration() {
    let slow = TempFile::new(
        "slow.toml",
        b"[path]\nmodel = \"mobility\"\nnodes = 10000\nstep = \"1ms\"\nroute_policy = \"always_shortest\"\n",
    );
    let finished = run(
        &[
            "--upstream",
            "127.0.0.1:4998",
            "--duration",
            "1s",
            "--config",
            slow.path(),
        ],
        Duration::from_secs(30),
    );
    assert_eq!(finished.code, Some(1), "{finished:#?}");
    assert!(
        finished.stderr.contains("slower than real time"),
        "{}",
        finished.stderr
    );
    // The relay's own counters are printed all the same.
    let accounting = accounting(&finished);
    assert_eq!(int(&accounting, "relay.from_client"), 0);
}

#[cfg(unix)]
#[test]
fn a_signal_stops_the_relay_with_its_accounting_and_exit_0() {
    for (signal, duration) in [("TERM", None), ("INT", Some("60s"))] {
        let mut args = vec!["--upstream", "127.0.0.1:4998"];
        if let Some(duration) = duration {
            args.extend(["--duration", duration]);
        }
        let mut relay = Running::spawn(&args);
        let listen = relay.listen_addr();
        UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .send_to(&[1; 10], listen)
            .unwrap();
        thread::sleep(Duration::from_millis(200));
        relay.signal(signal);
        let finished = relay.wait(Duration::from_secs(10));
        assert_eq!(finished.code, Some(0), "SIG{signal}: {finished:#?}");
        let accounting = accounting(&finished);
        assert_eq!(
            int(&accounting, "a_to_b.offered.datagrams"),
            1,
            "SIG{signal}"
        );
        assert_eq!(int(&accounting, "relay.from_client"), 1, "SIG{signal}");
    }
}

// 5. Bad input in general.

#[test]
fn bad_input_names_the_flag_or_field_and_what_is_allowed() {
    /// The arguments `extra` after a valid `--upstream`.
    fn with<'a>(extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = vec!["--upstream", "127.0.0.1:4998"];
        args.extend_from_slice(extra);
        args
    }
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["--upstream", "localhost:4433"],
            vec!["--upstream", "IP:PORT", "host names"],
        ),
        (
            vec!["--upstream", "127.0.0.1:0"],
            vec!["--upstream", "[1, 65535]"],
        ),
        (
            with(&["--listen", "127.0.0.1"]),
            vec!["--listen", "IP:PORT"],
        ),
        (
            with(&["--seed", "-1"]),
            vec!["--seed", "[0, 9223372036854775807]"],
        ),
        (
            with(&["--seed", "seven"]),
            vec!["--seed", "[0, 9223372036854775807]"],
        ),
        (
            with(&["--duration", "0s"]),
            vec!["--duration", "greater than 0", "8760h"],
        ),
        (
            with(&["--duration", "-1s"]),
            vec!["--duration", "greater than 0", "8760h"],
        ),
        (
            with(&["--duration", "8761h"]),
            vec!["--duration", "at most 8760h"],
        ),
        (
            with(&["--duration", "5"]),
            vec!["--duration", "no unit", "8760h"],
        ),
        (
            with(&["--config", "/nonexistent/link.toml"]),
            vec!["--config /nonexistent/link.toml", "cannot read"],
        ),
    ];
    for (args, expected) in &cases {
        refused(args, expected);
    }

    // A directory, a binary file, and link fields out of range.
    let dir = std::env::temp_dir();
    let dir = dir.to_str().unwrap();
    refused(&with(&["--config", dir]), &["--config", "cannot read"]);
    let binary = TempFile::new("binary.toml", b"\xff\xfe\x00");
    refused(
        &with(&["--config", binary.path()]),
        &[binary.path(), "not UTF-8"],
    );
    let rate = TempFile::new("rate.toml", b"[a_to_b]\nrate = \"0bps\"\n");
    refused(
        &with(&["--config", rate.path()]),
        &[rate.path(), "a_to_b.rate", "(0, 100Gbps]"],
    );
    let nodes = TempFile::new("nodes.toml", b"[path]\nmodel = \"mobility\"\nnodes = 1\n");
    refused(
        &with(&["--config", nodes.path()]),
        &[nodes.path(), "path.nodes", "[2, 10000]"],
    );
    // A deeply nested one-line document: the parser's limit, and a message of a few lines
    // (the parser quotes the offending line; the relay cuts it).
    let mut deep = b"x = ".to_vec();
    deep.extend(std::iter::repeat_n(b'[', 500_000));
    let deep = TempFile::new("deep.toml", &deep);
    let finished = refused(&with(&["--config", deep.path()]), &[deep.path()]);
    assert!(finished.stderr.len() < 4_000, "{}", finished.stderr.len());
}
