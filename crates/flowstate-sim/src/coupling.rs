//! Where a coupling manager plugs into the simulator.
//!
//! The engine hands every [`FlowReport`] a sender queues to the run's [`CouplingHook`]
//! and applies the [`Allowance`]s it returns to the named flows (the hook never calls
//! into flows itself, matching flowstate-core's "allocations are returned as data").
//! A hook that wraps `flowstate_core::coupling` managers keeps one manager per flow
//! group, maps flow indices to `FlowId`s on [`FlowState::Active`] and deregisters on
//! [`FlowState::Stopped`].

use crate::flow::FlowState;
use crate::SimError;
use flowstate_core::coupling::{Allowance, FlowReport};
use flowstate_core::{Bitrate, Timestamp};

/// What the hook knows about a flow (from the scenario).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowInfo {
    pub index: usize,
    pub name: String,
    /// Scenario kind: gcc, sctp, tcp-newreno, tcp-cubic, rap, tfrc, cbr.
    pub kind: String,
    pub priority: f64,
    pub desired_rate: Option<Bitrate>,
    /// Flow group: flows with the same group share one coupling manager.
    pub group: String,
}

/// A coupling manager as the simulator sees it.
pub trait CouplingHook {
    /// A flow changed state (started, paused, resumed, stopped).
    fn on_state(&mut self, now: Timestamp, flow: &FlowInfo, state: FlowState);
    /// A flow's sender reported a new controller value. Push `(flow index, allowance)`
    /// pairs into `out` for every flow whose controller must change.
    fn on_report(
        &mut self,
        now: Timestamp,
        flow: usize,
        report: &FlowReport,
        out: &mut Vec<(usize, Allowance)>,
    );
}

/// No coupling: reports are ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoCoupling;

impl CouplingHook for NoCoupling {
    fn on_state(&mut self, _now: Timestamp, _flow: &FlowInfo, _state: FlowState) {}
    fn on_report(
        &mut self,
        _now: Timestamp,
        _flow: usize,
        _report: &FlowReport,
        _out: &mut Vec<(usize, Allowance)>,
    ) {
    }
}

/// Builds the hook for a scenario's `[coupling]` section.
pub trait CouplingFactory {
    fn build(
        &self,
        mechanism: &str,
        options: &toml::Table,
        flows: &[FlowInfo],
    ) -> Result<Box<dyn CouplingHook>, SimError>;
}

/// Knows only `none`; every other mechanism is an error until the lead wires the
/// flowstate-core managers in.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultCouplingFactory;

impl CouplingFactory for DefaultCouplingFactory {
    fn build(
        &self,
        mechanism: &str,
        _options: &toml::Table,
        _flows: &[FlowInfo],
    ) -> Result<Box<dyn CouplingHook>, SimError> {
        match mechanism {
            "none" => Ok(Box::new(NoCoupling)),
            other => Err(SimError::NotWired(format!(
                "coupling mechanism '{other}' is not yet wired into the simulator"
            ))),
        }
    }
}
