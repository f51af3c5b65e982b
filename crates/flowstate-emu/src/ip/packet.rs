//! What an IP packet crossing the bottleneck is: its 5-tuple and, for UDP, which of the
//! protocols WebRTC multiplexes on one port pair it carries (RFC 7983 section 7: the
//! first byte of the UDP payload tells STUN, DTLS, TURN channels and RTP/RTCP apart;
//! RFC 5761 section 4: RTCP packet types 192-223 tell RTCP from RTP). A WebRTC data
//! channel is SCTP inside DTLS (RFC 8261), so its packets show as DTLS.
//!
//! Pure parsing of untrusted bytes: every packet gets a class, a malformed one
//! [`PacketClass::Malformed`]; nothing here panics or allocates.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// IANA protocol numbers used here.
const PROTO_TCP: u8 = 6;
const PROTO_UDP: u8 = 17;

/// The protocol an IP packet carries, as far as the bottleneck's reports need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PacketClass {
    /// RTP media (RFC 7983: first byte 128-191, not an RTCP packet type).
    Rtp,
    /// RTCP feedback or reports (RFC 5761 section 4: packet type 192-223).
    Rtcp,
    /// DTLS records (first byte 20-63): DTLS handshakes and the SCTP of data channels.
    Dtls,
    /// STUN (first byte 0-3): ICE connectivity checks and keep-alives.
    Stun,
    /// Other UDP payloads (ZRTP, TURN channels, anything else, empty).
    UdpOther,
    /// TCP segments.
    Tcp,
    /// Another transport protocol.
    Other,
    /// Too short or inconsistent to read.
    Malformed,
}

impl PacketClass {
    /// The name used in records and reports.
    pub fn name(self) -> &'static str {
        match self {
            PacketClass::Rtp => "rtp",
            PacketClass::Rtcp => "rtcp",
            PacketClass::Dtls => "dtls",
            PacketClass::Stun => "stun",
            PacketClass::UdpOther => "udp",
            PacketClass::Tcp => "tcp",
            PacketClass::Other => "other",
            PacketClass::Malformed => "malformed",
        }
    }
}

/// What the bottleneck records of one IP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PacketInfo {
    pub class: PacketClass,
    /// IP protocol number (0 when malformed).
    pub protocol: u8,
    pub src: Option<IpAddr>,
    pub dst: Option<IpAddr>,
    /// UDP/TCP ports (0 for other protocols).
    pub src_port: u16,
    pub dst_port: u16,
    /// RTP: the packet's SSRC (RFC 3550 5.1); RTCP: the sender's SSRC (RFC 3550
    /// 6.4.1, the second word of every RTCP packet type).
    pub ssrc: Option<u32>,
}

impl PacketInfo {
    /// A hash of the 5-tuple (protocol, addresses, ports): the flow a flow-queuing
    /// discipline (RFC 8290 section 4.1.1) files the packet under. FNV-1a (32 bit), so
    /// that it is the same in every run and on every host; packets without a 5-tuple
    /// (malformed) share flow 0's hash.
    pub fn flow_hash(&self) -> u32 {
        const OFFSET: u32 = 0x811c_9dc5;
        const PRIME: u32 = 0x0100_0193;
        let mut h = OFFSET;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h = (h ^ u32::from(b)).wrapping_mul(PRIME);
            }
        };
        eat(&[self.protocol]);
        for a in [self.src, self.dst] {
            match a {
                Some(IpAddr::V4(v4)) => eat(&v4.octets()),
                Some(IpAddr::V6(v6)) => eat(&v6.octets()),
                None => eat(&[0]),
            }
        }
        eat(&self.src_port.to_be_bytes());
        eat(&self.dst_port.to_be_bytes());
        h
    }

    const MALFORMED: PacketInfo = PacketInfo {
        class: PacketClass::Malformed,
        protocol: 0,
        src: None,
        dst: None,
        src_port: 0,
        dst_port: 0,
        ssrc: None,
    };
}

