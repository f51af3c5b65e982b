use super::*;
use crate::endpoint::rfc8888::{CcfbArrival, CcfbReport};
use std::cell::RefCell;
use std::rc::Rc;

/// Records every batch and answers the rates in `answers`, in order (then the last).
struct Script {
    seen: Rc<RefCell<Vec<FeedbackBatch>>>,
    answers: Vec<RateDecision>,
    outside: Option<RateDecision>,
}

impl RateDecider for Script {
    fn decide(&mut self, batch: &FeedbackBatch) -> Result<RateDecision, DecideError> {
        self.seen.borrow_mut().push(batch.clone());
        let n = self.seen.borrow().len();
        Ok(self.answers[(n - 1).min(self.answers.len() - 1)])
    }
    fn poll_decision(&mut self, _now: Timestamp) -> Option<RateDecision> {
        self.outside.take()
    }
}

fn bps(v: f64) -> RateDecision {
    RateDecision {
        target_bps: v,
        pacing_bps: None,
    }
}

fn sender(answers: Vec<RateDecision>) -> (ExternalSender, Rc<RefCell<Vec<FeedbackBatch>>>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let s = ExternalSender::new(
        ExternalConfig::default(),
        1,
        Timestamp::ZERO,
        Box::new(Script {
            seen: seen.clone(),
            answers,
            outside: None,
        }),
    );
    (s, seen)
}

fn ms(v: u64) -> Timestamp {
    Timestamp::from_millis(v)
}

/// Send every packet due up to `until_ms`, one poll per ms.
fn send_until(s: &mut ExternalSender, until_ms: u64) -> Vec<(u64, Timestamp)> {
    let mut sent = Vec::new();
    for t in 0..=until_ms {
        while let Some(tx) = s.poll_transmit(ms(t)) {
            sent.push((tx.message.sequence_number, tx.message.send_time));
            assert_eq!(tx.size, DataSize::bytes(1200));
        }
    }
    sent
}

fn report(begin: u64, arrivals: &[Option<u64>], at_ms: u64) -> CcfbReport {
    CcfbReport {
        ssrc: 1,
        begin_seq: begin,
        packets: arrivals
            .iter()
            .map(|a| {
                a.map(|t| CcfbArrival {
                    arrival: ms(t),
                    ecn: 0b11,
                })
            })
            .collect(),
        report_time: ms(at_ms),
    }
}

#[test]
fn it_paces_at_the_initial_rate() {
    let (mut s, _) = sender(vec![bps(1e6)]);
    // 300 kbit/s, 1200 B: one packet every 32 ms.
    let sent = send_until(&mut s, 100);
    let times: Vec<u64> = sent.iter().map(|p| p.1.as_micros() / 1000).collect();
    assert_eq!(times, [0, 32, 64, 96]);
}

#[test]
fn a_report_is_one_batch_and_one_decision() {
    let (mut s, seen) = sender(vec![bps(2e6)]);
    send_until(&mut s, 100);
    // Packets 0, 1, 3 arrived, 2 lost; the report comes back at 140 ms.
    s.handle_input(
        ms(140),
        report(0, &[Some(20), Some(52), None, Some(116)], 120),
    );
    let batches = seen.borrow();
    let b = &batches[0];
    assert_eq!(b.now, ms(140));
    assert_eq!(b.packets.len(), 4);
    assert_eq!(b.packets[1].sent, ms(32));
    assert_eq!(b.packets[1].arrival, Some(ms(52)));
    assert_eq!(b.packets[2].arrival, None);
    assert_eq!(b.packets[2].ecn, 0);
    assert_eq!(b.packets[3].ecn, 0b11);
    assert_eq!(b.target, Bitrate::kbps(300.0));
    // Newest arrival: seq 3 sent at 96, held 4 ms at the receiver, back at 140: 40 ms.
    assert_eq!(b.rtt, Some(TimeDelta::millis(40)));
    assert_eq!(s.target(), Bitrate::mbps(2.0));
    assert_eq!(s.decisions(), 1);
    assert!(
        matches!(s.poll_cc_report(), Some(FlowReport::Rate { rate, .. }) if rate == Bitrate::mbps(2.0))
    );
}

