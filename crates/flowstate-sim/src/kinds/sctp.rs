//! `sctp`: a WebRTC data channel's SCTP association (RFC 4960/9260 congestion control;
//! the `usrsctp` stack of paper 000 or Chromium's `dcsctp`, [`SctpPreset`]), greedy
//! unless `source` or `desired_rate` says otherwise. Its options:
//! [`WindowOverrides`], shared with the TCP kinds.

use super::data_source::{data_source, DEFAULT_MESSAGE_SIZE};
use super::window_options::window_overrides;
use crate::app_stats::{AppControl, AppStats};
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks, SimFlow};
use crate::flow_spec::FlowSpec;
use crate::flow_spec::{BuildInput, CouplingRole, KindDef};
use crate::presets::{self, SctpPreset};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::endpoint::sctp::{SctpReceiver, SctpReceiverConfig, SctpSender};
use flowstate_core::{DataSize, Timestamp};

/// The `sctp` kind.
pub static KIND: KindDef = KindDef::new(
    "sctp",
    "an SCTP data channel (RFC 4960 congestion control, paper 000's greedy sender unless source or desired_rate says otherwise)",
    build,
)
.coupled(CouplingRole::Window {
        mtu: DataSize::bytes(1200),
    })
.in_call()
.with_presets(|| SctpPreset::ALL.iter().map(|p| p.name()).collect())
.with_options(|| super::window_options::WindowOverrides::DEFINITIONS.to_vec())
.with_source();

/// An SCTP data-channel flow.
pub type SctpFlow = EndpointPairFlow<Tracked<SctpSender>, SctpReceiver>;

/// Under the `web-api` coupling mode, a grouped data channel is paced by the web
/// application (`web_api::pace_application`).
fn build(b: &BuildInput<'_>) -> Result<Box<dyn SimFlow>, FieldError> {
    let mut flow = sctp_flow(b.spec, b.seed)?;
    if b.ctx.mechanism == crate::web_api::MECHANISM && b.spec.group().is_some() {
        crate::web_api::pace_application(flow.sender_mut().inner_mut());
    }
    Ok(Box::new(flow))
}

/// What getStats shows of the data channel, and the web application's control of it.
impl SimSender for SctpSender {
    fn web_stats(&self) -> Option<AppStats> {
        crate::web_api::data_stats(self)
    }
    fn web_control(&mut self, now: Timestamp, control: AppControl) {
        crate::web_api::apply_data(self, now, control);
    }
}

impl ReceiverHooks for SctpReceiver {
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes_delivered().as_bytes())
    }
}

/// An SCTP flow (paper 000's greedy data channel unless the scenario says otherwise).
pub fn sctp_flow(spec: &FlowSpec, seed: u64) -> Result<SctpFlow, FieldError> {
    let o = window_overrides(spec)?;
    // `usrsctp` (default: RFC 9260 with WebRTC's RTO, paper 000's stack) or `dcsctp`
    // (Chromium's SCTP since M95).
    let preset = presets::sctp(spec.preset.as_deref())?;
    let dcsctp = preset == SctpPreset::Dcsctp;
    let mut cfg = preset.config();
    cfg.ecn = spec.ecn();
    if let Some(m) = o.mtu {
        cfg.cc.mtu = DataSize::bytes(m.0 as u64);
        if dcsctp {
            cfg.cc.initial_cwnd =
                Some(cfg.cc.mtu * flowstate_core::window::sctp::DCSCTP_CWND_MTUS_INITIAL);
        }
    }
    if let Some(before_cap) = o.report_cwnd_before_cap {
        cfg.report_cwnd_before_cap = before_cap;
    }
    if let Some(renack) = o.renack_retransmissions {
        cfg.renack_retransmissions = renack;
    }
    if let Some(on) = o.immediate_sack_bit {
        cfg.immediate_sack_under_cwnd_mtus = if on {
            flowstate_core::endpoint::sctp::DCSCTP_IMMEDIATE_SACK_UNDER_CWND_MTUS
        } else {
            0
        };
    }
    if let Some(sized) = o.cwnd_sized_packets {
        cfg.cwnd_sized_packets = sized;
    }
    if let Some(reset) = o.reset_pba_on_set_cwnd {
        cfg.cc.reset_pba_on_set_cwnd = reset;
    }
    let msg = o
        .message_size
        .map_or(DEFAULT_MESSAGE_SIZE, |b| DataSize::bytes(b.0 as u64));
    cfg.source = data_source(spec, SourceKind::paper_greedy(), msg, seed);
    Ok(EndpointPairFlow::new(
        Tracked::new(SctpSender::new(cfg)),
        SctpReceiver::new(SctpReceiverConfig::default()),
    ))
}
