//! Each queue discipline against its RFC: CoDel's control law and count memory
//! (RFC 8289), FQ-CoDel's round robin and new-flow priority (RFC 8290), PIE's
//! probability update (RFC 8033), DualPI2's coupling, step and classifier (RFC 9332);
//! then properties of every discipline through the link (no packet lost or duplicated,
//! marks only on ECN-capable packets, FIFO within a flow) and determinism of a run.

use flowstate_core::{Bitrate, Ecn, TimeDelta, Timestamp};
use flowstate_sim::flow::SimPacket;
use flowstate_sim::link::{Link, LinkConfig, LinkId, Offer};
use flowstate_sim::queue::{
    Class, CodelParams, CodelQueue, Discipline, DropReason, DropSink, DualPi2Params, DualPi2Queue,
    FqCodelParams, FqCodelQueue, MarkReason, PieParams, PieQueue, QueueLimit,
};
use proptest::prelude::*;
use rand_chacha::rand_core::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn pkt(id: u64, flow: u32, size: u32, ecn: Ecn) -> SimPacket {
    SimPacket::datagram(id, Timestamp::ZERO, flow, size, ecn)
}

fn ms(t: u64) -> Timestamp {
    Timestamp::from_millis(t)
}

const RATE: Bitrate = Bitrate::ZERO;

// ---------------------------------------------------------------- CoDel (RFC 8289)

/// A standing queue served one packet per ms: the times (ms) of the dequeues that
/// dropped, up to `until` ms.
fn codel_standing(q: &mut CodelQueue, from: u64, until: u64, drops: &mut DropSink) -> Vec<u64> {
    let mut at = Vec::new();
    for t in from..=until {
        let before = drops.len();
        q.dequeue(ms(t), drops);
        if drops.len() > before {
            at.push(t);
        }
    }
    at
}

#[test]
fn codel_drops_at_interval_over_sqrt_count_then_leaves_and_remembers_the_count() {
    let mut q = CodelQueue::new(
        QueueLimit::Packets(100_000),
        CodelParams {
            ecn: false,
            ..CodelParams::default()
        },
    );
    let mut drops = DropSink::new();
    // A: 600 packets of 1000 B at 0 s, served one per ms: the sojourn is the time.
    for k in 0..600 {
        q.enqueue(ms(0), pkt(k, 0, 1000, Ecn::NotEct), RATE)
            .expect("room");
    }
    // Above target (5 ms) from the dequeue at 5 ms; drop state 100 ms later (105 ms);
    // then drops at drop_next = 105 + 100/sqrt(1) = 205 ms, 205 + 100/sqrt(2) =
    // 275.711 ms (the dequeue at 276 ms); the next would be 275.711 + 100/sqrt(3) =
    // 333.446 ms.
    assert_eq!(
        codel_standing(&mut q, 1, 300, &mut drops),
        vec![105, 205, 276]
    );
    assert!(q.vars().dropping());
    assert_eq!(q.vars().count(), 3);
    assert_eq!(q.vars().drop_next(), Timestamp::from_micros(333_446));
    assert!(drops.iter().all(|d| d.reason == DropReason::Aqm));
    // C: fresh packets at 300 ms; A drains at once (a fast link): the first C packet
    // (sojourn 1 ms < target) ends drop state.
    for k in 0..400 {
        q.enqueue(ms(300), pkt(1000 + k, 0, 1000, Ecn::NotEct), RATE)
            .expect("room");
    }
    while q.len() > 400 {
        q.dequeue(ms(300), &mut drops);
    }
    let first_c = q.dequeue(ms(301), &mut drops).expect("queued");
    assert_eq!(first_c.pkt.id, 1000);
    assert!(
        !q.vars().dropping(),
        "sojourn below target leaves drop state"
    );
    // C's sojourn passes target at 305 ms: drop state again at 405 ms, within 16
    // intervals of the last drop_next, so count resumes at count - lastcount = 3 - 1
    // = 2 and the next drop is 100/sqrt(2) later.
    let again = codel_standing(&mut q, 302, 405, &mut drops);
    assert_eq!(again, vec![405]);
    assert_eq!(q.vars().count(), 2);
    assert_eq!(
        q.vars().drop_next(),
        Timestamp::from_micros(405_000 + 70_711)
    );
}

