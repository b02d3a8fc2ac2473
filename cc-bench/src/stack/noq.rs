//! noq 1.x (iroh's QUIC): its `Controller` trait, controllers and client/server pair.
//!
//! noq makes more calls than quinn, and all of them are recorded and replayed: per-packet
//! `on_packet_sent` and `on_packet_lost`, `on_cwnd_limited`, `on_spurious_congestion_event`,
//! `on_ack_frequency_update`, and the `metrics()` reads of its send path (pacing and the send
//! quantum), which a controller pays for on noq and not on quinn.

use super::HostStack;
use crate::Event;
use crate::controllers::{Contender, Noop, NoopFactory, Origin};
use crate::event::{RttReading, nanos};
use crate::record::{Recorder, RecordingFactory};
use crate::replay::Step;
use crate::scenarios::{RunError, Scenario};
use cc_core::{NoqObserved, NoqObserver, PortConfig, PortController, PortFactory, RttSnapshot};
use cc_ports::PortVisitor;
use cc_ports::noq::NoqBaseline;
use noq_proto::RttEstimator;
use noq_proto::congestion::{Controller, ControllerFactory, ControllerMetrics, CubicConfig};
use std::any::Any;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// noq 1.x (`noq-proto`).
#[derive(Debug, Clone, Copy)]
pub struct Noq;

impl HostStack for Noq {
    const NAME: &'static str = "noq";
    const VERSION: &'static str = "noq-proto 1.4";
    type Controller = dyn Controller;
    type Factory = dyn ControllerFactory + Send + Sync;
    type Estimator = RttEstimator;

    fn reading(rtt: &RttEstimator) -> RttReading {
        RttReading::of_snapshot(&RttSnapshot::from_noq(rtt))
    }

    fn build(factory: &Arc<Self::Factory>, now: Instant, mtu: u16) -> Box<Self::Controller> {
        factory.clone().build(now, mtu)
    }

    fn window(controller: &Self::Controller) -> u64 {
        controller.window()
    }

    #[inline(always)]
    fn call(c: &mut Self::Controller, step: &Step, estimators: &[RttEstimator]) {
        match *step {
            Step::Sent {
                now,
                bytes,
                last_pn,
            } => c.on_sent(now, bytes, last_pn),
            Step::Ack {
                now,
                sent,
                bytes,
                pn,
                app_limited,
                rtt,
            } => c.on_ack(now, sent, bytes, pn, app_limited, &estimators[rtt as usize]),
            Step::EndAcks {
                now,
                in_flight,
                app_limited,
                largest,
            } => c.on_end_acks(now, in_flight, app_limited, largest),
            Step::Congestion {
                now,
                sent,
                persistent,
                ecn,
                lost_bytes,
                largest_lost_pn,
            } => c.on_congestion_event(now, sent, persistent, ecn, lost_bytes, largest_lost_pn),
            Step::Mtu(mtu) => c.on_mtu_update(mtu),
            Step::PacketSent { now, bytes, pn } => c.on_packet_sent(now, bytes, pn),
            Step::PacketLost { now, bytes, pn } => c.on_packet_lost(bytes, pn, now),
            Step::CwndLimited => c.on_cwnd_limited(),
            Step::SpuriousCongestion => c.on_spurious_congestion_event(),
            Step::AckFrequency {
                threshold,
                max_ack_delay,
            } => c.on_ack_frequency_update(threshold, max_ack_delay),
            Step::Metrics => {
                black_box(c.metrics());
            }
        }
    }

    fn delivers(event: &Event) -> bool {
        // noq's trait has every call; an acknowledgement or a loss always has its packet
        // number there.
        match event {
            Event::Ack { pn, .. } => pn.is_some(),
            Event::Congestion {
                largest_lost_pn, ..
            } => largest_lost_pn.is_some(),
            _ => true,
        }
    }

    fn cubic() -> Arc<Self::Factory> {
        Arc::new(CubicConfig::default())
    }

    fn recorder(factory: Arc<RecordingFactory<Self>>) -> Arc<Self::Factory> {
        factory
    }

    fn run(scenario: &Scenario, factory: Arc<Self::Factory>) -> Result<(), RunError> {
        scenario.run_noq(factory).map(drop)
    }

