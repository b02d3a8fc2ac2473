//! The UDP relay on loopback: an echo server behind the relay, in real time.

use std::net::SocketAddr;
use std::time::Duration;

use netsim::relay::{Relay, RelayConfig};
use netsim::{DirectionConfig, ErrorModelConfig, LinkConfig, real_runtime};
use tokio::net::UdpSocket;

/// An echo server that answers until it has echoed `count` datagrams.
async fn echo_server(count: usize) -> (SocketAddr, tokio::task::JoinHandle<usize>) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let mut buf = [0u8; 2048];
        let mut echoed = 0;
        while echoed < count {
            match tokio::time::timeout(Duration::from_secs(2), socket.recv_from(&mut buf)).await {
                Ok(Ok((len, from))) => {
                    socket.send_to(&buf[..len], from).await.unwrap();
                    echoed += 1;
                }
                _ => break,
            }
        }
        echoed
    });
    (addr, task)
}

#[test]
fn relay_forwards_both_ways_with_the_link_delay() {
    real_runtime().unwrap().block_on(async {
        let (server, echo) = echo_server(5).await;
        let link = LinkConfig::symmetric(DirectionConfig {
            delay: Duration::from_millis(20),
            ..DirectionConfig::default()
        });
        let relay = Relay::start(RelayConfig::new(server), link, 1)
            .await
            .unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0u8; 2048];
        for i in 0..5u8 {
            let sent = tokio::time::Instant::now();
            client
                .send_to(&[i; 100], relay.listen_addr())
                .await
                .unwrap();
            let (len, from) =
                tokio::time::timeout(Duration::from_secs(2), client.recv_from(&mut buf))
                    .await
                    .unwrap()
                    .unwrap();
            let rtt = sent.elapsed();
            assert_eq!((len, from, buf[0]), (100, relay.listen_addr(), i));
            // Two 20 ms propagation delays plus serialization (0.5 ms each way at 2 Mb/s).
            assert!(rtt >= Duration::from_millis(41), "{rtt:?}");
            assert!(rtt < Duration::from_millis(500), "{rtt:?}");
        }
        assert_eq!(echo.await.unwrap(), 5);
        let accounting = relay.shutdown().await.unwrap();
        assert_eq!(accounting.a_to_b.delivered.datagrams, 5);
        assert_eq!(accounting.b_to_a.delivered.datagrams, 5);
    });
}

#[test]
fn relay_applies_losses() {
    real_runtime().unwrap().block_on(async {
        let (server, echo) = echo_server(usize::MAX).await;
        let link = LinkConfig {
            a_to_b: DirectionConfig {
                delay: Duration::from_millis(1),
                scripted_drops: vec![1, 3],
                ..DirectionConfig::default()
            },
            b_to_a: DirectionConfig {
                delay: Duration::from_millis(1),
                errors: vec![ErrorModelConfig::Per { p: 0.0 }],
                ..DirectionConfig::default()
            },
            ..LinkConfig::default()
        };
        let relay = Relay::start(RelayConfig::new(server), link, 2)
            .await
            .unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let mut buf = [0u8; 64];
        let mut answered = Vec::new();
        for i in 0..5u8 {
            client.send_to(&[i], relay.listen_addr()).await.unwrap();
            if let Ok(Ok((_, _))) =
                tokio::time::timeout(Duration::from_millis(300), client.recv_from(&mut buf)).await
            {
                answered.push(buf[0]);
            }
        }
        assert_eq!(answered, vec![0, 2, 4]);
        let accounting = relay.shutdown().await.unwrap();
        assert_eq!(accounting.a_to_b.dropped.scripted.datagrams, 2);
        echo.abort();
    });
}

#[test]
fn relay_refuses_non_loopback_addresses() {
    real_runtime().unwrap().block_on(async {
        let config = RelayConfig::new("192.0.2.1:443".parse().unwrap());
        let err = Relay::start(config, LinkConfig::default(), 1).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid configuration: upstream: 192.0.2.1:443 is not a loopback address (set allow_non_loopback to permit it)"
        );
    });
}

