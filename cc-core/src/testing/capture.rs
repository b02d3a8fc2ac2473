//! Captures formatted `tracing` events, for tests that check what a controller logged.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// A writer that appends to a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs `f` with a subscriber that formats every event `filter` enables (an `EnvFilter`
/// directive such as `"cc=debug"`) into a string, without colour; returns `f`'s result and the
/// text, one event per line.
///
/// `tracing` caches each callsite's interest globally. A test thread *without* a subscriber
/// that registers the same callsites at the same moment can leave them cached as disabled; the
/// interest cache is rebuilt once the subscriber is in place, which closes most of that window
/// but not all of it. A test that must see every event should run alone in its test binary.
pub fn capture_events<T>(filter: &str, f: impl FnOnce() -> T) -> (T, String) {
    let buffer = Buffer::default();
    let writer = buffer.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let out = tracing::subscriber::with_default(subscriber, || {
        tracing::callsite::rebuild_interest_cache();
        f()
    });
    let bytes = buffer
        .0
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    (out, String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_enabled_events_only() {
        let ((), text) = capture_events("captest=debug", || {
            tracing::debug!(target: "captest", cwnd = 42u64, "window decision");
            tracing::trace!(target: "captest", "too fine");
            tracing::debug!(target: "elsewhere", "not this target");
        });
        assert!(text.contains("window decision cwnd=42"), "{text}");
        assert!(!text.contains("too fine"));
        assert!(!text.contains("not this target"));
    }
}
