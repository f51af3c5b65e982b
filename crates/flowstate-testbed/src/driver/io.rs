//! One side's socket: datagrams sent to and received from the peer, counted
//! ([`SideStats`]) and captured (pcap, each protocol on its conventional port).
//!
//! ECN (RFC 3168 section 5): a datagram is sent with the ECN codepoint its endpoint
//! asks for (the sender's `ecn_codepoint()` for data, Not-ECT otherwise) in the IP
//! header's TOS / traffic-class byte, and each arriving datagram's codepoint is read
//! from the kernel (`flowstate_emu::ecn_socket`) and handed on with it; both show in
//! the pcaps' IPv4 headers.

use super::timing::{Clock, MIN_WAIT};
use crate::codec::{self, Class};
use flowstate_core::{Ecn, Timestamp};
use flowstate_emu::ecn_socket;
use flowstate_wire::pcap::PcapWriter;
use std::io::ErrorKind;
use std::net::{SocketAddr, UdpSocket};
use std::time::Duration;

/// pcap UDP ports per protocol (the real sockets multiplex one 5-tuple; the capture
/// names each protocol's conventional port so that tshark dissects it): RTP, RTCP and
/// SCTP over UDP (RFC 6951's registered port 9899).
pub const PCAP_RTP_PORT: u16 = 5004;
pub const PCAP_RTCP_PORT: u16 = 5005;
pub const PCAP_SCTP_PORT: u16 = 9899;
/// uTP (LEDBAT) in the pcap: BitTorrent's port 6881 (tshark: `-d udp.port==6881,bt-utp`).
pub const PCAP_UTP_PORT: u16 = 6881;
/// Receive buffer size (the largest UDP payload fits, nothing is truncated).
pub const MAX_DATAGRAM: usize = 65_535;

/// Datagram counters of one side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SideStats {
    pub received: u64,
    pub decoded: u64,
    /// Did not parse (bad header, checksum, truncation...).
    pub malformed: u64,
    /// Not one of ours (unknown first byte, unknown flow, wrong tag).
    pub foreign: u64,
    pub sent: u64,
    pub send_errors: u64,
    /// Datagrams received with an ECN-capable codepoint (ECT(0), ECT(1) or CE).
    pub ecn_capable_received: u64,
    /// Datagrams received with CE.
    pub ce_received: u64,
}

impl SideStats {
    /// A decoded datagram, or `None` counted as malformed.
    pub(super) fn count_decoded<T, E>(&mut self, decoded: Result<T, E>) -> Option<T> {
        if decoded.is_err() {
            self.malformed += 1;
        }
        decoded.ok()
    }
}

/// The pcap UDP port of a datagram of `class`.
pub(super) fn pcap_ports(class: Class) -> u16 {
    match class {
        Class::Rtp => PCAP_RTP_PORT,
        Class::Rtcp => PCAP_RTCP_PORT,
        Class::Sctp => PCAP_SCTP_PORT,
        Class::Utp => PCAP_UTP_PORT,
    }
}

/// A socket plus its counters and capture.
pub(super) struct Io {
    pub(super) sock: UdpSocket,
    pub(super) peer: SocketAddr,
    pub(super) stats: SideStats,
    pub(super) pcap: PcapWriter,
    pub(super) buf: Vec<u8>,
}

impl Io {
    /// A decoded datagram, or `None` counted as malformed.
    pub(super) fn decoded<T, E>(&mut self, decoded: Result<T, E>) -> Option<T> {
        self.stats.count_decoded(decoded)
    }

    /// Send a Not-ECT datagram (feedback, association control).
    pub(super) fn send(&mut self, now: Timestamp, class: Class, bytes: &[u8]) {
        self.send_ecn(now, class, bytes, Ecn::NotEct);
    }

    /// Send a datagram with ECN codepoint `ecn` in its IP header.
    pub(super) fn send_ecn(&mut self, now: Timestamp, class: Class, bytes: &[u8], ecn: Ecn) {
        let port = pcap_ports(class);
        self.pcap
            .udp_tos(now.as_micros(), ecn.bits(), port, port, bytes);
        match ecn_socket::send_to(&self.sock, bytes, self.peer, ecn.bits()) {
            Ok(_) => self.stats.sent += 1,
            Err(_) => self.stats.send_errors += 1,
        }
    }

    /// Wait up to `wait` for one datagram: when it arrived, its bytes and the ECN
    /// codepoint of its IP header.
    pub(super) fn recv(
        &mut self,
        clock: &Clock,
        wait: Duration,
    ) -> Option<(Timestamp, Vec<u8>, Ecn)> {
        let _ = self.sock.set_read_timeout(Some(wait.max(MIN_WAIT)));
        match ecn_socket::recv_from(&self.sock, &mut self.buf) {
            Ok((n, _, traffic_class)) => {
                let now = clock.now();
                let bytes = self.buf.get(..n).unwrap_or(&[]).to_vec();
                let ecn = Ecn::from_bits(traffic_class);
                self.stats.received += 1;
                self.stats.ecn_capable_received += u64::from(ecn.is_ecn_capable());
                self.stats.ce_received += u64::from(ecn.is_ce());
                let port = codec::classify(&bytes).map_or(0, pcap_ports);
                self.pcap
                    .udp_tos(now.as_micros(), traffic_class, port, port, &bytes);
                Some((now, bytes, ecn))
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
            Err(_) => None,
        }
    }
}

#[cfg(test)]
#[path = "io_tests.rs"]
mod tests;
