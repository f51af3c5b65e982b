use super::super::sender_loop::rtcp_media_ssrc;
use super::super::test_support::{flows, KINDS};
use super::*;
use flowstate_core::TimeDelta;

fn ms(v: u64) -> Timestamp {
    Timestamp::from_millis(v)
}

/// The first datagram flow `i`'s sender sends, its timers run every millisecond from
/// the flow's start.
fn first_datagram(f: &mut TxFlow, i: usize) -> (Timestamp, Class, Vec<u8>) {
    let start = f.setup.start;
    for k in 0..2_000 {
        let now = start + TimeDelta::millis(k);
        if f.kind.sender_timeout().is_some_and(|t| t <= now) {
            with_sender!(f, s => s.handle_timeout(now));
        }
        if let Some((_, class, bytes)) = f.kind.poll_datagram(i, now) {
            return (now, class, bytes);
        }
    }
    panic!("flow {i} sent nothing in 2 s");
}

/// The first datagram flow `i`'s receiver answers with, its timers run every
/// millisecond from `from`.
fn first_answer(r: &mut RxKind, i: usize, from: Timestamp) -> (Class, Vec<u8>) {
    for k in 0..2_000 {
        let now = from + TimeDelta::millis(k);
        if r.poll_timeout().is_some_and(|t| t <= now) {
            r.handle_timeout(now);
        }
        if let Some(answer) = r.poll_datagram(i, now) {
            return answer;
        }
    }
    panic!("flow {i}'s receiver answered nothing in 2 s");
}

#[test]
fn each_kind_has_its_sender_and_receiver() {
    let f = flows(KINDS).expect("every kind is wired");
    let kinds: Vec<(&TxKind, &RxKind)> = f.iter().map(|(t, r)| (&t.kind, r)).collect();
    assert!(matches!(kinds[0], (TxKind::Gcc(..), RxKind::Gcc(..))));
    assert!(matches!(kinds[1], (TxKind::Sctp(_), RxKind::Sctp(_))));
    assert!(matches!(kinds[2], (TxKind::Nada(..), RxKind::Ccfb(_))));
    assert!(matches!(kinds[3], (TxKind::Scream(..), RxKind::Ccfb(_))));
    assert!(matches!(
        kinds[4],
        (TxKind::Ledbat(_, 0, _), RxKind::Ledbat(_))
    ));
    // RTP arrives at the media receivers; the transfers count their goodput.
    let media: Vec<bool> = f.iter().map(|(_, r)| r.is_media()).collect();
    assert_eq!(media, [true, false, true, true, false]);
    let goodput: Vec<bool> = f.iter().map(|(_, r)| r.reports_goodput()).collect();
    assert_eq!(goodput, [false, true, false, false, true]);
    let delivered: Vec<Option<u64>> = f
        .iter()
        .map(|(_, r)| r.bytes_delivered().map(|d| d.as_bytes()))
        .collect();
    assert_eq!(delivered, [None, Some(0), None, None, Some(0)]);
}

#[test]
fn a_kind_the_testbed_does_not_run_is_refused_in_one_line() {
    let text = KINDS.replace("kind = \"scream\"", "kind = \"tfrc\"");
    let Err(TestbedError::Unsupported(e)) = flows(&text) else {
        panic!("tfrc is not wired into the testbed");
    };
    assert!(e.starts_with("flows[3].kind: 'tfrc' is not wired"), "{e}");
    assert!(!e.contains('\n'));
}