/// Classify an IP packet (IPv4 or IPv6, no link-layer header).
pub fn classify(packet: &[u8]) -> PacketInfo {
    let Some(&first) = packet.first() else {
        return PacketInfo::MALFORMED;
    };
    let parsed = match first >> 4 {
        4 => ipv4(packet),
        6 => ipv6(packet),
        _ => None,
    };
    let Some((protocol, src, dst, payload)) = parsed else {
        return PacketInfo::MALFORMED;
    };
    let mut info = PacketInfo {
        class: PacketClass::Other,
        protocol,
        src: Some(src),
        dst: Some(dst),
        src_port: 0,
        dst_port: 0,
        ssrc: None,
    };
    match protocol {
        PROTO_UDP => match udp(payload) {
            Some((sp, dp, body)) => {
                info.src_port = sp;
                info.dst_port = dp;
                let (class, ssrc) = demux_udp(body);
                info.class = class;
                info.ssrc = ssrc;
            }
            None => info.class = PacketClass::Malformed,
        },
        PROTO_TCP => match ports(payload) {
            Some((sp, dp)) => {
                info.src_port = sp;
                info.dst_port = dp;
                info.class = PacketClass::Tcp;
            }
            None => info.class = PacketClass::Malformed,
        },
        _ => {}
    }
    info
}

/// (protocol, source, destination, transport bytes) of an IPv4 packet (RFC 791 3.1).
fn ipv4(p: &[u8]) -> Option<(u8, IpAddr, IpAddr, &[u8])> {
    let ihl = usize::from(p.first()? & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([*p.get(2)?, *p.get(3)?]));
    if ihl < 20 || total < ihl || total > p.len() {
        return None;
    }
    let src = Ipv4Addr::new(p[12], p[13], p[14], p[15]);
    let dst = Ipv4Addr::new(p[16], p[17], p[18], p[19]);
    // A non-first fragment carries no transport header.
    let fragment_offset = u16::from_be_bytes([p[6], p[7]]) & 0x1fff;
    let body = if fragment_offset == 0 {
        &p[ihl..total]
    } else {
        &[]
    };
    Some((p[9], src.into(), dst.into(), body))
}

/// (next header, source, destination, payload) of an IPv6 packet (RFC 8200 3);
/// extension headers are not followed (their protocol shows as `Other`).
fn ipv6(p: &[u8]) -> Option<(u8, IpAddr, IpAddr, &[u8])> {
    let payload_len = usize::from(u16::from_be_bytes([*p.get(4)?, *p.get(5)?]));
    let end = 40usize.checked_add(payload_len)?;
    if p.len() < end {
        return None;
    }
    let src: [u8; 16] = p[8..24].try_into().ok()?;
    let dst: [u8; 16] = p[24..40].try_into().ok()?;
    Some((
        p[6],
        Ipv6Addr::from(src).into(),
        Ipv6Addr::from(dst).into(),
        &p[40..end],
    ))
}

/// Source and destination port, the first four bytes of UDP and TCP headers.
fn ports(t: &[u8]) -> Option<(u16, u16)> {
    Some((
        u16::from_be_bytes([*t.first()?, *t.get(1)?]),
        u16::from_be_bytes([*t.get(2)?, *t.get(3)?]),
    ))
}

/// Ports and payload of a UDP datagram (RFC 768).
fn udp(t: &[u8]) -> Option<(u16, u16, &[u8])> {
    let (sp, dp) = ports(t)?;
    let len = usize::from(u16::from_be_bytes([*t.get(4)?, *t.get(5)?]));
    if len < 8 || len > t.len() {
        return None;
    }
    Some((sp, dp, &t[8..len]))
}