#[test]
fn codel_marks_ecn_capable_packets_instead_of_dropping() {
    let mut q = CodelQueue::new(QueueLimit::Packets(100_000), CodelParams::default());
    let mut drops = DropSink::new();
    for k in 0..600 {
        q.enqueue(ms(0), pkt(k, 0, 1000, Ecn::Ect0), RATE)
            .expect("room");
    }
    let mut marks = Vec::new();
    for t in 1..=300 {
        let d = q.dequeue(ms(t), &mut drops).expect("queued");
        if d.mark.is_some() {
            assert_eq!(d.mark, Some(MarkReason::Aqm));
            assert_eq!(d.pkt.ecn, Ecn::Ce);
            marks.push(t);
        } else {
            assert_eq!(d.pkt.ecn, Ecn::Ect0);
        }
    }
    assert!(drops.is_empty());
    // The same schedule as the drops, each mark taking the packet's place.
    assert_eq!(marks, vec![105, 205, 276]);
}

// ------------------------------------------------------------ FQ-CoDel (RFC 8290)

fn fq(params: FqCodelParams, limit: u64) -> FqCodelQueue {
    FqCodelQueue::new(QueueLimit::Packets(limit), params, 7)
}

fn no_codel() -> FqCodelParams {
    FqCodelParams {
        codel: CodelParams {
            target: TimeDelta::secs(50),
            ..CodelParams::default()
        },
        ..FqCodelParams::default()
    }
}

#[test]
fn fq_codel_gives_two_greedy_flows_equal_bytes() {
    let mut q = fq(no_codel(), 100_000);
    assert_ne!(
        q.bucket(&pkt(0, 0, 1, Ecn::NotEct)),
        q.bucket(&pkt(0, 1, 1, Ecn::NotEct)),
        "the test needs the flows in different queues"
    );
    let mut drops = DropSink::new();
    // Flow 0 sends 1500 B packets, flow 1 300 B packets; both always backlogged.
    for k in 0..2000 {
        q.enqueue(ms(0), pkt(k, 0, 1500, Ecn::NotEct), RATE, &mut drops)
            .expect("room");
    }
    for k in 0..10_000 {
        q.enqueue(
            ms(0),
            pkt(10_000 + k, 1, 300, Ecn::NotEct),
            RATE,
            &mut drops,
        )
        .expect("room");
    }
    let mut bytes = [0u64; 2];
    for _ in 0..3000 {
        let d = q.dequeue(ms(1), &mut drops).expect("backlogged");
        bytes[d.pkt.flow as usize] += u64::from(d.pkt.size);
    }
    assert!(drops.is_empty());
    let diff = bytes[0].abs_diff(bytes[1]);
    // Deficit round robin: equal bytes within one quantum plus one packet.
    assert!(diff <= 1514 + 1500, "bytes {bytes:?}");
    assert!(bytes[0] > 700_000, "bytes {bytes:?}");
}

#[test]
fn fq_codel_serves_a_sparse_flow_first() {
    let mut q = fq(no_codel(), 100_000);
    let mut drops = DropSink::new();
    // A backlogged flow of 100 B packets: after 20 of them it is on the old list (its
    // first quantum spent) with 2 x 1514 - 2000 = 1028 B of credit, so without the new
    // list it would go on for 10 more.
    for k in 0..100 {
        q.enqueue(ms(0), pkt(k, 0, 100, Ecn::NotEct), RATE, &mut drops)
            .expect("room");
    }
    for _ in 0..20 {
        q.dequeue(ms(1), &mut drops).expect("backlogged");
    }
    // A packet of a flow with nothing queued joins the new list and goes next.
    q.enqueue(ms(2), pkt(500, 1, 200, Ecn::NotEct), RATE, &mut drops)
        .expect("room");
    let d = q.dequeue(ms(3), &mut drops).expect("queued");
    assert_eq!(
        d.pkt.id, 500,
        "the sparse flow's packet goes before the backlog"
    );
    assert_eq!(q.dequeue(ms(3), &mut drops).map(|d| d.pkt.flow), Some(0));
}