#[test]
fn relay_refuses_to_forward_to_itself() {
    real_runtime().unwrap().block_on(async {
        let server: std::net::SocketAddr = "127.0.0.1:4999".parse().unwrap();
        let mut config = RelayConfig::new(server);
        config.listen = server;
        let err = Relay::start(config, LinkConfig::default(), 1).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid configuration: listen: 127.0.0.1:4999 is the upstream address: the relay would forward datagrams to itself"
        );
    });
}

#[test]
fn a_port_in_use_names_the_socket() {
    real_runtime().unwrap().block_on(async {
        let taken = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let addr = taken.local_addr().unwrap();
        let mut config = RelayConfig::new("127.0.0.1:9".parse().unwrap());
        config.upstream_bind = addr;
        let err = Relay::start(config, LinkConfig::default(), 1)
            .await
            .unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("cannot bind the upstream_bind socket to {addr}: ")),
            "{message}"
        );
    });
}

/// The binary: bad input exits 2 naming the flag; the relay's own failures exit 1.
#[test]
fn the_cli_names_flags_and_exits_2_on_bad_input() {
    let relay = env!("CARGO_BIN_EXE_netsim-relay");
    let run = |args: &[&str]| {
        let out = std::process::Command::new(relay)
            .args(args)
            .output()
            .expect("netsim-relay runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--upstream", "192.0.2.1:443"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--upstream: 192.0.2.1:443 is not a loopback address (set --allow-non-loopback to permit it)"),
        "{err}"
    );
    let (code, err) = run(&["--upstream", "127.0.0.1:4998", "--listen", "127.0.0.1:4998"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--listen: 127.0.0.1:4998 is the upstream address"),
        "{err}"
    );
    let bad = std::env::temp_dir().join(format!("netsim-relay-{}-link.toml", std::process::id()));
    std::fs::write(&bad, "[a_to_b]\nrate = \"fast\"\n").unwrap();
    let (code, err) = run(&[
        "--upstream",
        "127.0.0.1:4998",
        "--config",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    let _ = std::fs::remove_file(&bad);
    assert!(err.contains("link.toml"), "{err}");
    let taken = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let (code, err) = run(&["--upstream", "127.0.0.1:4998", "--listen", &addr]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("cannot bind the listen socket (--listen {addr})")),
        "{err}"
    );
}

/// The socket facing the server must be of the upstream's address family (a socket of one
/// family cannot send to the other, so every datagram would fail): `RelayConfig::new` picks
/// that family's loopback address and `validate` refuses a mismatch, naming both fields.
#[test]
fn the_upstream_socket_follows_the_upstream_address_family() {
    let v6 = RelayConfig::new("[::1]:4433".parse().unwrap());
    assert_eq!(v6.upstream_bind, "[::1]:0".parse().unwrap());
    v6.validate().unwrap();
    let v4 = RelayConfig::new("127.0.0.1:4433".parse().unwrap());
    assert_eq!(v4.upstream_bind, "127.0.0.1:0".parse().unwrap());
    let mismatched = RelayConfig {
        upstream_bind: "127.0.0.1:0".parse().unwrap(),
        ..v6
    };
    let err = mismatched.validate().unwrap_err().to_string();
    assert_eq!(
        err,
        "upstream_bind: 127.0.0.1:0 is an IPv4 address and the upstream address [::1]:4433 is IPv6: the socket facing the server must be of the upstream's address family"
    );
}

#[test]
fn an_upstream_without_a_port_is_refused() {
    let err = RelayConfig::new("127.0.0.1:0".parse().unwrap())
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("upstream = 127.0.0.1:0 is out of range: it must be an address with a port in [1, 65535]"),
        "{err}"
    );
}
