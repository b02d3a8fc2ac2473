//! `--qlog DIR`: quinn's own qlog (quinn-proto 0.11's `qlog` feature, `TransportConfig::qlog_stream`),
//! one JSON-SEQ file per client connection.
//!
//! quinn takes one qlog stream per `TransportConfig`, and all flows of a run share the client
//! endpoint's config, so the harness gives quinn a writer that splits the stream by each
//! event's `group_id` into `DIR/<run id>-<controller>-seed<seed>-conn<k>.sqlog`, `k` counting
//! connections in the order they start. quinn 0.11 labels a connection's events first with its
//! 20-byte initial destination connection ID and, once the server's first packet arrives, with
//! the server's connection ID; flows connect one after another, so a new 20-byte group starts a
//! new connection and any other new group continues the latest connection that has only its
//! initial group. Event times are relative to the run's start (link time), so in
//! virtual time a qlog is as reproducible as the run. What quinn 0.11 logs: packets sent,
//! received and lost, and recovery metrics (cwnd, bytes in flight, RTTs, ssthresh from the
//! controller's `metrics()`).

use std::path::Path;

use quinn::TransportConfig;

use crate::run::spec::RunSpec;

#[cfg(feature = "qlog")]
mod enabled {
    use std::collections::BTreeMap;
    use std::fs::File;
    use std::io::{self, BufWriter, Write};
    use std::path::PathBuf;

    /// Splits a JSON-SEQ qlog stream into one file per `group_id`.
    pub(super) struct SplitWriter {
        pub(super) base: PathBuf,
        pub(super) pending: Vec<u8>,
        pub(super) header: Option<Vec<u8>>,
        pub(super) files: Vec<BufWriter<File>>,
        /// group_id -> index of its connection file.
        pub(super) groups: BTreeMap<String, usize>,
        /// Per file: whether it already has its second (server-CID) group.
        pub(super) paired: Vec<bool>,
    }

    impl SplitWriter {
        fn route(&mut self, record: Vec<u8>) -> io::Result<()> {
            let group = serde_json::from_slice::<serde_json::Value>(
                record.strip_prefix(b"\x1e").unwrap_or(&record),
            )
            .ok()
            .and_then(|v| {
                v.get("group_id")
                    .and_then(|g| g.as_str())
                    .map(str::to_owned)
            });
            let Some(group) = group else {
                if self.header.is_none() {
                    self.header = Some(record);
                }
                return Ok(());
            };
            let index = match self.groups.get(&group) {
                Some(&index) => index,
                None => {
                    let initial = group.len() == 40;
                    let continues = self.paired.last() == Some(&false) && !initial;
                    let index = if continues {
                        let last = self.files.len() - 1;
                        self.paired[last] = true;
                        last
                    } else {
                        let k = self.files.len();
                        let name = format!("{}-conn{k}.sqlog", self.base.display());
                        let mut file = BufWriter::new(crate::output_file::create_replacing(
                            std::path::Path::new(&name),
                        )?);
                        if let Some(header) = &self.header {
                            file.write_all(header)?;
                        }
                        self.files.push(file);
                        self.paired.push(!initial);
                        k
                    };
                    self.groups.insert(group, index);
                    index
                }
            };
            self.files[index].write_all(&record)
        }
    }

    impl Write for SplitWriter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.pending.extend_from_slice(buf);
            while let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                let record: Vec<u8> = self.pending.drain(..=end).collect();
                self.route(record)?;
            }
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            for file in &mut self.files {
                file.flush()?;
            }
            Ok(())
        }
    }

    impl Drop for SplitWriter {
        fn drop(&mut self) {
            let _ = self.flush();
        }
    }
}

/// True when this binary was built with quinn's qlog support.
pub const AVAILABLE: bool = cfg!(feature = "qlog");

/// Attaches a qlog stream for `spec`'s client connections to `transport`.
#[cfg(feature = "qlog")]
pub fn attach(
    transport: &mut TransportConfig,
    dir: &Path,
    spec: &RunSpec,
    epoch: std::time::Instant,
) -> Result<(), String> {
    let base = dir.join(format!(
        "{}-{}-seed{}",
        spec.run_id(),
        spec.controller.name,
        spec.seed
    ));
    let writer = enabled::SplitWriter {
        base,
        pending: Vec::new(),
        header: None,
        files: Vec::new(),
        groups: Default::default(),
        paired: Vec::new(),
    };
    let mut config = quinn::QlogConfig::default();
    config
        .writer(Box::new(writer))
        .title(Some(format!(
            "{} / {} / seed {}",
            spec.scenario.point,
            spec.controller.label(),
            spec.seed
        )))
        .start_time(epoch);
    let stream = config
        .into_stream()
        .ok_or_else(|| "quinn could not start the qlog stream".to_owned())?;
    transport.qlog_stream(Some(stream));
    Ok(())
}

/// Without the `qlog` feature there is nothing to attach.
#[cfg(not(feature = "qlog"))]
pub fn attach(
    _transport: &mut TransportConfig,
    _dir: &Path,
    _spec: &RunSpec,
    _epoch: std::time::Instant,
) -> Result<(), String> {
    Err("this harness was built without the `qlog` feature".to_owned())
}