#[test]
fn fq_codel_over_the_limit_drops_half_the_fattest_queue_from_its_head() {
    let mut q = fq(no_codel(), 10);
    let mut drops = DropSink::new();
    for k in 0..9 {
        q.enqueue(ms(0), pkt(k, 0, 1000, Ecn::NotEct), RATE, &mut drops)
            .expect("room");
    }
    q.enqueue(ms(0), pkt(100, 1, 1000, Ecn::NotEct), RATE, &mut drops)
        .expect("room");
    assert!(drops.is_empty());
    // The 11th packet: flow 0 holds 9000 B, the most; drop from its head until 4500 B
    // are gone (5 packets).
    q.enqueue(ms(0), pkt(101, 1, 1000, Ecn::NotEct), RATE, &mut drops)
        .expect("queued");
    let ids: Vec<u64> = drops.iter().map(|d| d.pkt.id).collect();
    assert_eq!(ids, vec![0, 1, 2, 3, 4]);
    assert!(drops.iter().all(|d| d.reason == DropReason::Overlimit));
    assert_eq!(q.len(), 6);
}

// ----------------------------------------------------------------- PIE (RFC 8033)

#[test]
fn pie_updates_the_probability_as_section_4_2_computes_it() {
    let params = PieParams::default();
    let mut q = PieQueue::new(
        QueueLimit::Packets(1000),
        params,
        ChaCha8Rng::seed_from_u64(1),
    );
    let s = q.state_mut();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    // p = 0, 20 ms now and 0 before: 0.125 (0.020 - 0.015) + 1.25 (0.020 - 0) = 0.025625,
    // scaled by 1/2048 below 1e-6.
    s.qdelay = TimeDelta::millis(20);
    s.update(&params);
    assert!(close(s.drop_prob, 0.025625 / 2048.0), "{}", s.drop_prob);
    // 20 ms twice: 0.000625, scaled by 1/128 between 1e-5 and 1e-4.
    s.update(&params);
    assert!(
        close(s.drop_prob, 0.025625 / 2048.0 + 0.000625 / 128.0),
        "{}",
        s.drop_prob
    );
    // From 5 %, 30 ms after 20 ms: 0.001875 + 0.0125 = 0.014375, halved below 10 %.
    s.drop_prob = 0.05;
    s.qdelay_old = TimeDelta::millis(20);
    s.qdelay = TimeDelta::millis(30);
    s.update(&params);
    assert!(close(s.drop_prob, 0.05 + 0.0071875), "{}", s.drop_prob);
    // From 50 %, 100 ms after 20 ms: 0.110625, capped at 2 % above 10 %.
    s.drop_prob = 0.5;
    s.qdelay_old = TimeDelta::millis(20);
    s.qdelay = TimeDelta::millis(100);
    s.update(&params);
    assert!(close(s.drop_prob, 0.52), "{}", s.drop_prob);
    // Without the cap drop adjustment (section 5.5) the whole step applies.
    let uncapped = PieParams {
        cap_drop_adjustment: false,
        ..params
    };
    s.drop_prob = 0.5;
    s.qdelay_old = TimeDelta::millis(20);
    s.update(&uncapped);
    assert!(close(s.drop_prob, 0.5 + 0.110625), "{}", s.drop_prob);
    // An empty queue twice: -0.001875 then the 0.98 decay.
    s.drop_prob = 0.5;
    s.qdelay_old = TimeDelta::ZERO;
    s.qdelay = TimeDelta::ZERO;
    s.update(&params);
    assert!(
        close(s.drop_prob, (0.5 - 0.001875) * 0.98),
        "{}",
        s.drop_prob
    );
}

