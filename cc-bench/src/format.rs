//! The on-disk recording format (`*.ccrec.gz`).
//!
//! A file is gzip (RFC 1952, via `flate2`) around the 8 bytes `CCREC\0\0\x01` (magic and format
//! version 1) and a `postcard` encoding of [`Meta`] followed by the event list. postcard writes
//! integers as LEB128 varints (signed ones zigzag-coded), enum variants as a varint index and
//! `Option`s as a 0/1 byte. To keep the varints short the event times are delta-coded on disk:
//!
//! | event | fields on disk |
//! |---|---|
//! | `Sent` | `at - previous at` (i64), `bytes`, `last_pn - previous last_pn` (i64) |
//! | `Rtt` | smoothed, conservative, min (ns) |
//! | `Ack` | `at - previous at` (i64), `at - sent` (i64), `bytes`, `app_limited` |
//! | `EndAcks` | `at - previous at` (i64), `in_flight`, `app_limited`, `largest_acked` |
//! | `Congestion` | `at - previous at` (i64), `at - sent` (i64), `persistent`, `lost_bytes` |
//! | `Mtu` | `mtu` |
//!
//! "previous at" is that of the previous event that has a time (0 at the start), and
//! "previous last_pn" that of the previous `Sent` (0 at the start). The committed recordings
//! average about 9 bytes per event before compression and 2-2.5 bytes per callback after.

use crate::event::{Event, RttReading};
use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};
use std::path::Path;

const MAGIC: [u8; 8] = *b"CCREC\0\0\x01";

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
    /// The datagram size quinn passed to `ControllerFactory::build`, bytes.
    pub initial_mtu: u16,
    /// The quinn-proto version that made the calls.
    pub quinn_proto: String,
}

/// A recorded callback sequence of one controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recording {
    /// Provenance.
    pub meta: Meta,
    /// The callbacks, in quinn's order.
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
    #[error("{0}: not a cc-bench recording (format version 1)")]
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
        lost_bytes: u64,
    },
    Mtu {
        mtu: u16,
    },
}

fn diff(a: u64, b: u64) -> i64 {
    a.wrapping_sub(b) as i64
}

fn undiff(base: u64, d: i64) -> u64 {
    base.wrapping_add(d as u64)
}

fn encode(events: &[Event]) -> Vec<WireEvent> {
    let (mut t, mut pn) = (0u64, 0u64);
    let mut dt = |at: u64| {
        let d = diff(at, t);
        t = at;
        d
    };
    events
        .iter()
        .map(|e| match *e {
            Event::Sent { at, bytes, last_pn } => {
                let dpn = diff(last_pn, pn);
                pn = last_pn;
                WireEvent::Sent {
                    dt: dt(at),
                    bytes,
                    dpn,
                }
            }
            Event::Rtt(r) => WireEvent::Rtt(r),
            Event::Ack {
                at,
                sent,
                bytes,
                app_limited,
            } => WireEvent::Ack {
                dt: dt(at),
                age: diff(at, sent),
                bytes,
                app_limited,
            },
            Event::EndAcks {
                at,
                in_flight,
                app_limited,
                largest_acked,
            } => WireEvent::EndAcks {
                dt: dt(at),
                in_flight,
                app_limited,
                largest_acked,
            },
            Event::Congestion {
                at,
                sent,
                persistent,
                lost_bytes,
            } => WireEvent::Congestion {
                dt: dt(at),
                age: diff(at, sent),
                persistent,
                lost_bytes,
            },
            Event::Mtu { mtu } => WireEvent::Mtu { mtu },
        })
        .collect()
}

fn decode(wire: &[WireEvent]) -> Vec<Event> {
    let (mut t, mut pn) = (0u64, 0u64);
    let mut at = |dt: i64| {
        t = undiff(t, dt);
        t
    };
    wire.iter()
        .map(|w| match *w {
            WireEvent::Sent { dt, bytes, dpn } => {
                pn = undiff(pn, dpn);
                Event::Sent {
                    at: at(dt),
                    bytes,
                    last_pn: pn,
                }
            }
            WireEvent::Rtt(r) => Event::Rtt(r),
            WireEvent::Ack {
                dt,
                age,
                bytes,
                app_limited,
            } => {
                let now = at(dt);
                Event::Ack {
                    at: now,
                    sent: undiff(now, age.wrapping_neg()),
                    bytes,
                    app_limited,
                }
            }
            WireEvent::EndAcks {
                dt,
                in_flight,
                app_limited,
                largest_acked,
            } => Event::EndAcks {
                at: at(dt),
                in_flight,
                app_limited,
                largest_acked,
            },
            WireEvent::Congestion {
                dt,
                age,
                persistent,
                lost_bytes,
            } => {
                let now = at(dt);
                Event::Congestion {
                    at: now,
                    sent: undiff(now, age.wrapping_neg()),
                    persistent,
                    lost_bytes,
                }
            }
            WireEvent::Mtu { mtu } => Event::Mtu { mtu },
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
                quinn_proto: "0.11".into(),
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
                    app_limited: false,
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
                    lost_bytes: 0,
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
}
