//! Constant-bit-rate UDP-like traffic (scenario flow kind `cbr`): a sender that emits a
//! packet of fixed size every `size x 8 / rate` seconds, and a sink that counts. No
//! feedback, no congestion control: useful as background load.

use super::common::parse_overrides;
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks, SenderHooks, SimFlow};
use crate::flow_spec::{BuildInput, KindDef};
use crate::overrides::{overrides, OverrideDefault, BPS, BYTES};
use crate::units_parse::{Bps, Bytes};
use flowstate_core::endpoint::{Endpoint, Transmit};
use flowstate_core::units::round_to_i64;
use flowstate_core::{Bitrate, DataSize, Ecn, TimeDelta, Timestamp};
use std::convert::Infallible;

/// The `cbr` kind.
pub static KIND: KindDef = KindDef::new(
    "cbr",
    "constant bit rate packets without congestion control (never coupled)",
    build,
)
.with_options(|| CbrOverrides::DEFINITIONS.to_vec());

overrides! {
    /// The `overrides` a `cbr` flow accepts.
    pub struct CbrOverrides {
        /// The constant sending rate.
        rate: Bps => ["cbr"], BPS, OverrideDefault::Required;
        /// Packet size.
        packet_size: Option<Bytes> => ["cbr"], BYTES,
            OverrideDefault::Value(|| CbrConfig::default().packet_size.as_bytes().to_string());
    }
}

/// A `cbr` flow: `overrides.rate` > 0, `overrides.packet_size` from 1 B to 65535 B.
fn build(b: &BuildInput<'_>) -> Result<Box<dyn SimFlow>, FieldError> {
    let o: CbrOverrides = parse_overrides(b.spec)?;
    if o.rate.0 <= 0.0 {
        return Err(FieldError::new(
            "overrides.rate",
            format!("must be > 0 bit/s, got {} bit/s", o.rate.0),
        ));
    }
    if let Some(s) = o.packet_size {
        if !(1.0..=65_535.0).contains(&s.0) {
            return Err(FieldError::new(
                "overrides.packet_size",
                format!("must be between 1 B and 65535 B, got {} B", s.0),
            ));
        }
    }
    let config = CbrConfig {
        rate: Bitrate::bps(o.rate.0),
        packet_size: o.packet_size.map_or(CbrConfig::default().packet_size, |s| {
            DataSize::bytes(s.0 as u64)
        }),
        ecn: b.spec.ecn(),
    };
    Ok(Box::new(cbr_flow(config)))
}

/// CBR parameters (scenario: `overrides = { rate = "1Mbps", packet_size = "1200B" }`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CbrConfig {
    /// Sending rate on the wire (packet sizes included).
    pub rate: Bitrate,
    /// Wire size of every packet.
    pub packet_size: DataSize,
    /// The codepoint of every packet (`ecn`): an ECN-capable CBR flow is marked
    /// instead of dropped by a marking queue and does not answer (no feedback).
    pub ecn: Ecn,
}

impl Default for CbrConfig {
    fn default() -> Self {
        Self {
            rate: Bitrate::mbps(1.0),
            packet_size: DataSize::bytes(1200),
            ecn: Ecn::NotEct,
        }
    }
}

/// One CBR packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CbrPacket {
    pub seq: u64,
}

/// Sends packet `k` at `base + k x interval` (computed from `k` each time, so the
/// rounding to microseconds never accumulates).
#[derive(Debug, Clone)]
pub struct CbrSender {
    config: CbrConfig,
    interval_us: f64,
    base: Timestamp,
    /// Packets sent since `base`.
    k: u64,
    next_seq: u64,
    due: u32,
    running: bool,
}

impl CbrSender {
    pub fn new(config: CbrConfig) -> Self {
        // Exact (fractional) interval; a zero rate never sends (infinite interval).
        let bps = config.rate.as_bps();
        let interval_us = if bps > 0.0 {
            (config.packet_size.as_bits_f64() * 1e6 / bps).max(1.0)
        } else {
            f64::INFINITY
        };
        Self {
            config,
            interval_us,
            base: Timestamp::ZERO,
            k: 0,
            next_seq: 0,
            due: 0,
            running: false,
        }
    }
    fn next_send(&self) -> Timestamp {
        self.base + TimeDelta::from_micros(round_to_i64(self.k as f64 * self.interval_us))
    }
    fn restart(&mut self, now: Timestamp) {
        self.base = now;
        self.k = 0;
        self.due = 0;
        self.running = true;
    }
    /// Packets sent so far.
    pub fn sent(&self) -> u64 {
        self.next_seq
    }
}

impl Endpoint for CbrSender {
    type Outgoing = CbrPacket;
    type Incoming = Infallible;

