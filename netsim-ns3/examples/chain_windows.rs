//! The 802.11 chain effect on ns-3: goodput of a fixed-window sender on static chains of 1 to
//! 8 hops (802.11b at 2 Mb/s, 200 m spacing, 250 m range, AODV), for windows of 1 to 32
//! datagrams. Prints a table (Mb/s), the best window per chain and the capacity per chain.
//!
//! cargo run --release -p netsim-ns3 --features ns3 --example chain_windows [-- SEED]

use netsim_ns3::{FixedWindow, Ns3Config};

const WINDOWS: [u32; 8] = [1, 2, 3, 4, 6, 8, 16, 32];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seed: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(1);
    print!("hops");
    for w in WINDOWS {
        print!(" | W={w:<3}");
    }
    println!(" | best W | capacity Mb/s | MAC drops at W=32");
    for hops in 1..=8 {
        let config = Ns3Config::chain(hops);
        let mut best = (0, 0.0);
        print!("{hops:>4}");
        let mut drops_at_max = 0;
        for window in WINDOWS {
            let report = FixedWindow {
                window,
                ..FixedWindow::default()
            }
            .run(&config, seed)?;
            let mbps = report.goodput_bps / 1e6;
            if mbps > best.1 {
                best = (window, mbps);
            }
            drops_at_max =
                report.stats.a_to_b.drops.mac_retry + report.stats.b_to_a.drops.mac_retry;
            print!(" | {mbps:.3}");
        }
        println!(" | {} | {:.3} | {drops_at_max}", best.0, best.1);
    }
    Ok(())
}
