//! The on-disk recording format (`*.ccrec.gz`).
//!
//! A file is gzip (RFC 1952, via `flate2`) around the 8 bytes `CCREC\0\0\x02` (magic and format
//! version 2) and a `postcard` encoding of [`Meta`] followed by the event list. postcard writes
//! integers as LEB128 varints (signed ones zigzag-coded), enum variants as a varint index and
//! `Option`s as a 0/1 byte. To keep the varints short, times and packet numbers are delta-coded
//! on disk:
//!
//! | event | fields on disk |
//! |---|---|
//! | `Sent` | `at - previous at` (i64), `bytes`, `last_pn - previous pn` (i64) |
//! | `Rtt` | smoothed, conservative, min (ns) |
//! | `Ack` | `at - previous at` (i64), `at - sent` (i64), `bytes`, `pn - previous pn` (optional i64), `app_limited` |
//! | `EndAcks` | `at - previous at` (i64), `in_flight`, `app_limited`, `largest_acked` |
//! | `Congestion` | `at - previous at` (i64), `at - sent` (i64), `persistent`, `ecn`, `lost_bytes`, `largest_lost_pn - previous pn` (optional i64) |
//! | `Mtu` | `mtu` |
//! | `PacketSent` | `at - previous at` (i64), `bytes`, `pn - previous pn` (i64) |
//! | `PacketLost` | `at - previous at` (i64), `bytes`, `pn - previous pn` (i64) |
//! | `CwndLimited`, `SpuriousCongestion`, `Metrics` | nothing |
//! | `AckFrequency` | `threshold`, `max_ack_delay_ns` |
//!
//! "previous at" is that of the previous event that has a time (0 at the start), and
//! "previous pn" the packet number of the previous `Sent` or `PacketSent` (0 at the start).
//! The quinn recordings average about 9 bytes per event before compression and 2-2.5 bytes
//! per callback after. Version 1 (quinn only, without packet numbers, ECN flag or stack name)
//! is no longer read: `cargo run --release -p cc-bench --bin record` regenerates every
//! recording.

use crate::event::{Event, RttReading};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::Path;

const MAGIC: [u8; 8] = *b"CCREC\0\0\x02";

/// What a recording is and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    /// Short name (`clean-10mbps`, ...).
    pub name: String,
    /// The netsim scenario in words.
    pub description: String,
    /// The netsim run seed.
    pub seed: u64,
    /// The controller that ran the connection while it was recorded.
    pub recorded_controller: String,
    /// The datagram size the stack passed to `ControllerFactory::build`, bytes.
    pub initial_mtu: u16,
    /// The stack that made the calls (`quinn`, `noq`): a recording replays only into that
    /// stack's controllers.
    pub stack: String,
    /// Its protocol crate and version (`quinn-proto 0.11`, `noq-proto 1.4`).
    pub stack_version: String,
}

/// A recorded callback sequence of one controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// Provenance.
    pub meta: Meta,
    /// The callbacks, in the stack's order.
    pub events: Vec<Event>,
}

/// Reading or writing a recording failed.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The bytes are not a recording of this format version.
    #[error(
        "{0}: not a cc-bench recording of format version 2 (regenerate with `cargo run --release -p cc-bench --bin record`)"
    )]
    Magic(String),
    /// postcard could not encode or decode the contents.
    #[error("{path}: {source}")]
    Encoding {
        /// The file.
        path: String,
        /// postcard's error.
        source: postcard::Error,
    },
}

/// One event on disk (see the module docs for the delta coding).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
enum WireEvent {
    Sent {
        dt: i64,
        bytes: u64,
        dpn: i64,
    },
    Rtt(RttReading),
    Ack {
        dt: i64,
        age: i64,
        bytes: u64,
        dpn: Option<i64>,
        app_limited: bool,
    },
    EndAcks {
        dt: i64,
        in_flight: u64,
        app_limited: bool,
        largest_acked: Option<u64>,
    },
    Congestion {
        dt: i64,
        age: i64,
        persistent: bool,
        ecn: bool,
        lost_bytes: u64,
        dpn: Option<i64>,
    },
    Mtu {
        mtu: u16,
    },
    PacketSent {
        dt: i64,
        bytes: u16,
        dpn: i64,
    },
    PacketLost {
        dt: i64,
        bytes: u16,
        dpn: i64,
    },
    CwndLimited,
    SpuriousCongestion,
    AckFrequency {
        threshold: u64,
        max_ack_delay_ns: u64,
    },
    Metrics,
}

fn diff(a: u64, b: u64) -> i64 {
    a.wrapping_sub(b) as i64
}

fn undiff(base: u64, d: i64) -> u64 {
    base.wrapping_add(d as u64)
}

/// The running bases of the delta coding: the previous time and packet number.
#[derive(Default)]
struct Bases {
    at: u64,
    pn: u64,
}

impl Bases {
    fn dt(&mut self, at: u64) -> i64 {
        let d = diff(at, self.at);
        self.at = at;
        d
    }

    fn at(&mut self, dt: i64) -> u64 {
        self.at = undiff(self.at, dt);
        self.at
    }