/// RFC 7983 section 7's demultiplexing of a UDP payload by its first byte, with RTP
/// and RTCP told apart by the packet type (RFC 5761 section 4).
fn demux_udp(b: &[u8]) -> (PacketClass, Option<u32>) {
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
    };
    match b.first() {
        Some(0..=3) => (PacketClass::Stun, None),
        Some(20..=63) => (PacketClass::Dtls, None),
        Some(128..=191) => match b.get(1) {
            Some(pt) if (192..=223).contains(pt) => (PacketClass::Rtcp, word(4)),
            Some(_) if b.len() >= 12 => (PacketClass::Rtp, word(8)),
            _ => (PacketClass::Malformed, None),
        },
        _ => (PacketClass::UdpOther, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An IPv4 packet from 10.0.0.1 to 10.0.0.2 with protocol `proto` and `transport`.
    fn v4(proto: u8, transport: &[u8]) -> Vec<u8> {
        let total = (20 + transport.len()) as u16;
        let mut p = vec![
            0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
        ];
        p[2..4].copy_from_slice(&total.to_be_bytes());
        p.extend_from_slice(transport);
        p
    }

    fn udp_with(payload: &[u8]) -> Vec<u8> {
        let mut u = vec![0x13, 0x88, 0x17, 0x70];
        u.extend_from_slice(&((8 + payload.len()) as u16).to_be_bytes());
        u.extend_from_slice(&[0, 0]);
        u.extend_from_slice(payload);
        v4(PROTO_UDP, &u)
    }

    #[test]
    fn rtp_carries_its_ssrc_rfc3550_5_1() {
        // V=2, PT 96, seq 1, timestamp 0, SSRC 0xdeadbeef, then payload.
        let rtp = [0x80, 96, 0, 1, 0, 0, 0, 0, 0xde, 0xad, 0xbe, 0xef, 1, 2, 3];
        let i = classify(&udp_with(&rtp));
        assert_eq!(i.class, PacketClass::Rtp);
        assert_eq!(i.ssrc, Some(0xdead_beef));
        assert_eq!((i.src_port, i.dst_port), (5000, 6000));
        assert_eq!(i.src, Some(IpAddr::from([10, 0, 0, 1])));
        assert_eq!(i.dst, Some(IpAddr::from([10, 0, 0, 2])));
        // RTP with the marker bit and PT 100 (second byte 0xe4 = 228) is still RTP.
        let marked = [0x80, 0xe4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 7];
        assert_eq!(classify(&udp_with(&marked)).class, PacketClass::Rtp);
    }

    #[test]
    fn rtcp_packet_types_192_to_223_rfc5761_4() {
        for pt in [192u8, 200, 201, 205, 206, 223] {
            let rtcp = [0x81, pt, 0, 7, 0, 0, 0, 42, 0, 0, 0, 0];
            let i = classify(&udp_with(&rtcp));
            assert_eq!(i.class, PacketClass::Rtcp, "pt {pt}");
            assert_eq!(i.ssrc, Some(42));
        }
    }

    #[test]
    fn first_byte_ranges_rfc7983_7() {
        for (first, class) in [
            (0u8, PacketClass::Stun),
            (1, PacketClass::Stun),
            (3, PacketClass::Stun),
            (4, PacketClass::UdpOther),
            (19, PacketClass::UdpOther),
            (20, PacketClass::Dtls),
            (23, PacketClass::Dtls),
            (63, PacketClass::Dtls),
            (64, PacketClass::UdpOther),
            (127, PacketClass::UdpOther),
            (192, PacketClass::UdpOther),
        ] {
            let payload = [first, 0xfe, 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0];
            assert_eq!(
                classify(&udp_with(&payload)).class,
                class,
                "first byte {first}"
            );
        }
        assert_eq!(classify(&udp_with(&[])).class, PacketClass::UdpOther);
    }

    #[test]
    fn tcp_by_ports_and_other_protocols() {
        let tcp = [
            0x1b, 0x58, 0xc3, 0x50, 0, 0, 0, 0, 0, 0, 0, 0, 0x50, 0x10, 0, 0, 0, 0, 0, 0,
        ];
        let i = classify(&v4(PROTO_TCP, &tcp));
        assert_eq!(i.class, PacketClass::Tcp);
        assert_eq!((i.src_port, i.dst_port), (7000, 50000));
        assert_eq!(classify(&v4(1, &[8, 0, 0, 0])).class, PacketClass::Other);
    }

    #[test]
    fn ipv6_udp() {
        let mut p = vec![0x60, 0, 0, 0, 0, 20, PROTO_UDP, 64];
        p.extend_from_slice(&[0; 15]);
        p.push(1);
        p.extend_from_slice(&[0; 15]);
        p.push(2);
        p.extend_from_slice(&[0x13, 0x88, 0x17, 0x70, 0, 20, 0, 0]);
        p.extend_from_slice(&[0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9]);
        let i = classify(&p);
        assert_eq!(i.class, PacketClass::Rtp);
        assert_eq!(i.ssrc, Some(9));
        assert_eq!(i.src, Some(IpAddr::from(Ipv6Addr::LOCALHOST)));
    }

    #[test]
    fn malformed_packets_are_named_not_misread() {
        assert_eq!(classify(&[]).class, PacketClass::Malformed);
        assert_eq!(classify(&[0x45, 0, 0]).class, PacketClass::Malformed);
        // Total length beyond the bytes given.
        let mut p = udp_with(&[0x80; 12]);
        p[3] = p[3].wrapping_add(10);
        assert_eq!(classify(&p).class, PacketClass::Malformed);
        // UDP length beyond the IP payload.
        let mut p = udp_with(&[0x80; 12]);
        p[25] = 200;
        assert_eq!(classify(&p).class, PacketClass::Malformed);
        // RTP too short for its SSRC.
        assert_eq!(
            classify(&udp_with(&[0x80, 96, 0])).class,
            PacketClass::Malformed
        );
        // Version 5.
        assert_eq!(classify(&[0x50; 40]).class, PacketClass::Malformed);
    }

    #[test]
    fn flow_hash_tells_5_tuples_apart_and_is_stable() {
        let a = classify(&udp_with(&[0x80, 96, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9]));
        let b = classify(&udp_with(&[0x80, 96, 0, 2, 0, 0, 0, 0, 0, 0, 0, 7]));
        assert_eq!(a.flow_hash(), b.flow_hash(), "same 5-tuple, same flow");
        let mut other_port = udp_with(&[0x80; 12]);
        other_port[21] = 0x89; // source port 5001
        assert_ne!(classify(&other_port).flow_hash(), a.flow_hash());
        let tcp = classify(&v4(PROTO_TCP, &[0x13, 0x88, 0x17, 0x70, 0, 0, 0, 0]));
        assert_ne!(tcp.flow_hash(), a.flow_hash(), "the protocol counts");
        // FNV-1a of fixed bytes: the same value on every host and run.
        assert_eq!(a.flow_hash(), 1_761_920_781);
        assert_eq!(
            PacketInfo::MALFORMED.flow_hash(),
            PacketInfo::MALFORMED.flow_hash()
        );
    }

    proptest! {
        /// Any bytes: a class, no panic; a class other than Malformed/Other has ports.
        #[test]
        fn never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let i = classify(&bytes);
            if matches!(i.class, PacketClass::Rtp | PacketClass::Rtcp) {
                prop_assert!(i.ssrc.is_some());
            }
        }

        /// Any UDP payload is classified by its first byte alone (RFC 7983), except
        /// RTP/RTCP which also need a complete header.
        #[test]
        fn udp_payload_class_follows_the_first_byte(payload in proptest::collection::vec(any::<u8>(), 1..100)) {
            let c = classify(&udp_with(&payload)).class;
            match payload[0] {
                0..=3 => prop_assert_eq!(c, PacketClass::Stun),
                20..=63 => prop_assert_eq!(c, PacketClass::Dtls),
                128..=191 => prop_assert!(matches!(c, PacketClass::Rtp | PacketClass::Rtcp | PacketClass::Malformed)),
                _ => prop_assert_eq!(c, PacketClass::UdpOther),
            }
        }
    }
}