/// A PIE queue holding 20 packets of 1000 B, its probability `p`, past the burst
/// allowance with an old delay above half the target.
fn pie_at(p: f64, ecn: bool) -> PieQueue {
    let params = PieParams {
        ecn,
        ..PieParams::default()
    };
    let mut q = PieQueue::new(
        QueueLimit::Packets(10_000),
        params,
        ChaCha8Rng::seed_from_u64(3),
    );
    for k in 0..20 {
        q.enqueue(ms(0), pkt(k, 0, 1000, Ecn::NotEct), RATE)
            .expect("room");
    }
    let s = q.state_mut();
    s.drop_prob = p;
    s.burst_allowance = TimeDelta::ZERO;
    s.qdelay_old = TimeDelta::millis(20);
    q
}

/// Offer `n` packets at time 0 (no update runs before 15 ms): (dropped, marked).
fn pie_offer(q: &mut PieQueue, n: u64, ecn: Ecn) -> (u64, u64) {
    let (mut dropped, mut marked) = (0, 0);
    for k in 0..n {
        match q.enqueue(ms(0), pkt(100 + k, 0, 1000, ecn), RATE) {
            Err(DropReason::Aqm) => dropped += 1,
            Err(DropReason::Overlimit) => panic!("room"),
            Ok(()) => {}
        }
    }
    for _ in 0..q.len() {
        if q.dequeue(ms(0)).expect("queued").mark == Some(MarkReason::Aqm) {
            marked += 1;
        }
    }
    (dropped, marked)
}

#[test]
fn pie_marks_ecn_capable_packets_up_to_ten_percent_and_drops_above() {
    let (d, m) = pie_offer(&mut pie_at(0.08, true), 4000, Ecn::Ect0);
    assert_eq!(d, 0);
    assert!((m as f64 / 4000.0 - 0.08).abs() < 0.015, "marked {m}");
    let (d, m) = pie_offer(&mut pie_at(0.3, true), 4000, Ecn::Ect0);
    assert_eq!(m, 0);
    assert!((d as f64 / 4000.0 - 0.3).abs() < 0.03, "dropped {d}");
    // Not-ECT packets are dropped, never marked; `ecn = false` drops ECT ones too.
    let (d, m) = pie_offer(&mut pie_at(0.08, true), 4000, Ecn::NotEct);
    assert!(m == 0 && d > 200, "{d} {m}");
    let (d, m) = pie_offer(&mut pie_at(0.08, false), 4000, Ecn::Ect0);
    assert!(m == 0 && d > 200, "{d} {m}");
}

#[test]
fn pie_lets_a_burst_through_during_the_allowance() {
    let mut q = pie_at(0.5, true);
    q.state_mut().burst_allowance = TimeDelta::millis(150);
    let (d, _) = pie_offer(&mut q, 1000, Ecn::NotEct);
    assert_eq!(d, 0);
}

// ------------------------------------------------------------ DualPI2 (RFC 9332)

fn dual(params: DualPi2Params) -> DualPi2Queue {
    DualPi2Queue::new(
        QueueLimit::Packets(100_000),
        params,
        ChaCha8Rng::seed_from_u64(5),
    )
}

#[test]
fn dual_pi2_couples_classic_and_l4s_probabilities() {
    let mut q = dual(DualPi2Params::default());
    // From p' = 0 with the classic delay at 25 ms: 0.16 x 0.010 + 3.2 x 0.025 = 0.0816.
    q.pi_update(TimeDelta::millis(25));
    assert!((q.base_prob() - 0.0816).abs() < 1e-12);
    assert!((q.p_cl() - 0.1632).abs() < 1e-12);
    for curq in [30, 40, 20, 18] {
        q.pi_update(TimeDelta::millis(curq));
        let k = 2.0;
        assert!((q.p_c() - (q.p_cl() / k).powi(2)).abs() < 1e-12);
    }
}

