//! `rate_check`: the bound's reading of a standing queue, confirmed by the rate it delivers.
//!
//! The backlog bound reads RTT above the base as this flow's queue. Per-datagram jitter, a
//! wireless hop's retries or another flow's queue raise the RTT too, and on a path whose
//! bandwidth-delay product is many datagrams a reading off by a fraction of the RTT holds the
//! window at a small fraction of the pipe. A queue has a test a misreading fails: a larger
//! window no longer delivers more (BBR's full-pipe test and `ProbeBW`, Cardwell et al., ACM
//! Queue 2016; PCC Vivace's online experiments, Dong et al., NSDI 2018). So after a run of rounds
//! the bound held or decreased, one round sends [`TRIAL_GAIN`] times the window (BBR's
//! `ProbeBW` gain); the round after it settles, and the next is measured. Its delivery rate is
//! Vegas' `Actual` (Brakmo and Peterson 1995, section 3.2): the bytes the round acknowledged
//! over its mean RTT (Little's law, so that per-datagram jitter averages out instead of
//! timing the round by two samples). Only windows of more than [`MIN_WINDOW_BETAS`] x `beta`
//! datagrams are tried.
//!
//! - The rate grew by at least [`GREW_SHARE`] of the window's growth: the delay the bound read
//!   was not a queue of this flow's. The window keeps its gain, and the RTT excess of the round
//!   that started the check (its mean over the base) becomes an allowance the bound no longer
//!   reads as backlog, until a new base RTT.
//! - Otherwise the reading is confirmed: the window returns to its value before the trial
//!   (BBR's drain after a 1.25 gain). If the trial saw losses (a loss, a round with losses or
//!   an ECN cut declared from its measuring round on, or in a recovery round after it: packets
//!   sent at the trial's window; the settling round's are of packets sent before the gain),
//!   its gain overflowed a queue, and the
//!   next check waits twice as long, as drain rounds do ([`super::drain_round::Schedule`];
//!   BBRv2's `inflight_hi`); otherwise the next waits as long as this one did, so that trials
//!   that once found room go on until one loses packets (after BBRv2's `PROBE_UP`;
//!   `rate_check_loss_backoff`: with it off, every flat trial backs off).
//!
//! The rate alone cannot tell room from a share taken at a full bottleneck: with other flows
//! behind the same queue, a trial takes part of their rate. At a share `s` of the bottleneck's
//! rate, a window gain `g` raises this flow's rate by `g (1 - s) / (1 + g s)` (Little's law, the
//! others' windows fixed), which passes [`GREW_SHARE`] while `s < (1 - G) / (1 + G g)`, 0.44 at
//! `G` = 1/2 and `g` = 1/4: trials alone lift a flow to that share of any number of flows. The
//! extra datagrams of such a trial queue, so the round's smallest RTT, Copa's standing queue
//! (Arun and Balakrishnan, NSDI 2018, section 2.1), rises by `s` datagram times at this flow's
//! rate for each datagram added; in a pipe with room for the whole gain it does not rise (PCC
//! Vivace judges its rate trials by the RTT's gradient for the same reason; Dong et al., NSDI
//! 2018, section 3). A trial that finds room for only part of its gain now reads as flat, and a
//! share taken is seen only where the gain times the share exceeds the tolerance below (four
//! flows at a fair share: windows of more than 16 datagrams).
//! So with `rate_check_standing_queue` a gain counts only if the smallest RTT rose by at most
//! [`standing_tolerance_ns`]: one datagram's time at the starting round's rate (the resolution
//! of its samples, a datagram apart), or the starting round's spread if larger, since jitter
//! delivered in order (a wireless hop's retries) holds the datagrams behind a late one, and a
//! larger window lifts the smallest RTT within that spread.

use std::time::Duration;

use super::bdp_cap::Cap;

/// The window's gain in a trial: BBR's `ProbeBW` pacing gain (Cardwell et al. 2016).
pub const TRIAL_GAIN: f64 = 1.25;

/// The share of the window's gain the delivery rate must show for the reading to be a misread.
/// A queue delivers none of it, a pipe with room all of it; a half splits the two. Ours
/// (docs/results/chosen-constants.md).
pub const GREW_SHARE: f64 = 0.5;

