//! A fixed-window sender over ns-3: the measurement behind the 802.11 chain effect that SACK-FeW
//! (and FeW before it) is built on.
//!
//! Endpoint A keeps exactly `window` data datagrams outstanding; endpoint B answers each with a
//! small acknowledgement datagram; each acknowledgement releases the next data datagram, and a
//! datagram unacknowledged for `timeout` counts as lost and releases one too. On a multi-hop
//! 802.11 chain the hops of this one flow, and its own acknowledgements, contend for the
//! medium: as the window grows past a few packets, hidden-terminal collisions and MAC drops
//! rise and goodput falls (Fu et al., "The impact of multihop wireless channel on TCP
//! throughput and loss", INFOCOM 2003, and the FeW and SACK-FeW papers).

use std::collections::{BTreeMap, HashSet};
use std::time::Duration;

use netsim::Side;
use serde::{Deserialize, Serialize};

use crate::Error;
use crate::config::Ns3Config;
use crate::session::Session;
use crate::stats::Ns3Stats;

/// The sender's settings.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FixedWindow {
    /// Data datagrams kept outstanding. Range `[1, 10000]`.
    pub window: u32,
    /// Bytes per data datagram (default 1200, QUIC's minimum). Range `[16, 2000]`.
    pub data_bytes: u32,
    /// Bytes per acknowledgement datagram (default 40). Range `[16, 2000]`.
    pub ack_bytes: u32,
    /// An unacknowledged datagram counts as lost after this long (default 1 s).
    pub timeout: Duration,
    /// Time before the measurement starts (default 2 s: route discovery, queues filling).
    pub warmup: Duration,
    /// Length of the measurement (default 20 s).
    pub measure: Duration,
}

impl Default for FixedWindow {
    fn default() -> Self {
        Self {
            window: 4,
            data_bytes: 1200,
            ack_bytes: 40,
            timeout: Duration::from_secs(1),
            warmup: Duration::from_secs(2),
            measure: Duration::from_secs(20),
        }
    }
}

/// What one fixed-window run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowReport {
    /// The window.
    pub window: u32,
    /// Distinct data bytes that reached B during the measurement, per second, in bits.
    pub goodput_bps: f64,
    /// Data datagrams sent by A during the whole run.
    pub data_sent: u64,
    /// Data datagrams that counted as lost (timed out).
    pub timeouts: u64,
    /// ns-3's report at the end.
    pub stats: Ns3Stats,
}

impl FixedWindow {
    fn validate(&self) -> Result<(), netsim::ConfigError> {
        let check = |field: &str, value: u32, low: u32, high: u32| {
            if (low..=high).contains(&value) {
                Ok(())
            } else {
                Err(netsim::ConfigError::out_of_range(
                    field,
                    value,
                    format!("in [{low}, {high}]"),
                ))
            }
        };
        check("window", self.window, 1, 10_000)?;
        check("data_bytes", self.data_bytes, 16, 2000)?;
        check("ack_bytes", self.ack_bytes, 16, 2000)?;
        if self.timeout.is_zero() || self.measure.is_zero() {
            return Err(netsim::ConfigError::invalid(
                "timeout/measure",
                "must be > 0",
            ));
        }
        Ok(())
    }

    /// Runs the sender from the source to the sink of `config`, seeded with `seed`, stepping
    /// ns-3 every millisecond.
    pub fn run(&self, config: &Ns3Config, seed: u64) -> Result<WindowReport, Error> {
        self.validate()?;
        let mut session = Session::new(config, seed)?;
        let step = Duration::from_millis(1);
        let start = config.start;
        let measure_from = start + self.warmup;
        let end = measure_from + self.measure;
        let mut outstanding: BTreeMap<u64, Duration> = BTreeMap::new();
        let mut received: HashSet<u64> = HashSet::new();
        let mut next = 0u64;
        let (mut data_sent, mut timeouts, mut measured_bytes) = (0u64, 0u64, 0u64);
        let data = |index: u64, len: u32| {
            let mut bytes = vec![0u8; len as usize];
            bytes[..8].copy_from_slice(&index.to_be_bytes());
            bytes
        };
        let mut now = start;
        session.run_until(now);
        let mut release = |session: &mut Session,
                           outstanding: &mut BTreeMap<u64, Duration>,
                           now: Duration,
                           count: usize| {
            for _ in 0..count {
                session.send(0, Side::A, now, next, &data(next, self.data_bytes));
                outstanding.insert(next, now);
                next += 1;
                data_sent += 1;
            }
        };
        release(&mut session, &mut outstanding, now, self.window as usize);
        while now < end {
            now += step;
            session.run_until(now);
            let mut freed = 0;
            while let Some(d) = session.pop() {
                let Some(index) = d
                    .data
                    .get(..8)
                    .and_then(|b| b.try_into().ok())
                    .map(u64::from_be_bytes)
                else {
                    continue;
                };
                match d.to {
                    Side::B => {
                        if received.insert(index) && d.at >= measure_from && d.at < end {
                            measured_bytes += u64::from(self.data_bytes);
                        }
                        session.send(0, Side::B, now, index, &data(index, self.ack_bytes));
                    }
                    Side::A => {
                        if outstanding.remove(&index).is_some() {
                            freed += 1;
                        }
                    }
                }
            }
            let expired: Vec<u64> = outstanding
                .iter()
                .filter(|(_, sent)| now.saturating_sub(**sent) >= self.timeout)
                .map(|(index, _)| *index)
                .collect();
            for index in expired {
                outstanding.remove(&index);
                timeouts += 1;
                freed += 1;
            }
            release(&mut session, &mut outstanding, now, freed);
        }
        Ok(WindowReport {
            window: self.window,
            goodput_bps: measured_bytes as f64 * 8.0 / self.measure.as_secs_f64(),
            data_sent,
            timeouts,
            stats: session.stats(),
        })
    }
}