    /// A sent packet number: coded against the previous one, and the new base.
    fn dpn_sent(&mut self, pn: u64) -> i64 {
        let d = diff(pn, self.pn);
        self.pn = pn;
        d
    }

    fn pn_sent(&mut self, dpn: i64) -> u64 {
        self.pn = undiff(self.pn, dpn);
        self.pn
    }
}

fn encode(events: &[Event]) -> Vec<WireEvent> {
    let mut b = Bases::default();
    events
        .iter()
        .map(|e| match *e {
            Event::Sent { at, bytes, last_pn } => WireEvent::Sent {
                dt: b.dt(at),
                bytes,
                dpn: b.dpn_sent(last_pn),
            },
            Event::Rtt(r) => WireEvent::Rtt(r),
            Event::Ack {
                at,
                sent,
                bytes,
                pn,
                app_limited,
            } => WireEvent::Ack {
                dt: b.dt(at),
                age: diff(at, sent),
                bytes,
                dpn: pn.map(|pn| diff(pn, b.pn)),
                app_limited,
            },
            Event::EndAcks {
                at,
                in_flight,
                app_limited,
                largest_acked,
            } => WireEvent::EndAcks {
                dt: b.dt(at),
                in_flight,
                app_limited,
                largest_acked,
            },
            Event::Congestion {
                at,
                sent,
                persistent,
                ecn,
                lost_bytes,
                largest_lost_pn,
            } => WireEvent::Congestion {
                dt: b.dt(at),
                age: diff(at, sent),
                persistent,
                ecn,
                lost_bytes,
                dpn: largest_lost_pn.map(|pn| diff(pn, b.pn)),
            },
            Event::Mtu { mtu } => WireEvent::Mtu { mtu },
            Event::PacketSent { at, bytes, pn } => WireEvent::PacketSent {
                dt: b.dt(at),
                bytes,
                dpn: b.dpn_sent(pn),
            },
            Event::PacketLost { at, bytes, pn } => WireEvent::PacketLost {
                dt: b.dt(at),
                bytes,
                dpn: diff(pn, b.pn),
            },
            Event::CwndLimited => WireEvent::CwndLimited,
            Event::SpuriousCongestion => WireEvent::SpuriousCongestion,
            Event::AckFrequency {
                threshold,
                max_ack_delay_ns,
            } => WireEvent::AckFrequency {
                threshold,
                max_ack_delay_ns,
            },
            Event::Metrics => WireEvent::Metrics,
        })
        .collect()
}

fn decode(wire: &[WireEvent]) -> Vec<Event> {
    let mut b = Bases::default();
    wire.iter()
        .map(|w| match *w {
            WireEvent::Sent { dt, bytes, dpn } => Event::Sent {
                at: b.at(dt),
                bytes,
                last_pn: b.pn_sent(dpn),
            },
            WireEvent::Rtt(r) => Event::Rtt(r),
            WireEvent::Ack {
                dt,
                age,
                bytes,
                dpn,
                app_limited,
            } => {
                let now = b.at(dt);
                Event::Ack {
                    at: now,
                    sent: undiff(now, age.wrapping_neg()),
                    bytes,
                    pn: dpn.map(|d| undiff(b.pn, d)),
                    app_limited,
                }
            }
            WireEvent::EndAcks {
                dt,
                in_flight,
                app_limited,
                largest_acked,
            } => Event::EndAcks {
                at: b.at(dt),
                in_flight,
                app_limited,
                largest_acked,
            },
            WireEvent::Congestion {
                dt,
                age,
                persistent,
                ecn,
                lost_bytes,
                dpn,
            } => {
                let now = b.at(dt);
                Event::Congestion {
                    at: now,
                    sent: undiff(now, age.wrapping_neg()),
                    persistent,
                    ecn,
                    lost_bytes,
                    largest_lost_pn: dpn.map(|d| undiff(b.pn, d)),
                }
            }
            WireEvent::Mtu { mtu } => Event::Mtu { mtu },
            WireEvent::PacketSent { dt, bytes, dpn } => Event::PacketSent {
                at: b.at(dt),
                bytes,
                pn: b.pn_sent(dpn),
            },
            WireEvent::PacketLost { dt, bytes, dpn } => Event::PacketLost {
                at: b.at(dt),
                bytes,
                pn: undiff(b.pn, dpn),
            },
            WireEvent::CwndLimited => Event::CwndLimited,
            WireEvent::SpuriousCongestion => Event::SpuriousCongestion,
            WireEvent::AckFrequency {
                threshold,
                max_ack_delay_ns,
            } => Event::AckFrequency {
                threshold,
                max_ack_delay_ns,
            },
            WireEvent::Metrics => Event::Metrics,
        })
        .collect()
}