    fn contenders() -> Vec<Contender<Self>> {
        struct Ports(Vec<Contender<Noq>>);
        impl PortVisitor for Ports {
            fn visit<C: PortConfig>(&mut self) {
                self.0.push(Contender {
                    name: C::NAME,
                    origin: Origin::Port,
                    factory: Arc::new(PortFactory::new(C::default())),
                    inline_bytes: std::mem::size_of::<PortController<C::Algorithm>>(),
                    // The exact classifier keeps no ledger (noq passes the packet numbers).
                    ledger: None,
                });
            }
        }
        let noq = NoqBaseline::ALL.into_iter().map(|b| Contender {
            name: match b {
                NoqBaseline::NewReno => "noq-newreno",
                NoqBaseline::Cubic => "noq-cubic",
                NoqBaseline::Bbr3 => "noq-bbr3",
            },
            origin: Origin::Stack,
            factory: b.factory(None),
            inline_bytes: b.controller_size(),
            ledger: None,
        });
        let mut all = Ports(noq.collect());
        cc_ports::visit_ports(&mut all);
        all.0
    }

    fn floor() -> Contender<Self> {
        let noop: Arc<Self::Factory> = Arc::new(NoopFactory);
        Contender::floor(noop)
    }
}

impl ControllerFactory for RecordingFactory<Noq> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let recorder = Recorder::start(self.log_handle(), now, current_mtu);
        Box::new(NoqObserved::new(
            self.inner().clone().build(now, current_mtu),
            recorder,
        ))
    }
}

impl NoqObserver for Recorder<Noq> {
    fn sent(&mut self, c: &dyn Controller, now: Instant, bytes: u64, last_pn: u64) {
        let at = self.offset(now);
        self.push(c.window(), Event::Sent { at, bytes, last_pn });
    }

    fn packet_sent(&mut self, c: &dyn Controller, now: Instant, bytes: u16, pn: u64) {
        let at = self.offset(now);
        self.push(c.window(), Event::PacketSent { at, bytes, pn });
    }

    fn ack(
        &mut self,
        c: &dyn Controller,
        now: Instant,
        sent: Instant,
        bytes: u64,
        pn: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.rtt(rtt);
        let event = Event::Ack {
            at: self.offset(now),
            sent: self.offset(sent),
            bytes,
            pn: Some(pn),
            app_limited,
        };
        self.push(c.window(), event);
    }

    fn end_acks(
        &mut self,
        c: &dyn Controller,
        now: Instant,
        in_flight: u64,
        app_limited: bool,
        largest_acked: Option<u64>,
    ) {
        let event = Event::EndAcks {
            at: self.offset(now),
            in_flight,
            app_limited,
            largest_acked,
        };
        self.push(c.window(), event);
    }

    fn congestion_event(
        &mut self,
        c: &dyn Controller,
        now: Instant,
        sent: Instant,
        persistent: bool,
        ecn: bool,
        lost_bytes: u64,
        largest_lost_pn: u64,
    ) {
        let event = Event::Congestion {
            at: self.offset(now),
            sent: self.offset(sent),
            persistent,
            ecn,
            lost_bytes,
            largest_lost_pn: Some(largest_lost_pn),
        };
        self.push(c.window(), event);
    }

    fn packet_lost(&mut self, c: &dyn Controller, bytes: u16, pn: u64, now: Instant) {
        let at = self.offset(now);
        self.push(c.window(), Event::PacketLost { at, bytes, pn });
    }

    fn mtu_update(&mut self, c: &dyn Controller, mtu: u16) {
        self.push(c.window(), Event::Mtu { mtu });
    }

    fn cwnd_limited(&mut self, c: &dyn Controller) {
        self.push(c.window(), Event::CwndLimited);
    }

    fn spurious_congestion_event(&mut self, c: &dyn Controller) {
        self.push(c.window(), Event::SpuriousCongestion);
    }

    fn ack_frequency_update(&mut self, c: &dyn Controller, threshold: u64, max_delay: Duration) {
        let event = Event::AckFrequency {
            threshold,
            max_ack_delay_ns: nanos(max_delay),
        };
        self.push(c.window(), event);
    }

    fn metrics(&self, c: &dyn Controller, _metrics: &ControllerMetrics) {
        self.push(c.window(), Event::Metrics);
    }
}

impl Controller for Noop {
    fn on_congestion_event(
        &mut self,
        _now: Instant,
        _sent: Instant,
        _is_persistent_congestion: bool,
        _is_ecn: bool,
        _lost_bytes: u64,
        _largest_lost_pn: u64,
    ) {
    }

    fn on_mtu_update(&mut self, _new_mtu: u16) {}

    fn window(&self) -> u64 {
        self.window
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(*self)
    }

    fn initial_window(&self) -> u64 {
        self.window
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}

impl ControllerFactory for NoopFactory {
    fn build(self: Arc<Self>, _now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(Noop::new(current_mtu))
    }
}
