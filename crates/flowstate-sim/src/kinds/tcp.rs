//! `tcp-newreno` and `tcp-cubic`: a TCP flow with NewReno (RFC 5681, RFC 6582) or CUBIC
//! (RFC 9438), long-lived greedy unless `source` or `desired_rate` says otherwise; the
//! Linux-like loss recovery and RTT sampling are named options
//! ([`WindowOverrides`](super::window_options::WindowOverrides)).

use super::data_source::{data_source, DEFAULT_MESSAGE_SIZE};
use super::window_options::window_overrides;
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks};
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{CouplingRole, KindDef};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::endpoint::tcp::{
    TcpCcKind, TcpReceiver, TcpReceiverConfig, TcpSender, TcpSenderConfig,
};
use flowstate_core::window::{CubicConfig, HystartConfig, NewRenoConfig, RtoConfig};
use flowstate_core::DataSize;

/// TCP's window unit: the 1460 B SMSS of flowstate-core's defaults.
const TCP: CouplingRole = CouplingRole::Window {
    mtu: DataSize::bytes(1460),
};

/// The `tcp-newreno` kind.
pub static NEWRENO: KindDef = tcp_kind(
    "tcp-newreno",
    "a TCP flow with NewReno (RFC 5681, RFC 6582), long-lived greedy by default",
    |b| Ok(Box::new(tcp_flow(b.spec, false, b.seed)?)),
);

/// The `tcp-cubic` kind.
pub static CUBIC: KindDef = tcp_kind(
    "tcp-cubic",
    "a TCP flow with CUBIC (RFC 9438), long-lived greedy by default",
    |b| Ok(Box::new(tcp_flow(b.spec, true, b.seed)?)),
);

/// A TCP kind: a window flow with a data source and the window overrides.
const fn tcp_kind(
    name: &'static str,
    description: &'static str,
    build: fn(
        &crate::flow_spec::BuildInput<'_>,
    ) -> Result<Box<dyn crate::flow::SimFlow>, FieldError>,
) -> KindDef {
    KindDef::new(name, description, build)
        .coupled(TCP)
        .with_options(|| super::window_options::WindowOverrides::DEFINITIONS.to_vec())
        .with_source()
}

/// A TCP flow (NewReno or CUBIC).
pub type TcpFlow = EndpointPairFlow<Tracked<TcpSender>, TcpReceiver>;

impl SimSender for TcpSender {}

impl ReceiverHooks for TcpReceiver {
    /// An ack goes out on a segment or at the delayed-ack deadline.
    const INPUT_DRIVEN: bool = true;
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes_delivered().as_bytes())
    }
}

/// The receiver: SACK blocks when the sender recovers with them; delayed acks (RFC
/// 5681 4.2) unless `delayed_ack` is off, then every segment is acked at once.
fn receiver_config(sack: bool, delayed_ack: bool) -> TcpReceiverConfig {
    let d = TcpReceiverConfig::default();
    TcpReceiverConfig {
        sack,
        ack_every: if delayed_ack { d.ack_every } else { 1 },
        ..d
    }
}

/// A TCP flow (long-lived greedy unless the scenario says otherwise).
pub fn tcp_flow(spec: &FlowSpec, cubic: bool, seed: u64) -> Result<TcpFlow, FieldError> {
    let o = window_overrides(spec)?;
    let mut cfg = TcpSenderConfig::default();
    let smss = o.mtu.map(|m| DataSize::bytes(m.0 as u64));
    cfg.cc = if cubic {
        let mut c = CubicConfig::default();
        if let Some(s) = smss {
            c.smss = s;
        }
        if o.hystart.unwrap_or(false) {
            c.hystart = Some(HystartConfig::default());
        }
        TcpCcKind::Cubic(c)
    } else {
        let mut c = NewRenoConfig::default();
        if let Some(s) = smss {
            c.smss = s;
        }
        TcpCcKind::NewReno(c)
    };
    // Linux-like loss recovery and RTT sampling (named options, docs/ALGORITHMS.md).
    let sack = o.sack.unwrap_or(false);
    let prr = o.prr.unwrap_or(false);
    if prr && !sack {
        return Err(FieldError::new(
            "overrides.prr",
            "prr (RFC 6937) recovers with SACK's pipe: set `sack = true` as well, or drop `prr`",
        ));
    }
    match &mut cfg.cc {
        TcpCcKind::Cubic(c) => (c.pipe_recovery, c.prr) = (sack, prr),
        TcpCcKind::NewReno(c) => (c.pipe_recovery, c.prr) = (sack, prr),
        TcpCcKind::Ledbat(_) => {}
    }
    if let Some(keep) = o.rto_keeps_recovery_ssthresh {
        match &mut cfg.cc {
            TcpCcKind::Cubic(c) => c.rto_keeps_recovery_ssthresh = keep,
            TcpCcKind::NewReno(c) => c.rto_keeps_recovery_ssthresh = keep,
            TcpCcKind::Ledbat(_) => {}
        }
    }
    cfg.sack = sack;
    cfg.timestamps = o.timestamps.unwrap_or(false);
    // ECN negotiated at connection set-up when the flow is ECN-capable (RFC 3168
    // section 6.1.1, taken as done).
    cfg.ecn = spec.ecn();
    if o.linux_rto.unwrap_or(false) {
        cfg.rto = RtoConfig::linux();
    }
    let msg = o
        .message_size
        .map_or(DEFAULT_MESSAGE_SIZE, |b| DataSize::bytes(b.0 as u64));
    let greedy = cfg.source.clone();
    cfg.source = data_source(spec, greedy, msg, seed);
    Ok(EndpointPairFlow::new(
        Tracked::new(TcpSender::new(cfg)),
        TcpReceiver::new(receiver_config(sack, o.delayed_ack.unwrap_or(true))),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delayed_ack_off_acks_every_segment() {
        let delayed = receiver_config(true, true);
        assert_eq!(delayed.ack_every, TcpReceiverConfig::default().ack_every);
        assert!(delayed.ack_every >= 2 && delayed.sack);
        let every = receiver_config(false, false);
        assert_eq!(every.ack_every, 1);
        assert!(!every.sack);
    }
}
