//! A toy rate controller, compiled for tests only (the `testing` feature): the whole of
//! adding a controller is a module like this one in flowstate-core (a sender and a
//! receiver implementing [`Endpoint`], the sender also [`Controller`], and its
//! configuration's option table), one file in the simulator
//! (`flowstate-sim/src/kinds/toy.rs`: the kind's name, description, coupling role,
//! options and builder) and one line in the simulator's kind table. The simulator's
//! tests then run it by name from a scenario, coupled or not.
//!
//! The rule: AIMD on a paced rate. The receiver acknowledges every packet; each ack
//! with no gap before it adds `increase` per RTT's worth of acks, an ack after a gap
//! (a lost packet) multiplies the rate by `beta`, at most once per smoothed RTT.

use crate::config_options::ConfigOption;
use crate::coupling::{Allowance, FlowReport};
use crate::endpoint::{Controller, Endpoint, Transmit};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};
use std::collections::VecDeque;

/// The toy's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ToyConfig {
    /// The rate at start.
    pub initial_rate: Bitrate,
    /// The rate added per RTT without loss.
    pub increase: Bitrate,
    /// The factor applied on a loss.
    pub beta: f64,
    /// The wire size of every packet.
    pub packet_size: DataSize,
}

impl Default for ToyConfig {
    fn default() -> Self {
        Self {
            initial_rate: Bitrate::kbps(300.0),
            increase: Bitrate::kbps(50.0),
            beta: 0.5,
            packet_size: DataSize::bytes(1200),
        }
    }
}

impl ToyConfig {
    /// The toy's options.
    pub const OPTIONS: &'static [ConfigOption<ToyConfig>] = crate::config_options!(ToyConfig {
        /// The rate at start.
        initial_rate: BitsPerSec => initial_rate;
        /// The rate added per RTT without loss.
        increase: BitsPerSec => increase;
        /// The factor applied on a loss (0 to 1).
        beta: Number => beta;
        /// The wire size of every packet.
        packet_size: Bytes => packet_size;
    });

    /// Every value in range: `beta` in (0, 1], a packet of at least 1 B.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return Err(format!("toy.beta must be in (0, 1], got {}", self.beta));
        }
        if self.packet_size < DataSize::bytes(1) {
            return Err("toy.packet_size must be at least 1 B".into());
        }
        Ok(())
    }
}

/// A toy data packet: its sequence number and send time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToyPacket {
    pub seq: u64,
    pub sent_at: Timestamp,
}

/// The acknowledgement of one packet.
pub type ToyAck = ToyPacket;

/// The toy's sender.
#[derive(Debug, Clone)]
pub struct ToySender {
    config: ToyConfig,
    rate: Bitrate,
    next_send: Timestamp,
    next_seq: u64,
    /// The sequence number the next ack should carry.
    expected: u64,
    srtt: Option<TimeDelta>,
    last_decrease: Option<Timestamp>,
    report: Option<FlowReport>,
}

impl ToySender {
    pub fn new(config: ToyConfig, start: Timestamp) -> Self {
        let rate = config.initial_rate;
        Self {
            config,
            rate,
            next_send: start,
            next_seq: 0,
            expected: 0,
            srtt: None,
            last_decrease: None,
            report: None,
        }
    }

    /// The current rate.
    pub fn rate(&self) -> Bitrate {
        self.rate
    }

    fn set_rate(&mut self, rate: Bitrate) {
        self.rate = rate.max(Bitrate::kbps(10.0));
        self.report = Some(self.snapshot());
    }
}

impl Endpoint for ToySender {
    type Outgoing = ToyPacket;
    type Incoming = ToyAck;