/// Trials run only while the window holds more than this many times `beta` datagrams. Below
/// it the bound's window is an 802.11 chain's few datagrams (the best is about h/4, Fu et al.,
/// INFOCOM 2003, under `2 x beta` for chains under 32 hops), where a round holds too few samples
/// for its rate to tell a quarter more; and there a reading off by a fraction of the RTT costs
/// at most a datagram or two. Ours (docs/results/chosen-constants.md).
pub const MIN_WINDOW_BETAS: f64 = 2.0;

/// Whether a window of `cwnd` bytes is large enough to trial (more than
/// [`MIN_WINDOW_BETAS`] x `beta` datagrams of `mtu` bytes).
pub fn trials_at(cwnd: u64, mtu: u64, beta: f64) -> bool {
    cwnd as f64 > MIN_WINDOW_BETAS * beta * mtu as f64
}

/// Where a trial is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The first round after the window grew: its samples are of packets sent at the old window.
    Settling,
    /// The round the trial measures.
    Measuring,
}

/// A rate trial under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateTrial {
    /// The delivery rate of the round that started it, bytes per second.
    pub start_rate: u64,
    /// That round's RTT excess (mean over the base), nanoseconds: the delay the bound read.
    pub start_excess_ns: u64,
    /// That round's smallest RTT, nanoseconds: its standing queue.
    pub start_min_ns: u64,
    /// That round's spread (mean minus smallest RTT), nanoseconds.
    pub start_spread_ns: u64,
    /// The window before the trial, bytes.
    pub prior_cwnd: u64,
    /// Where the trial is.
    pub phase: Phase,
    /// Whether `bdp_cap` was armed when it began.
    pub cap: Cap,
    /// Whether the trial saw losses: a loss, a round with losses or an ECN cut declared once
    /// the settling round ended (the settling round's are of packets sent before the gain).
    pub lost: bool,
}

/// The delivery rate of a round, bytes per second: `delivered` bytes over the round's mean RTT
/// (Vegas' `Actual`); `None` without either.
pub fn delivery_rate(delivered: u64, mean: Duration) -> Option<u64> {
    if delivered == 0 || mean.is_zero() {
        return None;
    }
    let rate = delivered as f64 / mean.as_secs_f64();
    Some(if rate >= u64::MAX as f64 {
        u64::MAX
    } else {
        rate as u64
    })
}

/// The trial's window, bytes: [`TRIAL_GAIN`] times `cwnd`, at least a datagram more.
pub fn trial_window(cwnd: u64, mtu: u64) -> u64 {
    // `Window::set_cwnd` clamps to `MAX_WINDOW` (2^48), far inside f64's exact range.
    let gained = (cwnd as f64 * TRIAL_GAIN).min(cc_core::MAX_WINDOW as f64) as u64;
    gained.max(cwnd.saturating_add(mtu))
}

impl RateTrial {
    /// The trial after a round or a congestion event that `lost` packets (a round with losses,
    /// a loss, an ECN mark): recorded from the measuring phase on.
    pub fn after_loss(self, lost: bool) -> Self {
        Self {
            lost: self.lost || (lost && self.phase == Phase::Measuring),
            ..self
        }
    }

    /// Whether the measured round's smallest RTT, `min`, kept the standing queue the trial
    /// began with (`rate_check_standing_queue`), for datagrams of `mtu` bytes.
    pub fn kept_standing_queue(&self, min: Duration, mtu: u64) -> bool {
        let rise = cc_core::saturating_ns(min).saturating_sub(self.start_min_ns);
        rise <= standing_tolerance_ns(self.start_rate, mtu, self.start_spread_ns)
    }
}

/// How far the measured round's smallest RTT may rise over the starting round's, nanoseconds,
/// for the trial's gain to count as room: one datagram of `mtu` bytes at `start_rate` bytes per
/// second, or `start_spread_ns` if larger.
pub fn standing_tolerance_ns(start_rate: u64, mtu: u64, start_spread_ns: u64) -> u64 {
    let datagram_ns = u128::from(mtu) * 1_000_000_000 / u128::from(start_rate.max(1));
    u64::try_from(datagram_ns)
        .unwrap_or(u64::MAX)
        .max(start_spread_ns)
}

