use super::super::test_support::{flows, KINDS};
use super::*;
use crate::codec::FeedbackEncoder;
use flowstate_core::endpoint::media::{MediaFeedback, PacketArrival};
use flowstate_core::endpoint::rfc8888::CcfbReport;
use flowstate_core::Bitrate;
use flowstate_wire::rtcp::Compound;

fn s(v: u64) -> Timestamp {
    Timestamp::from_secs(v)
}

/// The first RTCP packet of compound `bytes` alone (the encoder follows transport
/// feedback and REMB with a receiver report of the same SSRC).
fn first_packet_only(bytes: &[u8]) -> Vec<u8> {
    let mut c = Compound::parse(bytes).expect("RTCP");
    c.packets.truncate(1);
    c.to_vec().expect("RTCP")
}

#[test]
fn the_loop_wakes_for_the_next_start_or_timer_at_the_latest_at_the_end() {
    let mut f: Vec<TxFlow> = flows(KINDS)
        .expect("every kind is wired")
        .into_iter()
        .map(|(t, _)| t)
        .collect();
    // All idle: the first start (gcc at 0 s), then the next ones as flows start.
    assert_eq!(next_wakeup(&f, s(10)), s(0));
    f[0].state = FlowState::Stopped;
    assert_eq!(next_wakeup(&f, s(10)), s(1));
    f[1].state = FlowState::Stopped;
    f[2].state = FlowState::Stopped;
    assert_eq!(next_wakeup(&f, s(10)), s(3));
    // A running flow's timer counts; an earlier end cuts every deadline.
    f[3].state = FlowState::Active;
    let timer = f[3].kind.sender_timeout().expect("a media sender's timer");
    assert_eq!(next_wakeup(&f, s(10)), timer.min(s(4)));
    assert_eq!(next_wakeup(&f, Timestamp::ZERO), Timestamp::ZERO);
    // Nothing left to start or run: the end.
    for x in &mut f {
        x.state = FlowState::Stopped;
    }
    assert_eq!(next_wakeup(&f, s(10)), s(10));
}

#[test]
fn rtcp_goes_to_the_flow_of_its_media_ssrc() {
    let mut enc = FeedbackEncoder::default();
    let rr = enc.encode(&MediaFeedback::ReceiverReport {
        ssrc: 3,
        fraction_lost: 0.0,
        cumulative_lost: 0,
        highest_seq: 10,
        echo: None,
    });
    assert_eq!(rtcp_media_ssrc(&rr), Some(3));
    let twcc = enc.encode(&MediaFeedback::TransportFeedback {
        ssrc: 2,
        packets: vec![PacketArrival {
            transport_seq: 5,
            arrival_time: Timestamp::from_millis(10),
        }],
        echo: None,
    });
    assert_eq!(rtcp_media_ssrc(&first_packet_only(&twcc)), Some(2));
    let remb = enc.encode(&MediaFeedback::Remb {
        ssrc: 4,
        bitrate: Bitrate::kbps(500.0),
        echo: None,
    });
    assert_eq!(rtcp_media_ssrc(&first_packet_only(&remb)), Some(4));
    let ccfb = codec::encode_ccfb(&CcfbReport {
        ssrc: 5,
        begin_seq: 0,
        packets: vec![None],
        report_time: Timestamp::from_millis(10),
    });
    assert_eq!(rtcp_media_ssrc(&ccfb), Some(5));
    // The simulator numbers SSRCs from 1: SSRC 3 is flow 2's.
    assert_eq!(codec::flow_of_ssrc(3), Some(2));
    // Not RTCP, or cut short: no flow (counted malformed by the loop).
    assert_eq!(rtcp_media_ssrc(&[]), None);
    assert_eq!(rtcp_media_ssrc(&rr[..rr.len() - 3]), None);
}