#[test]
fn dual_pi2_classifies_by_ect1_and_ce() {
    let mut q = dual(DualPi2Params::default());
    for (id, ecn) in [
        (0, Ecn::NotEct),
        (1, Ecn::Ect0),
        (2, Ecn::Ect1),
        (3, Ecn::Ce),
    ] {
        q.enqueue(ms(0), pkt(id, id as u32, 100, ecn), RATE)
            .expect("room");
    }
    assert_eq!(q.lens(), (2, 2));
    let mut drops = DropSink::new();
    let mut classes = Vec::new();
    while let Some(d) = q.dequeue(ms(0), &mut drops) {
        classes.push((d.pkt.id, d.class));
    }
    classes.sort_by_key(|c| c.0);
    assert_eq!(
        classes,
        vec![
            (0, Class::Classic),
            (1, Class::Classic),
            (2, Class::L4s),
            (3, Class::L4s)
        ]
    );
}

#[test]
fn dual_pi2_step_marks_l4s_packets_from_one_ms_of_sojourn() {
    let mut q = dual(DualPi2Params::default());
    let mut drops = DropSink::new();
    for k in 0..4 {
        q.enqueue(ms(0), pkt(k, 0, 100, Ecn::Ect1), RATE)
            .expect("room");
    }
    let at = |q: &mut DualPi2Queue, us: u64, drops: &mut DropSink| {
        q.dequeue(Timestamp::from_micros(us), drops)
            .expect("queued")
            .mark
    };
    assert_eq!(at(&mut q, 500, &mut drops), None);
    assert_eq!(at(&mut q, 999, &mut drops), None);
    assert_eq!(at(&mut q, 1000, &mut drops), Some(MarkReason::Step));
    assert_eq!(at(&mut q, 3000, &mut drops), Some(MarkReason::Step));
    assert!(drops.is_empty());
}

/// p' follows the classic head's delay (RFC 9332 A.1), or with `pi_both_queues` the
/// larger of the two heads' (Linux's `calculate_probability`): an L4S queue alone,
/// 40 ms deep, drives p' only then.
#[test]
fn dual_pi2_base_probability_follows_the_l4s_queue_only_with_pi_both_queues() {
    let base_after = |pi_both_queues: bool| {
        let mut q = dual(DualPi2Params {
            pi_both_queues,
            step_thresh: TimeDelta::secs(100),
            ..DualPi2Params::default()
        });
        for k in 0..100 {
            q.enqueue(ms(0), pkt(k, 0, 1000, Ecn::Ect1), RATE)
                .expect("room");
        }
        // One L4S packet out at 40 ms: the PI updates due by then see the L head's age.
        let mut drops = DropSink::new();
        q.dequeue(ms(40), &mut drops);
        q.base_prob()
    };
    assert_eq!(base_after(false), 0.0);
    assert!(base_after(true) > 0.0, "{}", base_after(true));
}

#[test]
fn dual_pi2_drops_not_ect_and_marks_ect0_classic_packets_at_p_c() {
    let params = DualPi2Params {
        min_backlog: 0,
        ..DualPi2Params::default()
    };
    let run = |ecn: Ecn| {
        let mut q = dual(params);
        // p' = 0.4: p_C = 0.16, p_CL = 0.8 (below overload).
        q.pi_update(TimeDelta::from_micros(15_000 + 125_000));
        assert!((q.base_prob() - (0.16 * 0.125 + 3.2 * 0.14)).abs() < 1e-12);
        let p_c = q.p_c();
        let mut drops = DropSink::new();
        for k in 0..5000 {
            q.enqueue(ms(0), pkt(k, 0, 100, ecn), RATE).expect("room");
        }
        let mut marks = 0u64;
        while let Some(d) = q.dequeue(ms(0), &mut drops) {
            marks += u64::from(d.mark.is_some());
        }
        (drops.len() as f64 / 5000.0, marks as f64 / 5000.0, p_c)
    };
    let (dropped, marked, p_c) = run(Ecn::NotEct);
    assert!(
        (dropped - p_c).abs() < 0.02 && marked == 0.0,
        "{dropped} {marked} {p_c}"
    );
    let (dropped, marked, p_c) = run(Ecn::Ect0);
    assert!(
        (marked - p_c).abs() < 0.02 && dropped == 0.0,
        "{dropped} {marked} {p_c}"
    );
}

