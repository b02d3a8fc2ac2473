//! A recording with its transmit passes regrouped to a given number of packets, for measuring
//! whether a controller's per-ACK cost depends on how many packets quinn sends per pass
//! (issue 35: it must not).
//!
//! quinn stamps every datagram of a transmit pass with the pass's `now`, and a port's ledger
//! groups packets by that time. [`with_pass_size`] gives consecutive `on_sent` calls the time of
//! the first call of their group, so that groups of at least `packets` packets share one send
//! time, and moves each `on_ack`'s and `on_congestion_event`'s send time along with its
//! packet's. Every call stays, in its order and with its packet numbers, so the controllers
//! make the same number of calls as on the original recording; only the grouping changes.

use crate::event::Event;
use crate::format::Recording;
use std::collections::HashMap;

/// The packet counts per transmit pass the report and the criterion bench compare.
pub const PASS_SIZES: [u64; 3] = [8, 32, 128];

/// `recording` with its transmit passes regrouped to at least `packets` packets each (see the
/// module docs); the name gains `@<packets>/pass`.
pub fn with_pass_size(recording: &Recording, packets: u64) -> Recording {
    let packets = packets.max(1);
    // Each send time's group time, in order of the `on_sent` calls.
    let mut group_of: HashMap<u64, u64> = HashMap::new();
    let mut group: Option<(u64, u64)> = None; // (group's time, packets in it so far)
    let mut previous_last: Option<u64> = None;
    for event in &recording.events {
        if let Event::Sent { at, last_pn, .. } = *event {
            let count = previous_last.map_or(1, |p| last_pn.saturating_sub(p).max(1));
            previous_last = Some(last_pn);
            let (time, filled) = match group {
                Some((time, filled)) if filled < packets => (time, filled + count),
                _ => (at, count),
            };
            group = Some((time, filled));
            group_of.entry(at).or_insert(time);
        }
    }
    let moved = |t: u64| group_of.get(&t).copied().unwrap_or(t);
    let mut events = recording.events.clone();
    for event in &mut events {
        match event {
            Event::Sent { at: time, .. }
            | Event::Ack { sent: time, .. }
            | Event::Congestion { sent: time, .. } => *time = moved(*time),
            _ => {}
        }
    }
    let mut meta = recording.meta.clone();
    meta.name = format!("{}@{packets}/pass", meta.name);
    Recording { meta, events }
}

/// Transmit passes in `recording` (distinct send times among its `on_sent` calls) and the
/// packets they carry: the mean pass size a regrouping reached.
pub fn pass_count(recording: &Recording) -> (u64, u64) {
    let mut passes = 0;
    let mut packets = 0;
    let mut last_time = None;
    let mut previous_last: Option<u64> = None;
    for event in &recording.events {
        if let Event::Sent { at, last_pn, .. } = *event {
            packets += previous_last.map_or(1, |p| last_pn.saturating_sub(p).max(1));
            previous_last = Some(last_pn);
            if last_time != Some(at) {
                passes += 1;
                last_time = Some(at);
            }
        }
    }
    (passes, packets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Meta;

    fn recording(events: Vec<Event>) -> Recording {
        Recording {
            meta: Meta {
                name: "t".into(),
                description: String::new(),
                seed: 1,
                recorded_controller: "cubic".into(),
                initial_mtu: 1200,
                stack: "quinn".into(),
                stack_version: String::new(),
            },
            events,
        }
    }

    fn sent(at: u64, last_pn: u64) -> Event {
        Event::Sent {
            at,
            bytes: 1200,
            last_pn,
        }
    }

    #[test]
    fn passes_are_regrouped_and_acks_follow_their_packets() {
        let ack = |sent| Event::Ack {
            at: 100,
            sent,
            bytes: 1200,
            pn: None,
            app_limited: false,
        };
        let r = recording(vec![
            sent(1, 0),
            sent(2, 1),
            sent(3, 2),
            ack(2),
            sent(4, 3),
            sent(5, 4),
            ack(5),
        ]);
        let g = with_pass_size(&r, 2);
        assert_eq!(g.meta.name, "t@2/pass");
        let times: Vec<u64> = g
            .events
            .iter()
            .map(|e| match *e {
                Event::Sent { at, .. } => at,
                Event::Ack { sent, .. } => sent,
                _ => unreachable!(),
            })
            .collect();
        // Groups {1, 2}, {3, 4}, {5}: each call keeps its place, with its group's time.
        assert_eq!(times, [1, 1, 3, 1, 3, 5, 5]);
        assert_eq!(pass_count(&g), (3, 5));
        assert_eq!(pass_count(&r), (5, 5));
    }
}
