//! Random waypoint motion (Johnson and Maltz 1996): each node pauses, picks a uniformly random
//! destination in the area and a uniformly random speed in `[min_speed, max_speed]`, moves there
//! in a straight line, pauses again, and so on.

use rand::Rng;

use super::MobilityConfig;
use crate::seed::SimRng;

/// Legs (arrive + pause) one node may complete within one step before the rest of the step is
/// skipped: a bound on work per step whatever the parameters.
const MAX_LEGS_PER_STEP: usize = 64;

/// One node's motion state.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// Where the node is heading (metres).
    destination: (f64, f64),
    /// Current speed in m/s.
    speed: f64,
    /// Seconds of pause left before the next leg starts.
    pause_left: f64,
}

/// One leg a node starts: at `at` seconds it heads for `destination` at `speed` m/s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Leg {
    pub(super) at: f64,
    pub(super) node: usize,
    pub(super) destination: (f64, f64),
    pub(super) speed: f64,
}

/// All nodes' positions and motion, advanced in steps.
#[derive(Debug)]
pub(super) struct Waypoints {
    positions: Vec<(f64, f64)>,
    nodes: Vec<Node>,
    rng: SimRng,
    width: f64,
    height: f64,
    min_speed: f64,
    max_speed: f64,
    pause: f64,
}

impl Waypoints {
    /// Places the nodes uniformly at random; every node starts with a full pause.
    pub(super) fn new(config: &MobilityConfig, mut rng: SimRng) -> Self {
        let (width, height) = (config.area_width, config.area_height);
        let count = config.nodes as usize;
        let positions: Vec<(f64, f64)> = (0..count)
            .map(|_| (rng.gen_range(0.0..=width), rng.gen_range(0.0..=height)))
            .collect();
        let nodes = positions
            .iter()
            .map(|&position| Node {
                destination: position,
                speed: config.min_speed,
                pause_left: config.pause.as_secs_f64(),
            })
            .collect();
        Self {
            positions,
            nodes,
            rng,
            width,
            height,
            min_speed: config.min_speed,
            max_speed: config.max_speed,
            pause: config.pause.as_secs_f64(),
        }
    }

    /// Current positions, indexed by node.
    pub(super) fn positions(&self) -> &[(f64, f64)] {
        &self.positions
    }

    /// Moves every node forward by `seconds`.
    pub(super) fn advance(&mut self, seconds: f64) {
        self.advance_recording(seconds, 0.0, None);
    }

    /// [`Waypoints::advance`] from time `now` (seconds), appending every leg started to `legs`.
    pub(super) fn advance_recording(
        &mut self,
        seconds: f64,
        now: f64,
        mut legs: Option<&mut Vec<Leg>>,
    ) {
        for i in 0..self.nodes.len() {
            let mut left = seconds;
            for _ in 0..MAX_LEGS_PER_STEP {
                if left <= 0.0 {
                    break;
                }
                let node = &mut self.nodes[i];
                if node.pause_left > 0.0 {
                    let paused = node.pause_left.min(left);
                    node.pause_left -= paused;
                    left -= paused;
                    if node.pause_left <= 0.0 {
                        self.start_leg(i);
                        self.record(i, now + seconds - left, legs.as_deref_mut());
                    }
                    continue;
                }
                let (x, y) = self.positions[i];
                let node = &mut self.nodes[i];
                let (dx, dy) = (node.destination.0 - x, node.destination.1 - y);
                let distance = dx.hypot(dy);
                let to_arrive = distance / node.speed;
                if to_arrive <= left {
                    self.positions[i] = node.destination;
                    node.pause_left = self.pause;
                    left -= to_arrive;
                    if node.pause_left <= 0.0 {
                        self.start_leg(i);
                        self.record(i, now + seconds - left, legs.as_deref_mut());
                    }
                } else {
                    let fraction = left * node.speed / distance;
                    self.positions[i] = (x + dx * fraction, y + dy * fraction);
                    left = 0.0;
                }
            }
        }
    }

    /// Appends node `i`'s leg, just started at `at`, to `legs`.
    fn record(&self, i: usize, at: f64, legs: Option<&mut Vec<Leg>>) {
        if let Some(legs) = legs {
            let node = &self.nodes[i];
            legs.push(Leg {
                at,
                node: i,
                destination: node.destination,
                speed: node.speed,
            });
        }
    }

    /// Picks node `i`'s next destination and speed.
    fn start_leg(&mut self, i: usize) {
        let destination = (
            self.rng.gen_range(0.0..=self.width),
            self.rng.gen_range(0.0..=self.height),
        );
        let speed = self.rng.gen_range(self.min_speed..=self.max_speed);
        let node = &mut self.nodes[i];
        node.destination = destination;
        node.speed = speed;
        node.pause_left = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn nodes_stay_in_the_area_and_move_at_their_speed() {
        let config = MobilityConfig {
            pause: std::time::Duration::ZERO,
            ..MobilityConfig::with_speed(20.0)
        };
        let mut waypoints = Waypoints::new(&config, SimRng::seed_from_u64(1));
        for _ in 0..2_000 {
            let before = waypoints.positions().to_vec();
            waypoints.advance(0.1);
            for (&(x0, y0), &(x1, y1)) in before.iter().zip(waypoints.positions()) {
                assert!((0.0..=1200.0).contains(&x1) && (0.0..=1200.0).contains(&y1));
                // Straight-line displacement in 0.1 s at 20 m/s is at most 2 m (a turn at a
                // waypoint only shortens it).
                assert!((x1 - x0).hypot(y1 - y0) <= 2.0 + 1e-9);
            }
        }
    }
}
