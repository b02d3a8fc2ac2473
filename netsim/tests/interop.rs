//! quinn and noq interoperate over netsim, in both directions: every byte of a stream sent by
//! one stack over a lossy, breaking path arrives intact at the other, reproducibly.
#![cfg(feature = "noq")]

mod common;

use common::lossy_breaking_link;

use netsim::interop::{NoqToQuinn, QuinnToNoq};
use netsim::pair::transfer::StreamPattern;
use netsim::virtual_runtime;

const BYTES: usize = 1_500_000;

/// Sends the pattern over `send`, reads it from `recv`, and returns (bytes read, intact,
/// link time taken).
macro_rules! transfer {
    ($pair:expr) => {{
        let pair = $pair;
        let start = pair.link().now();
        let (client, server) = pair.connect().await.expect("connect");
        let pattern = StreamPattern::new(9);
        let sender = async {
            let mut stream = client.open_uni().await.expect("open");
            stream
                .write_all(&{
                    let mut data = vec![0u8; BYTES];
                    pattern.fill(0, &mut data);
                    data
                })
                .await
                .expect("write");
            stream.finish().expect("finish");
            let _ = stream.stopped().await;
        };
        let receiver = async {
            let mut stream = server.accept_uni().await.expect("accept");
            let data = stream.read_to_end(BYTES * 2).await.expect("read");
            let mut expected = vec![0u8; BYTES];
            pattern.fill(0, &mut expected);
            (data.len(), data == expected)
        };
        let ((), (len, intact)) = tokio::join!(sender, receiver);
        (
            len,
            intact,
            pair.link().now() - start,
            pair.link().accounting(),
        )
    }};
}

#[test]
fn a_quinn_client_sends_to_a_noq_server_and_back() {
    let runtime = virtual_runtime().unwrap();
    let quinn_to_noq = runtime.block_on(async {
        transfer!(
            QuinnToNoq::builder(lossy_breaking_link(), 3)
                .build()
                .unwrap()
        )
    });
    let noq_to_quinn = runtime.block_on(async {
        transfer!(
            NoqToQuinn::builder(lossy_breaking_link(), 3)
                .build()
                .unwrap()
        )
    });
    for (name, (len, intact, _, accounting)) in [
        ("quinn -> noq", &quinn_to_noq),
        ("noq -> quinn", &noq_to_quinn),
    ] {
        assert_eq!(*len, BYTES, "{name}");
        assert!(*intact, "{name}: bytes corrupted");
        // The path really was lossy and broken, or this proves little.
        assert!(accounting.a_to_b.dropped.error.datagrams > 0, "{name}");
        assert!(accounting.a_to_b.dropped.breakage.datagrams > 0, "{name}");
    }
    // Reproducible from the seed.
    let again = runtime.block_on(async {
        transfer!(
            QuinnToNoq::builder(lossy_breaking_link(), 3)
                .build()
                .unwrap()
        )
    });
    assert_eq!((again.2, again.3), (quinn_to_noq.2, quinn_to_noq.3));
}