#[test]
fn dual_pi2_under_overload_drops_l4s_at_p_c_and_marks_the_rest() {
    let mut q = dual(DualPi2Params {
        min_backlog: 0,
        ..DualPi2Params::default()
    });
    for _ in 0..10 {
        q.pi_update(TimeDelta::millis(500));
    }
    assert!(q.base_prob() >= 0.5, "p' {}", q.base_prob());
    let p_c = q.p_c();
    let mut drops = DropSink::new();
    for k in 0..5000 {
        q.enqueue(ms(0), pkt(k, 0, 100, Ecn::Ect1), RATE)
            .expect("room");
    }
    let mut out = 0u64;
    while let Some(d) = q.dequeue(Timestamp::from_micros(100), &mut drops) {
        assert_eq!(d.mark, Some(MarkReason::Aqm), "every survivor is marked");
        out += 1;
    }
    let dropped = drops.len() as f64 / 5000.0;
    assert!((dropped - p_c).abs() < 0.03, "{dropped} vs {p_c}");
    assert_eq!(out + drops.len() as u64, 5000);
}

// ------------------------------------------------------------- through the link

fn disciplines() -> Vec<Discipline> {
    let fq_small = FqCodelParams {
        flows: 4,
        ..FqCodelParams::default()
    };
    vec![
        Discipline::DropTail,
        Discipline::Codel(CodelParams::default()),
        Discipline::FqCodel(FqCodelParams::default()),
        Discipline::FqCodel(fq_small),
        Discipline::Pie(PieParams {
            max_burst: TimeDelta::ZERO,
            ..PieParams::default()
        }),
        Discipline::DualPi2(DualPi2Params::default()),
    ]
}

/// One operation: after `gap_us`, flow `flow` offers a packet of `size` bytes.
#[derive(Debug, Clone)]
struct Arrival {
    gap_us: u32,
    flow: u32,
    size: u32,
}

fn arrivals() -> impl Strategy<Value = Vec<Arrival>> {
    prop::collection::vec(
        (0u32..3000, 0u32..5, 40u32..1500).prop_map(|(gap_us, flow, size)| Arrival {
            gap_us,
            flow,
            size,
        }),
        1..400,
    )
}

/// Flow `f`'s codepoint: a mix of every kind.
fn flow_ecn(f: u32) -> Ecn {
    [Ecn::NotEct, Ecn::Ect0, Ecn::Ect1, Ecn::Ce, Ecn::NotEct][f as usize % 5]
}

#[derive(Debug, Default)]
struct Outcome {
    delivered: Vec<SimPacket>,
    dropped: Vec<(u64, DropReason)>,
    marks: u64,
}

