use super::*;
use std::net::UdpSocket;
use std::time::Duration;

#[test]
fn each_class_is_captured_on_its_own_port() {
    assert_eq!(pcap_ports(Class::Rtp), PCAP_RTP_PORT);
    assert_eq!(pcap_ports(Class::Rtcp), PCAP_RTCP_PORT);
    assert_eq!(pcap_ports(Class::Sctp), PCAP_SCTP_PORT);
    assert_eq!(pcap_ports(Class::Utp), PCAP_UTP_PORT);
    let mut ports = [PCAP_RTP_PORT, PCAP_RTCP_PORT, PCAP_SCTP_PORT, PCAP_UTP_PORT];
    ports.sort_unstable();
    ports.windows(2).for_each(|w| assert_ne!(w[0], w[1]));
}

#[test]
fn a_datagram_that_does_not_decode_is_counted_malformed() {
    let mut stats = SideStats::default();
    assert_eq!(stats.count_decoded(Ok::<u8, ()>(7)), Some(7));
    assert_eq!(stats.malformed, 0);
    assert_eq!(stats.count_decoded(Err::<u8, _>("truncated")), None);
    assert_eq!(stats.count_decoded(Err::<u8, _>("bad checksum")), None);
    assert_eq!(stats.malformed, 2);
    // Nothing else is counted here (received, decoded and foreign are the loops').
    assert_eq!(
        stats,
        SideStats {
            malformed: 2,
            ..SideStats::default()
        }
    );
}

/// A side sends with the codepoint asked for; the other reads it from the kernel,
/// counts ECN-capable and CE datagrams, and both captures show it in the TOS byte.
#[cfg(target_os = "linux")]
#[test]
fn the_codepoint_sent_is_the_codepoint_received_and_captured() {
    use flowstate_core::Ecn;
    use std::time::Instant;
    let a = UdpSocket::bind("127.0.0.1:0").expect("bind");
    let b = UdpSocket::bind("127.0.0.1:0").expect("bind");
    flowstate_emu::ecn_socket::receive_traffic_class(&b).expect("IP_RECVTOS");
    let io = |sock: UdpSocket, peer| Io {
        sock,
        peer,
        stats: SideStats::default(),
        pcap: PcapWriter::new(),
        buf: vec![0; MAX_DATAGRAM],
    };
    let (a_addr, b_addr) = (a.local_addr().expect("addr"), b.local_addr().expect("addr"));
    let (mut tx, mut rx) = (io(a, b_addr), io(b, a_addr));
    let clock = Clock(Instant::now());
    let mut got = Vec::new();
    for e in Ecn::ALL {
        tx.send_ecn(Timestamp::ZERO, Class::Sctp, &[e.bits(); 30], e);
        let (_, bytes, ecn) = rx
            .recv(&clock, Duration::from_secs(2))
            .expect("datagram on loopback");
        assert_eq!(bytes, vec![e.bits(); 30]);
        got.push(ecn);
    }
    tx.send(Timestamp::ZERO, Class::Sctp, &[9; 30]);
    got.push(rx.recv(&clock, Duration::from_secs(2)).expect("datagram").2);
    assert_eq!(
        got,
        vec![Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce, Ecn::NotEct]
    );
    assert_eq!(
        (rx.stats.ecn_capable_received, rx.stats.ce_received),
        (3, 1)
    );
    // The TOS byte of each capture record (global header 24 bytes, record header 16,
    // datagram of 20 + 8 + 30 bytes).
    for pcap in [tx.pcap.into_bytes(), rx.pcap.into_bytes()] {
        let tos: Vec<u8> = (0..5).map(|k| pcap[24 + k * (16 + 58) + 16 + 1]).collect();
        assert_eq!(tos, vec![0, 1, 2, 3, 0]);
    }
}