/// Whether a trial that found the rate flat doubles the wait before the next: with
/// `loss_backoff` (`rate_check_loss_backoff`) only if it `lost` packets, otherwise always.
pub fn backs_off(loss_backoff: bool, lost: bool) -> bool {
    lost || !loss_backoff
}

/// Whether the measured round's rate `rate` shows the trial's gain: at least [`GREW_SHARE`] of
/// the window's relative growth from `prior_cwnd` to `trial_cwnd` over `start_rate`.
pub fn grew(start_rate: u64, rate: u64, prior_cwnd: u64, trial_cwnd: u64) -> bool {
    if prior_cwnd == 0 || start_rate == 0 {
        return false;
    }
    let gain = trial_cwnd as f64 / prior_cwnd as f64 - 1.0;
    rate as f64 >= start_rate as f64 * (1.0 + gain * GREW_SHARE)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MTU: u64 = 1200;

    #[test]
    fn the_rate_is_the_bytes_over_the_mean_rtt() {
        assert_eq!(
            delivery_rate(120_000, Duration::from_millis(100)),
            Some(1_200_000)
        );
        assert_eq!(delivery_rate(0, Duration::from_millis(100)), None);
        assert_eq!(delivery_rate(1, Duration::ZERO), None);
    }

    #[test]
    fn only_windows_above_twice_beta_trial() {
        assert!(!trials_at(8 * MTU, MTU, 4.0));
        assert!(trials_at(8 * MTU + 1, MTU, 4.0));
    }

    #[test]
    fn the_trial_adds_a_quarter_and_at_least_a_datagram() {
        assert_eq!(trial_window(40 * MTU, MTU), 50 * MTU);
        assert_eq!(trial_window(2 * MTU, MTU), 3 * MTU);
    }

    fn trial(start_rate: u64, start_min_ms: u64, start_spread_ms: u64) -> RateTrial {
        RateTrial {
            start_rate,
            start_excess_ns: 0,
            start_min_ns: start_min_ms * 1_000_000,
            start_spread_ns: start_spread_ms * 1_000_000,
            prior_cwnd: 40 * MTU,
            phase: Phase::Measuring,
            cap: Cap::Unarmed,
            lost: false,
        }
    }

    #[test]
    fn the_standing_queue_may_rise_a_datagram_or_the_spread() {
        let ms = Duration::from_millis;
        // 120,000 bytes per second: a datagram of 1,200 bytes every 10 ms.
        assert_eq!(standing_tolerance_ns(120_000, MTU, 0), 10_000_000);
        assert_eq!(standing_tolerance_ns(120_000, MTU, 25_000_000), 25_000_000);
        let t = trial(120_000, 100, 0);
        assert!(t.kept_standing_queue(ms(110), MTU));
        assert!(!t.kept_standing_queue(Duration::from_micros(110_001), MTU));
        // A smaller smallest RTT never fails it.
        assert!(t.kept_standing_queue(ms(90), MTU));
        let jittered = trial(120_000, 100, 25);
        assert!(jittered.kept_standing_queue(ms(125), MTU));
        assert!(!jittered.kept_standing_queue(ms(126), MTU));
        // A rate of zero reads as one byte per second: no division by zero, and any rise fits.
        assert!(trial(0, 100, 0).kept_standing_queue(ms(1_000), MTU));
    }

    #[test]
    fn a_rate_that_kept_half_the_gain_grew() {
        // 40 -> 50 datagrams (+25%): the rate must grow by 12.5%.
        assert!(grew(1_000, 1_125, 40 * MTU, 50 * MTU));
        assert!(!grew(1_000, 1_124, 40 * MTU, 50 * MTU));
        // A queue: the rate stayed.
        assert!(!grew(1_000, 1_000, 40 * MTU, 50 * MTU));
        // Nothing measured before: never a misread.
        assert!(!grew(0, 1_000, 40 * MTU, 50 * MTU));
    }
}
