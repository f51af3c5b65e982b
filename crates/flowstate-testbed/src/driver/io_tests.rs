use super::*;

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