    fn handle_input(&mut self, now: Timestamp, ack: ToyAck) {
        let sample = now - ack.sent_at;
        let srtt = self.srtt.map_or(sample, |s| {
            TimeDelta::from_secs_f64(0.875 * s.as_secs_f64() + 0.125 * sample.as_secs_f64())
        });
        self.srtt = Some(srtt);
        let gap = ack.seq > self.expected;
        self.expected = self.expected.max(ack.seq + 1);
        if gap {
            let recent = self.last_decrease.is_some_and(|t| now - t < srtt);
            if !recent {
                self.last_decrease = Some(now);
                self.set_rate(self.rate * self.config.beta);
            }
        } else {
            // `increase` per RTT: one RTT carries rate x RTT / size acks.
            let acks_per_rtt = (self.rate.as_bps() * srtt.as_secs_f64()
                / self.config.packet_size.as_bits_f64())
            .max(1.0);
            let step = self.config.increase.as_bps() / acks_per_rtt;
            self.set_rate(Bitrate::bps(self.rate.as_bps() + step));
        }
    }

    fn poll_transmit(&mut self, now: Timestamp) -> Option<Transmit<ToyPacket>> {
        if now < self.next_send {
            return None;
        }
        let size = self.config.packet_size;
        let gap = size.as_bits_f64() / self.rate.as_bps();
        self.next_send =
            self.next_send.max(now - TimeDelta::millis(10)) + TimeDelta::from_secs_f64(gap);
        let seq = self.next_seq;
        self.next_seq += 1;
        Some(Transmit {
            size,
            message: ToyPacket { seq, sent_at: now },
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        Some(self.next_send)
    }

    fn handle_timeout(&mut self, _now: Timestamp) {}
}

/// The toy couples as a rate flow.
impl Controller for ToySender {
    fn poll_cc_report(&mut self) -> Option<FlowReport> {
        self.report.take()
    }

    fn apply_allowance(&mut self, _now: Timestamp, allowance: Allowance) {
        if let Allowance::Rate(r) = allowance {
            self.rate = r.max(Bitrate::kbps(10.0));
        }
    }

    fn snapshot(&self) -> FlowReport {
        FlowReport::Rate {
            rate: self.rate,
            rtt: self.srtt,
        }
    }

    fn latest_rtt(&self) -> Option<TimeDelta> {
        self.srtt
    }
}

/// The toy's receiver: an ack for every packet, at once.
#[derive(Debug, Clone, Default)]
pub struct ToyReceiver {
    acks: VecDeque<ToyAck>,
}

/// The wire size of an ack.
pub const ACK_SIZE: DataSize = DataSize::bytes(60);

impl Endpoint for ToyReceiver {
    type Outgoing = ToyAck;
    type Incoming = ToyPacket;

    fn handle_input(&mut self, _now: Timestamp, packet: ToyPacket) {
        self.acks.push_back(packet);
    }

    fn poll_transmit(&mut self, _now: Timestamp) -> Option<Transmit<ToyAck>> {
        self.acks.pop_front().map(|message| Transmit {
            size: ACK_SIZE,
            message,
        })
    }

    fn poll_timeout(&self) -> Option<Timestamp> {
        None
    }

    fn handle_timeout(&mut self, _now: Timestamp) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gap_halves_the_rate_once_per_rtt_and_acks_raise_it() {
        let mut s = ToySender::new(ToyConfig::default(), Timestamp::ZERO);
        let t = |ms| Timestamp::from_millis(ms);
        let p0 = s.poll_transmit(t(0)).expect("due");
        s.handle_input(t(50), p0.message);
        let after_ack = s.rate();
        assert!(after_ack > Bitrate::kbps(300.0));
        // Packets 1 and 2 lost, 3 acked: one decrease.
        s.handle_input(
            t(60),
            ToyPacket {
                seq: 3,
                sent_at: t(10),
            },
        );
        assert_eq!(s.rate(), after_ack * 0.5);
        s.handle_input(
            t(61),
            ToyPacket {
                seq: 5,
                sent_at: t(11),
            },
        );
        assert_eq!(s.rate(), after_ack * 0.5, "a second gap within an RTT");
        assert!(s.poll_cc_report().is_some());
    }
}
