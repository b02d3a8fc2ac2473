//! quinn 0.11: its `Controller` trait, controllers and client/server pair.

use super::HostStack;
use crate::Event;
use crate::controllers::{Contender, Noop, NoopFactory, Origin, ledger_of};
use crate::event::RttReading;
use crate::record::{Recorder, RecordingFactory};
use crate::replay::Step;
use crate::scenarios::{RunError, Scenario};
use cc_core::{Observed, Observer, PortConfig, PortController, PortFactory, RttSnapshot};
use cc_ports::{PortVisitor, QuinnBaseline};
use quinn_proto::RttEstimator;
use quinn_proto::congestion::{Controller, ControllerFactory, CubicConfig};
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

/// quinn 0.11 (`quinn-proto`).
#[derive(Debug, Clone, Copy)]
pub struct Quinn;

impl HostStack for Quinn {
    const NAME: &'static str = "quinn";
    const VERSION: &'static str = "quinn-proto 0.11";
    type Controller = dyn Controller;
    type Factory = dyn ControllerFactory + Send + Sync;
    type Estimator = RttEstimator;

    fn reading(rtt: &RttEstimator) -> RttReading {
        RttReading::of_snapshot(&RttSnapshot::from_quinn(rtt))
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
                app_limited,
                rtt,
                ..
            } => c.on_ack(now, sent, bytes, app_limited, &estimators[rtt as usize]),
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
                lost_bytes,
                ..
            } => c.on_congestion_event(now, sent, persistent, lost_bytes),
            Step::Mtu(mtu) => c.on_mtu_update(mtu),
            // Not quinn calls: `Replay::new` refuses recordings that hold them.
            Step::PacketSent { .. }
            | Step::PacketLost { .. }
            | Step::CwndLimited
            | Step::SpuriousCongestion
            | Step::AckFrequency { .. }
            | Step::Metrics => {}
        }
    }

    fn delivers(event: &Event) -> bool {
        event.on_quinn()
    }

    fn cubic() -> Arc<Self::Factory> {
        Arc::new(CubicConfig::default())
    }

    fn recorder(factory: Arc<RecordingFactory<Self>>) -> Arc<Self::Factory> {
        factory
    }

    fn run(scenario: &Scenario, factory: Arc<Self::Factory>) -> Result<(), RunError> {
        scenario.run(factory).map(drop)
    }

    fn contenders() -> Vec<Contender<Self>> {
        struct Ports(Vec<Contender<Quinn>>);
        impl PortVisitor for Ports {
            fn visit<C: PortConfig>(&mut self) {
                self.0.push(Contender {
                    name: C::NAME,
                    origin: Origin::Port,
                    factory: Arc::new(PortFactory::new(C::default())),
                    inline_bytes: std::mem::size_of::<PortController<C::Algorithm>>(),
                    ledger: Some(|c| {
                        PortController::<C::Algorithm>::from_controller(c)
                            .and_then(|p| ledger_of(&p))
                    }),
                });
            }
        }
        let quinn = QuinnBaseline::ALL.into_iter().map(|b| Contender {
            name: match b {
                QuinnBaseline::NewReno => "quinn-newreno",
                QuinnBaseline::Cubic => "quinn-cubic",
                QuinnBaseline::Bbr => "quinn-bbr",
            },
            origin: Origin::Stack,
            factory: b.factory(None),
            inline_bytes: b.controller_size(),
            ledger: None,
        });
        let mut all = Ports(quinn.collect());
        cc_ports::visit_ports(&mut all);
        all.0
    }

    fn floor() -> Contender<Self> {
        let noop: Arc<Self::Factory> = Arc::new(NoopFactory);
        Contender::floor(noop)
    }
}

impl ControllerFactory for RecordingFactory<Quinn> {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        let recorder = Recorder::start(self.log_handle(), now, current_mtu);
        Box::new(Observed::new(
            self.inner().clone().build(now, current_mtu),
            recorder,
        ))
    }
}

impl Observer for Recorder<Quinn> {
    fn sent(&mut self, c: &dyn Controller, now: Instant, bytes: u64, last_pn: u64) {
        let at = self.offset(now);
        self.push(c.window(), Event::Sent { at, bytes, last_pn });
    }

    fn ack(
        &mut self,
        c: &dyn Controller,
        now: Instant,
        sent: Instant,
        bytes: u64,
        app_limited: bool,
        rtt: &RttEstimator,
    ) {
        self.rtt(rtt);
        let event = Event::Ack {
            at: self.offset(now),
            sent: self.offset(sent),
            bytes,
            pn: None,
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
        lost_bytes: u64,
    ) {
        let event = Event::Congestion {
            at: self.offset(now),
            sent: self.offset(sent),
            persistent,
            ecn: false,
            lost_bytes,
            largest_lost_pn: None,
        };
        self.push(c.window(), event);
    }

    fn mtu_update(&mut self, c: &dyn Controller, mtu: u16) {
        self.push(c.window(), Event::Mtu { mtu });
    }
}

impl Controller for Noop {
    fn on_sent(&mut self, _now: Instant, _bytes: u64, _last_packet_number: u64) {}

    fn on_ack(
        &mut self,
        _now: Instant,
        _sent: Instant,
        _bytes: u64,
        _app_limited: bool,
        _rtt: &RttEstimator,
    ) {
    }

    fn on_end_acks(
        &mut self,
        _now: Instant,
        _in_flight: u64,
        _app_limited: bool,
        _largest_packet_num_acked: Option<u64>,
    ) {
    }

    fn on_congestion_event(
        &mut self,
        _now: Instant,
        _sent: Instant,
        _is_persistent_congestion: bool,
        _lost_bytes: u64,
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
