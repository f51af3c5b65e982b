//! Round-trip properties: for every message kind, an arbitrary `Repr`
//! emits exactly `buffer_len()` bytes and parses back to itself.

mod common;

use common::*;
use flowstate_wire::rtcp::{Compound, RtcpPacket};
use flowstate_wire::rtp::RtpPacket;
use flowstate_wire::sctp::{Chunk, InitAckChunk, SctpPacket};
use proptest::collection::vec;
use proptest::prelude::*;

fn rtcp_round_trip(p: RtcpPacket) -> Result<(), TestCaseError> {
    let bytes = p.to_vec().map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(bytes.len(), p.buffer_len());
    prop_assert_eq!(bytes.len() % 4, 0);
    prop_assert_eq!(RtcpPacket::parse(&bytes), Ok(p));
    Ok(())
}

fn sctp_round_trip(p: SctpPacket) -> Result<(), TestCaseError> {
    let bytes = p.to_vec().map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(bytes.len(), p.buffer_len());
    prop_assert_eq!(bytes.len() % 4, 0);
    prop_assert_eq!(SctpPacket::parse(&bytes), Ok(p));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn rtp_round_trip(p in rtp_packet()) {
        let bytes = p.to_vec().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(bytes.len(), p.buffer_len());
        prop_assert_eq!(RtpPacket::parse(&bytes), Ok(p));
    }

    #[test]
    fn rtp_transport_cc_seq_round_trip(mut p in rtp_packet(), id in 1u8..=14, seq: u16) {
        // Only packets whose extension accepts the id.
        let ok = p.set_transport_cc_seq(id, seq).is_ok();
        prop_assume!(ok);
        let q = RtpPacket::parse(&p.to_vec().unwrap()).unwrap();
        prop_assert_eq!(q.transport_cc_seq(id), Some(seq));
    }

    #[test]
    fn receiver_report_round_trip(p in receiver_report()) {
        rtcp_round_trip(RtcpPacket::ReceiverReport(p))?;
    }

    #[test]
    fn remb_round_trip(p in remb()) {
        rtcp_round_trip(RtcpPacket::Remb(p))?;
    }

    #[test]
    fn transport_feedback_round_trip(p in transport_feedback()) {
        rtcp_round_trip(RtcpPacket::TransportFeedback(p))?;
    }

    #[test]
    fn congestion_control_feedback_round_trip(p in congestion_control_feedback()) {
        rtcp_round_trip(RtcpPacket::CongestionControlFeedback(p))?;
    }

    #[test]
    fn other_rtcp_round_trip(p in other_rtcp()) {
        rtcp_round_trip(p)?;
    }

    #[test]
    fn compound_round_trip(c in compound()) {
        let bytes = c.to_vec().map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(bytes.len(), c.buffer_len());
        prop_assert_eq!(Compound::parse(&bytes), Ok(c));
    }

    #[test]
    fn sctp_data_round_trip(p in sctp_packet_with(data_chunk().prop_map(Chunk::Data))) {
        sctp_round_trip(p)?;
    }

    #[test]
    fn sctp_init_round_trip(p in sctp_packet_with(init().prop_map(Chunk::Init))) {
        sctp_round_trip(p)?;
    }

    #[test]
    fn sctp_init_ack_round_trip(p in sctp_packet_with(
        (init(), vec(any::<u8>(), 0..64)).prop_map(|(init, cookie)| Chunk::InitAck(InitAckChunk { init, cookie })))) {
        sctp_round_trip(p)?;
    }

    #[test]
    fn sctp_sack_round_trip(p in sctp_packet_with(sack().prop_map(Chunk::Sack))) {
        sctp_round_trip(p)?;
    }

    #[test]
    fn sctp_unknown_round_trip(p in sctp_packet_with(unknown_chunk().prop_map(Chunk::Unknown))) {
        sctp_round_trip(p)?;
    }

    #[test]
    fn sctp_mixed_round_trip(p in sctp_packet()) {
        sctp_round_trip(p)?;
    }
}

/// The control chunks without fields, enumerated (proptest would only
/// repeat them).
#[test]
fn sctp_control_chunks_round_trip() {
    let chunks = vec![
        Chunk::Shutdown {
            cum_tsn_ack: 0xDEAD_BEEF,
        },
        Chunk::ShutdownAck,
        Chunk::CookieEcho {
            cookie: vec![1, 2, 3, 4, 5],
        },
        Chunk::CookieAck,
        Chunk::EcnEcho {
            lowest_tsn: 0x0102_0304,
        },
        Chunk::Cwr { lowest_tsn: 7 },
        Chunk::ShutdownComplete { t_flag: true },
        Chunk::ShutdownComplete { t_flag: false },
        Chunk::Abort {
            t_flag: true,
            causes: vec![],
        },
    ];
    for c in chunks {
        let p = SctpPacket {
            src_port: 5000,
            dst_port: 5000,
            verification_tag: 7,
            chunks: vec![c],
        };
        let bytes = p.to_vec().unwrap();
        assert_eq!(bytes.len(), p.buffer_len());
        assert_eq!(SctpPacket::parse(&bytes), Ok(p));
    }
}
