use std::time::Duration;
use netsim::Side;
use netsim_ns3::{Ns3Config, Session};
fn run(c: &Ns3Config) -> Vec<(u64, u64)> {
    let mut s = Session::new(c, 3).unwrap();
    s.native_cbr(Side::A, Duration::from_secs(1), Duration::from_millis(10), 1500, 1200);
    s.run_until(Duration::from_secs(20));
    let mut v = vec![]; while let Some(d) = s.pop() { v.push((d.index, d.at.as_nanos() as u64)); }
    v
}
fn main() {
    let mut c = Ns3Config::default();
    if std::env::args().nth(1).as_deref() == Some("chain") { c = Ns3Config::chain(4); }
    if std::env::args().nth(2).as_deref() == Some("nosample") { c.route_sample = Duration::ZERO; }
    let a = run(&c); let b = run(&c); let d = run(&c);
    let first_diff = a.iter().zip(&b).position(|(x, y)| x != y);
    println!("a {} b {} c {} first diff {:?} {:?}", a.len(), b.len(), d.len(), first_diff, first_diff.map(|i| (a[i], b[i])));
}