#[test]
fn each_sender_sends_its_class_for_its_flow_and_its_receiver_answers_in_kind() {
    let mut f = flows(KINDS).expect("every kind is wired");
    let sent = [Class::Rtp, Class::Sctp, Class::Rtp, Class::Rtp, Class::Utp];
    let answers = [
        Class::Rtcp,
        Class::Sctp,
        Class::Rtcp,
        Class::Rtcp,
        Class::Utp,
    ];
    for (i, (tx, rx)) in f.iter_mut().enumerate() {
        let (now, class, bytes) = first_datagram(tx, i);
        assert_eq!(class, sent[i], "flow {i}");
        // What the receiver's loop reads the datagram as, and the flow it goes to.
        assert_eq!(codec::classify(&bytes), Some(class), "flow {i}");
        let arrival = now + TimeDelta::millis(20);
        match (class, &mut *rx) {
            (Class::Rtp, RxKind::Gcc(r, _)) => {
                let p = codec::decode_rtp(&bytes).expect("RTP");
                assert_eq!(codec::flow_of_ssrc(p.ssrc), Some(i));
                r.handle_input(arrival, p);
            }
            (Class::Rtp, RxKind::Ccfb(r)) => {
                let p = codec::decode_rtp(&bytes).expect("RTP");
                assert_eq!(codec::flow_of_ssrc(p.ssrc), Some(i));
                r.handle_input(arrival, p);
            }
            (Class::Sctp, RxKind::Sctp(r)) => {
                let (flow, m) = codec::decode_sctp(&bytes).expect("SCTP");
                assert_eq!(flow, i);
                let SctpMessage::Data { chunk, .. } = m else {
                    panic!("a DATA chunk, got {m:?}");
                };
                r.handle_input(arrival, chunk);
            }
            (Class::Utp, RxKind::Ledbat(r)) => {
                let (flow, seg, packet) = codec::decode_ledbat_segment(&bytes).expect("uTP");
                assert_eq!((flow, packet), (i, 0));
                r.handle_input(arrival, seg);
            }
            (c, _) => panic!("flow {i}: a {c:?} datagram for another receiver"),
        }
        let (class, answer) = first_answer(rx, i, arrival);
        assert_eq!(class, answers[i], "flow {i}");
        assert_eq!(codec::classify(&answer), Some(class), "flow {i}");
        let flow = match class {
            Class::Rtcp => rtcp_media_ssrc(&answer).and_then(codec::flow_of_ssrc),
            Class::Sctp => codec::decode_sctp(&answer).ok().map(|(flow, _)| flow),
            Class::Utp => codec::utp_flow(&answer),
            Class::Rtp => None,
        };
        assert_eq!(flow, Some(i), "flow {i}'s answer goes back to it");
    }
}

#[test]
fn a_ledbat_sender_numbers_its_datagrams() {
    let mut f = flows(KINDS).expect("every kind is wired");
    let (tx, _) = &mut f[4];
    let (now, _, first) = first_datagram(tx, 4);
    let mut packets = vec![codec::decode_ledbat_segment(&first).expect("uTP").2];
    while let Some((_, _, bytes)) = tx.kind.poll_datagram(4, now) {
        packets.push(codec::decode_ledbat_segment(&bytes).expect("uTP").2);
    }
    assert!(packets.len() >= 2, "{packets:?}");
    assert!(
        packets.iter().enumerate().all(|(k, &p)| p == k as u64),
        "{packets:?}"
    );
}

#[test]
fn an_sctp_flow_runs_once_its_association_is_up() {
    let mut f = flows(KINDS).expect("every kind is wired");
    let (sctp, _) = &mut f[1];
    assert!(!sctp.runs(), "idle");
    sctp.state = FlowState::Active;
    sctp.assoc = Assoc::InitSent;
    sctp.handshake_at = Some(ms(1_500));
    assert!(!sctp.runs());
    // Only the handshake's timer while the association is not up.
    assert_eq!(sctp.poll_timeout(), Some(ms(1_500)));
    sctp.assoc = Assoc::Established;
    sctp.handshake_at = None;
    assert!(sctp.runs());
    assert_eq!(sctp.poll_timeout(), sctp.kind.sender_timeout());
    sctp.state = FlowState::Stopped;
    assert!(!sctp.runs());
    assert_eq!(sctp.poll_timeout(), None);
    // A media flow runs while it is active, whatever its (unused) association.
    let (gcc, _) = &mut f[0];
    gcc.state = FlowState::Active;
    assert!(gcc.runs());
    assert_eq!(gcc.poll_timeout(), gcc.kind.sender_timeout());
    assert!(gcc.poll_timeout().is_some());
}

#[test]
fn the_handshake_timer_resends_the_chunk_of_its_state() {
    assert_eq!(Assoc::InitSent.handshake_message(), Some(SctpMessage::Init));
    assert_eq!(
        Assoc::CookieEchoed.handshake_message(),
        Some(SctpMessage::CookieEcho)
    );
    for a in [
        Assoc::Closed,
        Assoc::Established,
        Assoc::ShutdownSent,
        Assoc::Done,
    ] {
        assert_eq!(a.handshake_message(), None, "{a:?}");
    }
}