    fn handle_input(&mut self, _now: Timestamp, message: Infallible) {
        match message {}
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<CbrPacket>> {
        if self.due == 0 {
            return None;
        }
        self.due -= 1;
        let seq = self.next_seq;
        self.next_seq += 1;
        Some(Transmit {
            size: self.config.packet_size,
            message: CbrPacket { seq },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        (self.running && self.interval_us.is_finite()).then(|| self.next_send())
    }

    fn handle_timeout(&mut self, now: Timestamp) {
        // At most a bounded catch-up per call, so a late call cannot loop for long.
        let mut n = 0;
        while self.running && self.next_send() <= now && n < 1024 {
            self.due = self.due.saturating_add(1);
            self.k += 1;
            n += 1;
        }
    }
}

impl SenderHooks for CbrSender {
    fn ecn_codepoint(&self) -> Ecn {
        self.config.ecn
    }
    fn on_start(&mut self, now: Timestamp) {
        self.restart(now);
    }
    fn on_pause(&mut self, _now: Timestamp) {
        self.running = false;
        self.due = 0;
    }
    fn on_resume(&mut self, now: Timestamp) {
        self.restart(now);
    }
}

/// Counts what arrives.
#[derive(Debug, Clone, Default)]
pub struct CbrSink {
    pub received: u64,
    pub bytes: u64,
    pub packet_size: u64,
    /// Highest sequence number seen plus one.
    pub next_expected: u64,
}

impl CbrSink {
    pub fn new(config: CbrConfig) -> Self {
        Self {
            packet_size: config.packet_size.as_bytes(),
            ..Self::default()
        }
    }
}

impl Endpoint for CbrSink {
    type Outgoing = Infallible;
    type Incoming = CbrPacket;

    fn handle_input(&mut self, _now: Timestamp, message: CbrPacket) {
        self.received += 1;
        self.bytes += self.packet_size;
        self.next_expected = self.next_expected.max(message.seq + 1);
    }
    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<Infallible>> {
        None
    }
    fn poll_timeout(&self) -> Option<Timestamp> {
        None
    }
    fn handle_timeout(&mut self, _now: Timestamp) {}
}

impl ReceiverHooks for CbrSink {
    fn goodput_bytes(&self) -> Option<u64> {
        Some(self.bytes)
    }
}

/// A CBR flow ready for the engine.
pub type CbrFlow = EndpointPairFlow<CbrSender, CbrSink>;

pub fn cbr_flow(config: CbrConfig) -> CbrFlow {
    EndpointPairFlow::new(CbrSender::new(config), CbrSink::new(config))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sends_at_exact_spacing() {
        // 1000 B at 1 Mbit/s: one packet every 8 ms.
        let mut s = CbrSender::new(CbrConfig {
            rate: Bitrate::mbps(1.0),
            packet_size: DataSize::bytes(1000),
            ecn: Ecn::NotEct,
        });
        assert_eq!(s.poll_timeout(), None, "idle before start");
        s.on_start(Timestamp::from_millis(100));
        let mut times = vec![];
        for _ in 0..5 {
            let t = s.poll_timeout().expect("running");
            s.handle_timeout(t);
            while s.poll_transmit(t).is_some() {
                times.push(t.as_micros() / 1000);
            }
        }
        assert_eq!(times, vec![100, 108, 116, 124, 132]);
        s.on_pause(Timestamp::from_millis(133));
        assert_eq!(s.poll_timeout(), None);
    }

    /// When packet `n` (counting from 0) of 1200 B at `mbps`, started at 0, is due.
    fn due_time_of_packet(mbps: f64, n: u64) -> Option<Timestamp> {
        let mut s = CbrSender::new(CbrConfig {
            rate: Bitrate::mbps(mbps),
            packet_size: DataSize::bytes(1200),
            ecn: Ecn::NotEct,
        });
        s.on_start(Timestamp::ZERO);
        for _ in 0..n {
            let t = s.poll_timeout().expect("running");
            s.handle_timeout(t);
            while s.poll_transmit(t).is_some() {}
        }
        s.poll_timeout()
    }

    #[test]
    fn fractional_interval_keeps_long_run_rate() {
        // 1200 B at 7 Mbit/s: 1371.43 us; packet 7000 is due at exactly 9.6 s.
        assert_eq!(
            due_time_of_packet(7.0, 7000),
            Some(Timestamp::from_micros(9_600_000))
        );
    }

    #[test]
    fn non_integer_interval_does_not_drift() {
        // 1200 B at 3 Mbit/s: 3.2 ms; after 1000 packets exactly 3.2 s.
        assert_eq!(
            due_time_of_packet(3.0, 1000),
            Some(Timestamp::from_micros(3_200_000))
        );
    }
}
