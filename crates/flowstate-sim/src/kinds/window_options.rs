//! The `overrides` `sctp`, `tcp-newreno` and `tcp-cubic` flows accept (one struct: the
//! keys they share, `mtu` and `message_size`, and each one's own; a key of another
//! kind is an error naming the kinds that take it).

use super::common::{check_positive, parse_overrides};
use super::data_source::DEFAULT_MESSAGE_SIZE;
use crate::error::FieldError;
use crate::flow_spec::FlowSpec;
use crate::overrides::{overrides, OverrideDefault, BYTES};
use crate::units_parse::Bytes;
use flowstate_core::endpoint::sctp::SctpSenderConfig;
use flowstate_core::window::{CubicConfig, NewRenoConfig};

/// An `sctp` override's default under each SCTP preset: "usrsctp: X, dcsctp: Y".
fn per_sctp_preset(rule: fn(&SctpSenderConfig) -> bool) -> String {
    let usrsctp = rule(&SctpSenderConfig::default());
    let dcsctp = rule(&SctpSenderConfig::dcsctp());
    format!("usrsctp: {usrsctp}, dcsctp: {dcsctp}")
}

overrides! {
    /// The `overrides` `sctp`, `tcp-newreno` and `tcp-cubic` flows accept.
    #[derive(Default)]
    pub struct WindowOverrides {
        /// SCTP path MTU / TCP SMSS.
        mtu: Option<Bytes> => ["sctp", "tcp-newreno", "tcp-cubic"], BYTES,
            OverrideDefault::Value(|| {
                let sctp = SctpSenderConfig::default().cc.mtu;
                let tcp = NewRenoConfig::default().smss;
                let cubic = CubicConfig::default().smss;
                format!("sctp: {}, tcp-newreno: {}, tcp-cubic: {}", sctp.as_bytes(), tcp.as_bytes(), cubic.as_bytes())
            });
        /// Message size of the application-limited (`desired_rate`) source.
        message_size: Option<Bytes> => ["sctp", "tcp-newreno", "tcp-cubic"], BYTES,
            OverrideDefault::Value(|| DEFAULT_MESSAGE_SIZE.as_bytes().to_string());
        /// Report the cwnd grown by an ack before a max-cwnd cap clips it, as paper 000's
        /// usrsctp patch does (`SctpSenderConfig`).
        report_cwnd_before_cap: Option<bool> => ["sctp"], None,
            OverrideDefault::Value(|| SctpSenderConfig::default().report_cwnd_before_cap.to_string());
        /// dcSCTP's loss rule for retransmissions: a retransmitted chunk can be declared
        /// lost again after three new miss indications (`SctpSenderConfig`).
        renack_retransmissions: Option<bool> => ["sctp"], None,
            OverrideDefault::Value(|| per_sctp_preset(|c| c.renack_retransmissions));
        /// dcSCTP's RFC 7053 rule: the I bit on every DATA chunk sent while cwnd is under
        /// 10 MTUs, and an immediate SACK for it (`SctpSenderConfig`).
        immediate_sack_bit: Option<bool> => ["sctp"], None,
            OverrideDefault::Value(|| per_sctp_preset(|c| c.immediate_sack_under_cwnd_mtus > 0));
        /// dcSCTP's packet budget: a packet never takes the flight past cwnd (new data
        /// cut to the room, a retransmission waits until it fits; `SctpSenderConfig`).
        cwnd_sized_packets: Option<bool> => ["sctp"], None,
            OverrideDefault::Value(|| per_sctp_preset(|c| c.cwnd_sized_packets));
        /// A cwnd set from outside (FSEv2) resets partial_bytes_acked to zero; `false`:
        /// kept, capped at the new cwnd (`SctpCcConfig`).
        reset_pba_on_set_cwnd: Option<bool> => ["sctp"], None,
            OverrideDefault::Value(|| SctpSenderConfig::default().cc.reset_pba_on_set_cwnd.to_string());
        /// SACK loss recovery (RFC 2018 + RFC 6675, as Linux).
        sack: Option<bool> => ["tcp-newreno", "tcp-cubic"], None, OverrideDefault::Value(|| "false".into());
        /// With `sack`: the window in fast recovery by Proportional Rate Reduction (RFC
        /// 6937, PRR-SSRB), as Linux and ns-3 (its default `TcpPrrRecovery`) recover;
        /// `false`: RFC 6675's cwnd = ssthresh from the recovery's start.
        prr: Option<bool> => ["tcp-newreno", "tcp-cubic"], None, OverrideDefault::Value(|| "false".into());
        /// RTT samples as with the timestamps option (RFC 7323, as Linux); `false`: Karn's
        /// algorithm.
        timestamps: Option<bool> => ["tcp-newreno", "tcp-cubic"], None,
            OverrideDefault::Value(|| "false".into());
        /// Delayed acks at the receiver (RFC 5681 4.2: an ack for at least every second
        /// full segment, or after 40 ms); `false`: every segment acked at once (as
        /// cisco/ns3-rmcat's suites set ns-3's TCP, `DelAckCount` 0).
        delayed_ack: Option<bool> => ["tcp-newreno", "tcp-cubic"], None,
            OverrideDefault::Value(|| "true".into());
        /// Linux's RTO (SRTT + max(4 RTTVAR, 200 ms), min 200 ms) instead of RFC 6298's
        /// (min 1 s).
        linux_rto: Option<bool> => ["tcp-newreno", "tcp-cubic"], None,
            OverrideDefault::Value(|| "false".into());
        /// HyStart as Linux's CUBIC runs it (kernels 3.x constants); `false`: RFC 9438's
        /// plain slow start.
        hystart: Option<bool> => ["tcp-cubic"], None, OverrideDefault::Value(|| "false".into());
        /// A timeout during fast recovery keeps the recovery's ssthresh when lower than
        /// RFC 5681 eq. 4 on the FlightSize (as Linux); `false`: eq. 4 as it is, on a
        /// FlightSize inflated by recovery.
        rto_keeps_recovery_ssthresh: Option<bool> => ["tcp-newreno", "tcp-cubic"], None,
            OverrideDefault::Value(|| {
                let reno = NewRenoConfig::default().rto_keeps_recovery_ssthresh;
                let cubic = CubicConfig::default().rto_keeps_recovery_ssthresh;
                if reno == cubic {
                    reno.to_string()
                } else {
                    format!("tcp-newreno: {reno}, tcp-cubic: {cubic}")
                }
            });
    }
}

/// The overrides of an `sctp` / `tcp-*` flow, with no key of another kind.
pub(crate) fn window_overrides(spec: &FlowSpec) -> Result<WindowOverrides, FieldError> {
    let o: WindowOverrides = parse_overrides(spec)?;
    // Every number an override holds must be > 0.
    check_positive(&o.numbers(), &[])?;
    crate::overrides::check_kind(spec.kind.name(), &o.set_keys())
        .map_err(|e| e.under("overrides"))?;
    Ok(o)
}
