//! What can go wrong in a transfer.

use std::time::Duration;

/// Errors of this crate. Every variant says what failed and, where it helps, what to change.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A run with a quiche endpoint was asked to use virtual time.
    #[error(
        "quiche runs need real time: quiche reads the system clock itself (its API has no clock \
         injection), so it cannot follow netsim's virtual clock; run this scenario with \
         clock = \"real\""
    )]
    VirtualTimeUnsupported,
    /// The link configuration is invalid.
    #[error("invalid link configuration: {0}")]
    Config(#[from] netsim::ConfigError),
    /// A setting is out of range.
    #[error("invalid setting `{field}`: {message}")]
    Setting {
        /// The setting.
        field: &'static str,
        /// What is wrong and what is allowed.
        message: String,
    },
    /// Building the TLS identity or a TLS configuration failed.
    #[error("TLS setup failed: {0}")]
    Tls(String),
    /// Creating a runtime, a temporary directory or a quinn endpoint failed.
    #[error("I/O error while {what}: {source}")]
    Io {
        /// The step that failed.
        what: &'static str,
        /// The cause.
        source: std::io::Error,
    },
    /// quiche returned an error.
    #[error("quiche error while {what}: {source}")]
    Quiche {
        /// The step that failed.
        what: &'static str,
        /// quiche's error.
        source: quiche::Error,
    },
    /// quinn returned an error.
    #[error("quinn error while {what}: {message}")]
    Quinn {
        /// The step that failed.
        what: &'static str,
        /// quinn's error message.
        message: String,
    },
    /// The connection closed before the transfer was complete.
    #[error("the {stack} {role}'s connection closed before the transfer completed: {reason}")]
    ConnectionClosed {
        /// `quiche` or `quinn`.
        stack: &'static str,
        /// `sender` or `receiver`.
        role: &'static str,
        /// Who closed it and why (error code, reason, or idle timeout).
        reason: String,
    },
    /// A byte-count transfer did not complete in time.
    #[error(
        "the transfer did not complete within the timeout ({timeout:?}): {delivered} of \
         {expected} bytes delivered; raise the timeout"
    )]
    Timeout {
        /// The timeout.
        timeout: Duration,
        /// Bytes the receiver had verified.
        delivered: u64,
        /// Bytes the sender was to send.
        expected: u64,
    },
}

impl Error {
    pub(crate) fn quiche(what: &'static str, source: quiche::Error) -> Self {
        Self::Quiche { what, source }
    }

    pub(crate) fn quinn(what: &'static str, error: impl std::fmt::Display) -> Self {
        Self::Quinn {
            what,
            message: error.to_string(),
        }
    }

    pub(crate) fn io(what: &'static str, source: std::io::Error) -> Self {
        Self::Io { what, source }
    }
}
