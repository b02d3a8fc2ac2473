//! Shortest-hop routing over the unit-disk graph of node positions.

use std::collections::VecDeque;

fn in_range(a: (f64, f64), b: (f64, f64), range: f64) -> bool {
    let (dx, dy) = (a.0 - b.0, a.1 - b.1);
    dx * dx + dy * dy <= range * range
}

/// True if every consecutive pair of `route` is within `range`.
pub(super) fn route_valid(positions: &[(f64, f64)], range: f64, route: &[u32]) -> bool {
    route.windows(2).all(|pair| {
        match (
            positions.get(pair[0] as usize),
            positions.get(pair[1] as usize),
        ) {
            (Some(&a), Some(&b)) => in_range(a, b, range),
            _ => false,
        }
    })
}

/// The shortest hop path from `source` to `sink` (node indices, both ends included), found by
/// breadth-first search visiting neighbours in index order, so ties always resolve the same way.
pub(super) fn shortest_path(
    positions: &[(f64, f64)],
    range: f64,
    source: u32,
    sink: u32,
) -> Option<Vec<u32>> {
    let count = positions.len();
    let (source, sink) = (source as usize, sink as usize);
    if source >= count || sink >= count {
        return None;
    }
    let mut parent: Vec<Option<usize>> = vec![None; count];
    let mut visited = vec![false; count];
    let mut queue = VecDeque::from([source]);
    visited[source] = true;
    while let Some(node) = queue.pop_front() {
        if node == sink {
            let mut path = vec![sink as u32];
            let mut at = sink;
            while let Some(previous) = parent[at] {
                path.push(previous as u32);
                at = previous;
            }
            path.reverse();
            return Some(path);
        }
        for next in 0..count {
            if !visited[next] && in_range(positions[node], positions[next], range) {
                visited[next] = true;
                parent[next] = Some(node);
                queue.push_back(next);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_fewest_hops_and_reports_breaks() {
        // A line 0 - 2 - 3 - 1 with 200 m spacing, plus node 4 far away.
        let positions = [
            (0.0, 0.0),
            (600.0, 0.0),
            (200.0, 0.0),
            (400.0, 0.0),
            (5000.0, 0.0),
        ];
        assert_eq!(
            shortest_path(&positions, 250.0, 0, 1),
            Some(vec![0, 2, 3, 1])
        );
        // With a 450 m range two 2-hop routes exist (0-2-1 and 0-3-1); BFS visits neighbours
        // in index order, so the tie always goes to 0-2-1.
        assert_eq!(shortest_path(&positions, 450.0, 0, 1), Some(vec![0, 2, 1]));
        assert_eq!(shortest_path(&positions, 150.0, 0, 1), None);
        assert!(route_valid(&positions, 250.0, &[0, 2, 3, 1]));
        assert!(!route_valid(&positions, 199.0, &[0, 2, 3, 1]));
    }
}
