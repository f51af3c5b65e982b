use super::*;

fn t(ms: u64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn chunk(tsn: u64) -> DataChunk {
    DataChunk {
        tsn,
        message_id: 0,
        stream_offset: (tsn - 1) * 1172,
        payload_len: 1172,
        begin: tsn == 1,
        end: false,
        immediate_ack: false,
        cwr: None,
    }
}

#[test]
fn receiver_sacks_a_chunk_with_the_i_bit_at_once_rfc7053_5_2() {
    let mut r = SctpReceiver::new(SctpReceiverConfig::default());
    r.handle_input(
        t(0),
        DataChunk {
            immediate_ack: true,
            ..chunk(1)
        },
    );
    let s = r.poll_transmit(t(0)).expect("immediate sack").message;
    assert_eq!(s.cum_tsn, 1);
    // Without the bit the next single packet waits for the delayed-SACK timer.
    r.handle_input(t(1), chunk(2));
    assert!(r.poll_transmit(t(1)).is_none());
}

#[test]
fn receiver_sacks_every_second_packet_rfc9260_6_2() {
    let mut r = SctpReceiver::new(SctpReceiverConfig::default());
    r.handle_input(t(0), chunk(1));
    assert!(r.poll_transmit(t(0)).is_none());
    assert_eq!(r.poll_timeout(), Some(t(200)));
    r.handle_input(t(1), chunk(2));
    let s = r.poll_transmit(t(1)).expect("sack").message;
    assert_eq!(s.cum_tsn, 2);
    assert_eq!(r.poll_timeout(), None);
}

#[test]
fn receiver_delayed_sack_after_200ms_rfc9260_6_2() {
    let mut r = SctpReceiver::new(SctpReceiverConfig::default());
    r.handle_input(t(0), chunk(1));
    r.handle_timeout(t(199));
    assert!(r.poll_transmit(t(199)).is_none());
    r.handle_timeout(t(200));
    assert_eq!(r.poll_transmit(t(200)).expect("sack").message.cum_tsn, 1);
}

#[test]
fn receiver_reports_gaps_and_duplicates_immediately_rfc9260_6_7() {
    let mut r = SctpReceiver::new(SctpReceiverConfig::default());
    r.handle_input(t(0), chunk(1));
    r.handle_input(t(0), chunk(3));
    let s = r.poll_transmit(t(0)).expect("sack on gap").message;
    assert_eq!(s.cum_tsn, 1);
    assert_eq!(s.gap_blocks.as_slice(), [(2, 2)]);
    r.handle_input(t(1), chunk(5));
    r.handle_input(t(1), chunk(6));
    let s = r.poll_transmit(t(1)).expect("sack").message;
    assert_eq!(s.gap_blocks.as_slice(), [(2, 2), (4, 5)]);
    // A few gaps stay inside the SACK: building it allocated nothing.
    assert!(!s.gap_blocks.spilled());
    // a_rwnd = 1 MiB - 4 buffered chunks: 3 out of order, and TSN 1, which starts a
    // message not yet complete (held until its last chunk arrives).
    assert_eq!(s.a_rwnd, (1 << 20) - 4 * 1172);
    r.handle_input(t(2), chunk(1));
    let s = r.poll_transmit(t(2)).expect("sack on duplicate").message;
    assert_eq!(s.dup_tsns.as_slice(), [1]);
    let sz = s.wire_size(DataSize::ZERO);
    assert_eq!(sz, DataSize::bytes(12 + 16 + 8 + 4));
}

#[test]
fn receiver_reports_more_gaps_than_a_sack_holds_inline() {
    // Six gaps (TSNs 3, 5, ..., 13 above cum 1): beyond the four held inline, all
    // reported, in order, and counted in the wire size.
    let mut r = SctpReceiver::new(SctpReceiverConfig::default());
    r.handle_input(t(0), chunk(1));
    for tsn in (3..=13).step_by(2) {
        r.handle_input(t(0), chunk(tsn));
    }
    let s = r.poll_transmit(t(0)).expect("sack on gaps").message;
    assert_eq!(
        s.gap_blocks.as_slice(),
        [(2, 2), (4, 4), (6, 6), (8, 8), (10, 10), (12, 12)]
    );
    assert!(s.gap_blocks.spilled());
    assert_eq!(
        s.wire_size(DataSize::ZERO),
        DataSize::bytes(12 + 16 + 6 * 4)
    );
}
