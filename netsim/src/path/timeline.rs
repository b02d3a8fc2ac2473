//! A sliding window over a path model's segments.

use std::collections::VecDeque;
use std::time::Duration;

use super::{PathSource, PathState};

/// One stretch of constant path state, `[start, end)`; `end = None` means forever.
#[derive(Clone, Copy, Debug)]
struct Segment {
    start: Duration,
    end: Option<Duration>,
    state: PathState,
}

impl Segment {
    fn contains(&self, t: Duration) -> bool {
        self.start <= t && self.end.is_none_or(|end| t < end)
    }
}

/// Generated segments from the last [`PathTimeline::advance`] time onwards, generated lazily as
/// far ahead as queries need. Adjacent segments with equal state are merged, so the window
/// holds only state changes.
#[derive(Debug)]
pub(crate) struct PathTimeline {
    source: Box<dyn PathSource>,
    /// Contiguous segments; the first contains `advanced_to`.
    segments: VecDeque<Segment>,
    /// Everything before this time has been reported by `advance` and discarded.
    advanced_to: Duration,
}

impl PathTimeline {
    pub(crate) fn new(source: Box<dyn PathSource>) -> Self {
        let mut timeline = Self {
            source,
            segments: VecDeque::new(),
            advanced_to: Duration::ZERO,
        };
        timeline.generate_one();
        timeline
    }

    /// Appends the source's next non-empty segment (merging it into the last one if equal).
    fn generate_one(&mut self) {
        let start = self.segments.back().map_or(Some(Duration::ZERO), |s| s.end);
        let Some(start) = start else {
            return; // The last segment lasts forever: nothing more to generate.
        };
        // Zero-length segments carry no time; a source may emit a few (an exponential draw
        // can round to zero), so skip them, but boundedly, in case a source misbehaves.
        for _ in 0..1_000 {
            let (length, state) = self.source.next_segment();
            let end = match length {
                None => None,
                Some(length) if length.is_zero() => continue,
                Some(length) => Some(start.checked_add(length).unwrap_or(Duration::MAX)),
            };
            match self.segments.back_mut() {
                Some(last) if last.state == state => last.end = end,
                _ => self.segments.push_back(Segment { start, end, state }),
            }
            return;
        }
        // The source produced only empty segments: treat its last state as permanent.
        let state = self.segments.back().map_or(PathState::Down, |s| s.state);
        self.segments.push_back(Segment {
            start,
            end: None,
            state,
        });
    }

    /// Generates until the window covers `t`.
    fn cover(&mut self, t: Duration) {
        while let Some(end) = self.segments.back().and_then(|s| s.end) {
            if end > t {
                break;
            }
            self.generate_one();
        }
    }

    /// The path state at `t` (times before the window are answered with its first segment).
    pub(crate) fn state_at(&mut self, t: Duration) -> PathState {
        self.cover(t);
        self.segments
            .iter()
            .find(|s| s.contains(t))
            .or(self.segments.front())
            .map_or(PathState::Down, |s| s.state)
    }

    /// True if the path is up during all of `[from, to]`.
    ///
    /// Generates segments only until the first one that is down or reaches `to`, so a
    /// far-future `to` (a long queue over a slow link) costs no more than the next outage.
    pub(crate) fn up_throughout(&mut self, from: Duration, to: Duration) -> bool {
        self.cover(from);
        let mut i = 0;
        loop {
            if i == self.segments.len() {
                let before = self.segments.len();
                self.generate_one();
                if self.segments.len() == before {
                    // The last segment was extended (merged) or lasts forever: look again.
                    i = i.saturating_sub(1);
                }
            }
            let Some(segment) = self.segments.get(i) else {
                return false;
            };
            let overlaps = segment.end.is_none_or(|end| end > from) && segment.start <= to;
            if overlaps && !segment.state.is_up() {
                return false;
            }
            if segment.end.is_none_or(|end| end > to) {
                return true;
            }
            i += 1;
        }
    }

    /// Reports every stretch of `[advanced_to, now)` to `visit(start, end, state)`, then
    /// discards segments that end at or before `now`. Times earlier than the last advance are
    /// ignored, so a caller's clock going backwards cannot double-count.
    pub(crate) fn advance(
        &mut self,
        now: Duration,
        mut visit: impl FnMut(Duration, Duration, PathState),
    ) {
        if now <= self.advanced_to {
            return;
        }
        self.cover(now);
        for segment in &self.segments {
            if segment.start >= now {
                break;
            }
            let start = segment.start.max(self.advanced_to);
            let end = segment.end.map_or(now, |end| end.min(now));
            if end > start {
                visit(start, end, segment.state);
            }
        }
        self.advanced_to = now;
        while self.segments.len() > 1
            && self
                .segments
                .front()
                .and_then(|s| s.end)
                .is_some_and(|end| end <= now)
        {
            self.segments.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Replays a fixed list of segments, then stays up forever.
    #[derive(Debug)]
    struct Script(Vec<(u64, PathState)>);

    impl PathSource for Script {
        fn next_segment(&mut self) -> (Option<Duration>, PathState) {
            if self.0.is_empty() {
                return (None, PathState::Up { hops: 1 });
            }
            let (ms, state) = self.0.remove(0);
            (Some(Duration::from_millis(ms)), state)
        }
    }

    const UP: PathState = PathState::Up { hops: 1 };
    const DOWN: PathState = PathState::Down;

    fn ms(ms: u64) -> Duration {
        Duration::from_millis(ms)
    }

    #[test]
    fn answers_state_and_up_throughout_across_merged_segments() {
        // up 0-100 (two merged pieces), down 100-150, up 150-...
        let mut t = PathTimeline::new(Box::new(Script(vec![
            (60, UP),
            (40, UP),
            (0, DOWN),
            (50, DOWN),
        ])));
        assert_eq!(t.state_at(ms(99)), UP);
        assert_eq!(t.state_at(ms(100)), DOWN);
        assert_eq!(t.state_at(ms(150)), UP);
        assert!(t.up_throughout(ms(0), ms(99)));
        assert!(!t.up_throughout(ms(90), ms(100)));
        assert!(!t.up_throughout(ms(149), ms(400)));
        assert!(t.up_throughout(ms(150), ms(10_000)));
    }

    #[test]
    fn advance_reports_each_stretch_once() {
        let mut t = PathTimeline::new(Box::new(Script(vec![(100, UP), (50, DOWN)])));
        let mut seen = Vec::new();
        t.advance(ms(120), |a, b, s| seen.push((a, b, s)));
        t.advance(ms(110), |a, b, s| seen.push((a, b, s))); // backwards: ignored
        t.advance(ms(200), |a, b, s| seen.push((a, b, s)));
        assert_eq!(
            seen,
            vec![
                (ms(0), ms(100), UP),
                (ms(100), ms(120), DOWN),
                (ms(120), ms(150), DOWN),
                (ms(150), ms(200), UP),
            ]
        );
    }
}