#[test]
fn decisions_are_held_within_the_bounds() {
    let (mut s, _) = sender(vec![bps(1e12), bps(0.0)]);
    send_until(&mut s, 40);
    s.handle_input(ms(50), report(0, &[Some(20)], 40));
    assert_eq!(s.target(), Bitrate::mbps(100.0));
    s.handle_input(ms(60), report(1, &[Some(52)], 55));
    assert_eq!(s.target(), Bitrate::kbps(10.0));
}

#[test]
fn a_bad_decision_stops_the_sender() {
    let (mut s, _) = sender(vec![bps(f64::NAN)]);
    send_until(&mut s, 40);
    s.handle_input(ms(50), report(0, &[Some(20)], 40));
    let (at, e) = s.failure().expect("failed");
    assert_eq!(*at, ms(50));
    assert!(e.message.contains("got NaN"), "{e}");
    assert_eq!(s.poll_timeout(), None);
    assert!(s.poll_transmit(ms(1000)).is_none());
}

#[test]
fn an_allowance_sets_the_target_and_reaches_the_decider() {
    let (mut s, seen) = sender(vec![bps(5e5)]);
    send_until(&mut s, 40);
    s.apply_allowance(ms(41), Allowance::Rate(Bitrate::kbps(700.0)));
    assert_eq!(s.target(), Bitrate::kbps(700.0));
    s.handle_input(ms(50), report(0, &[Some(20)], 40));
    assert_eq!(seen.borrow()[0].allowance, Some(Bitrate::kbps(700.0)));
    assert_eq!(seen.borrow()[0].target, Bitrate::kbps(700.0));
}

#[test]
fn a_decision_from_outside_applies_at_the_next_poll() {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let mut s = ExternalSender::new(
        ExternalConfig::default(),
        1,
        Timestamp::ZERO,
        Box::new(Script {
            seen,
            answers: vec![bps(1e6)],
            outside: Some(RateDecision {
                target_bps: 1_920_000.0,
                pacing_bps: Some(3_840_000.0),
            }),
        }),
    );
    let sent = send_until(&mut s, 20);
    // 1200 B at 1.92 Mbit/s (a pacing rate above the target changes nothing): 5 ms apart.
    let times: Vec<u64> = sent.iter().map(|p| p.1.as_micros() / 1000).collect();
    assert_eq!(times, [0, 5, 10, 15, 20]);
    assert_eq!(s.target(), Bitrate::kbps(1920.0));
}

#[test]
fn a_pacing_rate_below_the_target_holds_packets_back() {
    let (mut s, _) = sender(vec![RateDecision {
        target_bps: 3e6,
        pacing_bps: Some(960_000.0),
    }]);
    send_until(&mut s, 40);
    s.handle_input(ms(40), report(0, &[Some(20)], 40));
    let sent = send_until(&mut s, 80);
    let times: Vec<u64> = sent.iter().map(|p| p.1.as_micros() / 1000).collect();
    // 1200 B at 0.96 Mbit/s: 10 ms apart (from the last packet, at 32 ms).
    assert_eq!(times.first(), Some(&42));
    assert!(times.windows(2).all(|w| w[1] - w[0] == 10), "{times:?}");
}

#[test]
fn the_configuration_is_checked() {
    let ok = ExternalConfig::default();
    assert_eq!(ok.validate(), Ok(()));
    let bad = ExternalConfig {
        packet_size: DataSize::bytes(40),
        ..ok.clone()
    };
    assert!(bad.validate().expect_err("small").contains("packet_size"));
    let bad = ExternalConfig {
        initial_rate: Bitrate::mbps(500.0),
        ..ok
    };
    assert!(bad.validate().expect_err("high").contains("initial_rate"));
}

#[test]
fn a_resume_sends_no_backlog() {
    let (mut s, _) = sender(vec![bps(1e6)]);
    send_until(&mut s, 40);
    s.pause(ms(40));
    s.resume(ms(500));
    assert!(s.poll_transmit(ms(499)).is_none());
    assert!(s.poll_transmit(ms(500)).is_some());
    assert!(
        s.poll_transmit(ms(500)).is_none(),
        "one packet, not a burst"
    );
}
