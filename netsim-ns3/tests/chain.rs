//! The 802.11 multi-hop chain effect on ns-3: on static chains, a fixed-window sender's goodput
//! peaks at a small window and falls as the window grows (the flow's own hops and
//! acknowledgements contend: hidden-terminal collisions, MAC retries and drops), and a single
//! flow's capacity falls with the hop count, as the 802.11 multi-hop literature reports (Li et
//! al., MobiCom 2001; Fu et al., INFOCOM 2003). `examples/chain_windows.rs` prints the full
//! table for 1-8 hops.
#![cfg(feature = "ns3")]

use netsim_ns3::{FixedWindow, Ns3Config};

const WINDOWS: [u32; 3] = [1, 3, 16];

#[test]
fn goodput_peaks_at_a_small_window_and_capacity_falls_with_hops() {
    let mut capacity = Vec::new();
    println!("hops | W=1 | W=3 | W=16 (Mb/s) | MAC retry drops at W=16");
    for hops in [1u32, 2, 4, 8] {
        let config = Ns3Config::chain(hops);
        let runs: Vec<_> = WINDOWS
            .iter()
            .map(|&window| {
                FixedWindow {
                    window,
                    ..FixedWindow::default()
                }
                .run(&config, 1)
                .unwrap()
            })
            .collect();
        let goodput: Vec<f64> = runs.iter().map(|r| r.goodput_bps / 1e6).collect();
        let drops = runs[2].stats.a_to_b.drops.mac_retry + runs[2].stats.b_to_a.drops.mac_retry;
        println!(
            "{hops} | {:.3} | {:.3} | {:.3} | {drops}",
            goodput[0], goodput[1], goodput[2]
        );
        let best = goodput.iter().cloned().fold(0.0, f64::max);
        if hops >= 2 {
            assert!(
                best > 1.1 * goodput[2],
                "{hops} hops: a small window ({best:.3} Mb/s) should beat W=16 ({:.3}) by 10%",
                goodput[2]
            );
            assert!(
                drops > 0,
                "{hops} hops at W=16: the MAC should drop at its retry limit"
            );
        }
        capacity.push(best);
    }
    assert!(
        capacity.windows(2).all(|pair| pair[1] < pair[0]),
        "capacity should fall with the hop count: {capacity:?}"
    );
    assert!(
        capacity[3] < 0.5 * capacity[1],
        "8 hops should carry well under half of 2 hops: {capacity:?}"
    );
}