impl Recording {
    /// The file's bytes: gzip(magic, postcard(meta, events)).
    pub fn to_bytes(&self) -> Result<Vec<u8>, FormatError> {
        let name = || format!("recording {}", self.meta.name);
        let body = postcard::to_stdvec(&(&self.meta, encode(&self.events))).map_err(|source| {
            FormatError::Encoding {
                path: name(),
                source,
            }
        })?;
        let mut gz = GzEncoder::new(Vec::new(), Compression::best());
        gz.write_all(&MAGIC)
            .and_then(|()| gz.write_all(&body))
            .and_then(|()| gz.finish())
            .map_err(|source| FormatError::Io {
                path: name(),
                source,
            })
    }

    /// Parses a file's bytes; `name` is used in errors.
    pub fn from_bytes(bytes: &[u8], name: &str) -> Result<Self, FormatError> {
        let mut raw = Vec::new();
        GzDecoder::new(bytes)
            .read_to_end(&mut raw)
            .map_err(|source| FormatError::Io {
                path: name.to_owned(),
                source,
            })?;
        let body = raw
            .strip_prefix(&MAGIC)
            .ok_or_else(|| FormatError::Magic(name.to_owned()))?;
        let (meta, wire): (Meta, Vec<WireEvent>) =
            postcard::from_bytes(body).map_err(|source| FormatError::Encoding {
                path: name.to_owned(),
                source,
            })?;
        Ok(Self {
            meta,
            events: decode(&wire),
        })
    }

    /// Reads a `.ccrec.gz` file.
    pub fn load(path: &Path) -> Result<Self, FormatError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| FormatError::Io {
            path: name.clone(),
            source,
        })?;
        Self::from_bytes(&bytes, &name)
    }

    /// Writes a `.ccrec.gz` file; returns its size in bytes.
    pub fn save(&self, path: &Path) -> Result<usize, FormatError> {
        let name = path.display().to_string();
        let bytes = self.to_bytes()?;
        std::fs::write(path, &bytes).map_err(|source| FormatError::Io { path: name, source })?;
        Ok(bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Recording {
        Recording {
            meta: Meta {
                name: "t".into(),
                description: "test".into(),
                seed: 7,
                recorded_controller: "cubic".into(),
                initial_mtu: 1200,
                stack: "noq".into(),
                stack_version: "noq-proto 1.4".into(),
            },
            events: vec![
                Event::Sent {
                    at: 10,
                    bytes: 1200,
                    last_pn: 0,
                },
                Event::Sent {
                    at: 10,
                    bytes: 2400,
                    last_pn: 2,
                },
                Event::Rtt(RttReading {
                    smoothed_ns: 333_000_000,
                    conservative_ns: 333_000_000,
                    min_ns: 333_000_000,
                }),
                Event::Ack {
                    at: 90_000_010,
                    sent: 10,
                    bytes: 1200,
                    pn: None,
                    app_limited: false,
                },
                Event::Ack {
                    at: 90_000_010,
                    sent: 10,
                    bytes: 1200,
                    pn: Some(1),
                    app_limited: false,
                },
                Event::PacketSent {
                    at: 90_000_011,
                    bytes: 1200,
                    pn: 3,
                },
                Event::Metrics,
                Event::CwndLimited,
                Event::PacketLost {
                    at: 90_000_012,
                    bytes: 1000,
                    pn: 1,
                },
                Event::SpuriousCongestion,
                Event::AckFrequency {
                    threshold: 2,
                    max_ack_delay_ns: 25_000_000,
                },
                Event::Mtu { mtu: 1452 },
                Event::EndAcks {
                    at: 90_000_010,
                    in_flight: 2400,
                    app_limited: true,
                    largest_acked: Some(0),
                },
                // A clock that ran backwards and a send time in the future still round-trip.
                Event::Congestion {
                    at: 5,
                    sent: 90_000_020,
                    persistent: true,
                    ecn: false,
                    lost_bytes: 0,
                    largest_lost_pn: None,
                },
                Event::Congestion {
                    at: 6,
                    sent: 4,
                    persistent: false,
                    ecn: true,
                    lost_bytes: 0,
                    largest_lost_pn: Some(u64::MAX),
                },
                Event::EndAcks {
                    at: u64::MAX,
                    in_flight: u64::MAX,
                    app_limited: false,
                    largest_acked: None,
                },
            ],
        }
    }

    #[test]
    fn round_trips_every_event_kind_exactly() {
        let rec = sample();
        let bytes = rec.to_bytes().unwrap();
        assert_eq!(Recording::from_bytes(&bytes, "t").unwrap(), rec);
    }

    #[test]
    fn rejects_other_files_by_name() {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(b"not a recording").unwrap();
        let err = Recording::from_bytes(&gz.finish().unwrap(), "x.gz").unwrap_err();
        assert!(err.to_string().contains("x.gz"), "{err}");
        assert!(Recording::from_bytes(b"plain", "y").is_err());
    }

    #[test]
    fn rejects_format_version_1_and_says_how_to_regenerate() {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(b"CCREC\0\0\x01rest").unwrap();
        let err = Recording::from_bytes(&gz.finish().unwrap(), "old.ccrec.gz").unwrap_err();
        assert!(
            err.to_string().contains("old.ccrec.gz") && err.to_string().contains("--bin record"),
            "{err}"
        );
    }
}