/// Offer the arrivals to a 4 Mbit/s link under `d` (limit 20 packets), finishing
/// serializations as they fall due, then drain it.
fn drive(d: Discipline, seq: &[Arrival], seed: u64) -> Outcome {
    let mut cfg = LinkConfig::constant(
        Bitrate::mbps(4.0),
        TimeDelta::millis(5),
        QueueLimit::Packets(20),
    );
    cfg.discipline = d;
    let mut link = Link::new(LinkId::FORWARD, cfg, seed);
    let mut out = Outcome::default();
    let mut done: Option<Timestamp> = None;
    let mut now = Timestamp::ZERO;
    let finish = |link: &mut Link, at: Timestamp, out: &mut Outcome| -> Option<Timestamp> {
        let f = link.finish(at).expect("busy");
        assert!(f.exit_at.is_some(), "no random loss configured");
        out.delivered.push(f.pkt);
        while let Some(x) = link.poll_dropped() {
            out.dropped.push((x.pkt.id, x.reason));
        }
        f.next.map(|n| {
            out.marks += u64::from(n.mark.is_some());
            n.done_at
        })
    };
    for (id, a) in seq.iter().enumerate() {
        now += TimeDelta::from_micros(i64::from(a.gap_us));
        while let Some(t) = done.filter(|t| *t <= now) {
            done = finish(&mut link, t, &mut out);
        }
        match link.offer(now, pkt(id as u64, a.flow, a.size, flow_ecn(a.flow))) {
            Offer::Started(s) => {
                out.marks += u64::from(s.mark.is_some());
                done = Some(s.done_at);
            }
            Offer::Queued => {}
            Offer::Dropped(r) => out.dropped.push((id as u64, r)),
        }
        while let Some(x) = link.poll_dropped() {
            out.dropped.push((x.pkt.id, x.reason));
        }
    }
    while let Some(t) = done {
        done = finish(&mut link, t, &mut out);
    }
    assert!(link.queue().is_empty() && !link.is_busy());
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_offered_packet_is_delivered_or_dropped_exactly_once(seq in arrivals(), seed in 0u64..4) {
        for d in disciplines() {
            let out = drive(d, &seq, seed);
            let mut seen: Vec<u64> = out
                .delivered
                .iter()
                .map(|p| p.id)
                .chain(out.dropped.iter().map(|x| x.0))
                .collect();
            seen.sort_unstable();
            let all: Vec<u64> = (0..seq.len() as u64).collect();
            prop_assert_eq!(seen, all, "{}", d.name());
        }
    }

    #[test]
    fn marks_fall_only_on_ecn_capable_packets(seq in arrivals(), seed in 0u64..4) {
        for d in disciplines() {
            let out = drive(d, &seq, seed);
            for p in &out.delivered {
                let sent = flow_ecn(p.flow);
                if p.ecn != sent {
                    prop_assert!(sent.is_ecn_capable() && p.ecn == Ecn::Ce, "{}: {:?}", d.name(), p);
                }
            }
            if d == Discipline::DropTail {
                prop_assert_eq!(out.marks, 0);
                prop_assert!(out.dropped.iter().all(|x| x.1 == DropReason::Overlimit));
            }
        }
    }

    #[test]
    fn each_flow_leaves_in_the_order_it_arrived(seq in arrivals(), seed in 0u64..4) {
        for d in disciplines() {
            let out = drive(d, &seq, seed);
            for f in 0..5 {
                let ids: Vec<u64> = out.delivered.iter().filter(|p| p.flow == f).map(|p| p.id).collect();
                prop_assert!(ids.windows(2).all(|w| w[0] < w[1]), "{}: flow {} {:?}", d.name(), f, ids);
            }
        }
    }
}

#[test]
fn a_run_under_each_discipline_is_a_function_of_the_seed() {
    let seq: Vec<Arrival> = (0..3000)
        .map(|k| Arrival {
            gap_us: 900 + (k * 7919 % 600),
            flow: k % 5,
            size: 200 + (k * 104_729 % 1300),
        })
        .collect();
    for d in disciplines() {
        let a = drive(d, &seq, 11);
        let b = drive(d, &seq, 11);
        assert_eq!(a.delivered, b.delivered, "{}", d.name());
        assert_eq!(a.dropped, b.dropped, "{}", d.name());
        if d != Discipline::DropTail {
            assert!(
                !a.dropped.is_empty() || a.marks > 0,
                "{}: the queue never acted",
                d.name()
            );
        }
    }
}
