//! `chromium_fec` in the media sender: FEC packets on the wire, counted by the receiver,
//! and the encoder's cut, over a lossy test bottleneck.

use super::media::{
    MediaFeedback, MediaReceiver, MediaReceiverConfig, MediaSender, MediaSenderConfig, RtpPacket,
};
use super::Endpoint;
use crate::fec::FecConfig;
use crate::gcc::GccPreset;
use crate::source::{StatisticsCodecConfig, VideoSourceConfig};
use crate::testing::link::{Impairments, TestLink};
use crate::units::{Bitrate, DataSize, TimeDelta, Timestamp};

struct Outcome {
    media_packets: u64,
    fec_packets: u64,
    fec_bytes: u64,
    received_bytes: u64,
    delivered: DataSize,
    /// (target, encoder rate) at the end.
    rates: (Bitrate, Bitrate),
    /// The receiver's frame figures over the run.
    frames: crate::playout::VideoStats,
}

/// 20 s of one `chromium-m156` flow on 1 Mbit/s, 50 ms one way, `loss` random loss.
fn run(fec: bool, loss: f64) -> Outcome {
    run_with(fec, loss, TimeDelta::ZERO, &mut Vec::new())
}

/// `run` with ULPFEC held `fec_delay` before the pacer (`fec_delay_ms`), each sent
/// packet's (time, is FEC, frame id, last media packet of its frame) into `sent`.
fn run_with(
    fec: bool,
    loss: f64,
    fec_delay: TimeDelta,
    sent: &mut Vec<(Timestamp, bool, u64, bool)>,
) -> Outcome {
    let mut gcc = GccPreset::ChromiumM156.config();
    gcc.fec = fec.then(FecConfig::default);
    let mut scfg = MediaSenderConfig::new(gcc.clone());
    scfg.source = VideoSourceConfig::Statistics(StatisticsCodecConfig::default());
    scfg.target_includes_overhead = true;
    scfg.fec_delay = fec_delay;
    let mut sender = MediaSender::new(scfg, Timestamp::ZERO);
    let mut receiver = MediaReceiver::new(MediaReceiverConfig::new(gcc));
    let one_way = TimeDelta::millis(50);
    let mut fwd: TestLink<RtpPacket> =
        TestLink::new(Bitrate::mbps(1.0), one_way, DataSize::bytes(37_500)).impaired(
            Impairments {
                loss,
                reorder: 0.0,
                reorder_delay: TimeDelta::ZERO,
                duplicate: 0.0,
            },
            7,
        );
    let mut rev: TestLink<MediaFeedback> =
        TestLink::new(Bitrate::mbps(100.0), one_way, DataSize::MAX);
    let end = Timestamp::from_secs(20);
    let mut now = Timestamp::ZERO;
    let mut out = Outcome {
        media_packets: 0,
        fec_packets: 0,
        fec_bytes: 0,
        received_bytes: 0,
        delivered: DataSize::ZERO,
        rates: (Bitrate::ZERO, Bitrate::ZERO),
        frames: Default::default(),
    };
    while now < end {
        if sender.poll_timeout().is_some_and(|t| t <= now) {
            sender.handle_timeout(now);
        }
        if receiver.poll_timeout().is_some_and(|t| t <= now) {
            receiver.handle_timeout(now);
        }
        while let Some((_, p)) = fwd.poll(now) {
            receiver.handle_input(now, p);
        }
        while let Some((_, m)) = rev.poll(now) {
            sender.handle_input(now, m);
        }
        while let Some(t) = sender.poll_transmit(now) {
            let m = &t.message;
            let last = m.frame_packet_count > 0 && m.frame_packet_index + 1 == m.frame_packet_count;
            sent.push((now, m.is_fec(), m.frame_id, last));
            if t.message.is_fec() {
                out.fec_packets += 1;
                out.fec_bytes += t.size.as_bytes();
            } else if t.message.frame_packet_count > 0 {
                out.media_packets += 1;
            }
            fwd.send(now, t.size, t.message);
        }
        while let Some(t) = receiver.poll_transmit(now) {
            rev.send(now, t.size, t.message);
        }
        let next = [
            sender.poll_timeout(),
            receiver.poll_timeout(),
            fwd.next_arrival(),
            rev.next_arrival(),
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(end);
        now = next.max(now + TimeDelta::from_micros(1)).min(end);
    }
    out.received_bytes = receiver.bytes_received();
    out.delivered = fwd.delivered;
    out.rates = (sender.target_rate(), sender.encoder_rate());
    receiver.advance_playout(end);
    out.frames = receiver
        .playout()
        .stats(sender.encoder_log(), Timestamp::ZERO, end);
    out
}

#[test]
fn fec_recovers_frames_the_loss_would_take() {
    let lost_share = |o: &Outcome| o.frames.frames_lost as f64 / o.frames.frames_encoded as f64;
    let off = run(false, 0.05);
    let on = run(true, 0.05);
    assert!(off.frames.frames_encoded > 400, "{:?}", off.frames);
    // 5 % packet loss takes a frame of n packets with probability 1 - 0.95^n.
    assert!(lost_share(&off) > 0.05, "{:?}", off.frames);
    assert!(
        lost_share(&on) < lost_share(&off) / 2.0,
        "{:?} {:?}",
        on.frames,
        off.frames
    );
    let clean = run(false, 0.0);
    assert_eq!(clean.frames.frames_lost, 0);
    assert_eq!(clean.frames.freezes, 0);
}

#[test]
fn no_fec_without_the_option_or_without_loss() {
    let off = run(false, 0.05);
    assert_eq!(off.fec_packets, 0);
    let lossless = run(true, 0.0);
    assert_eq!(lossless.fec_packets, 0);
    assert!(lossless.media_packets > 1000);
}

#[test]
fn loss_brings_fec_on_the_wire_and_cuts_the_encoder() {
    let on = run(true, 0.05);
    let off = run(false, 0.05);
    eprintln!(
        "fec {} of {} media packets, {} B; target {} encoder {} (off: {} / {})",
        on.fec_packets,
        on.media_packets,
        on.fec_bytes,
        on.rates.0,
        on.rates.1,
        off.rates.0,
        off.rates.1
    );
    assert!(on.fec_packets > 0);
    // Protection of 5 % loss: a share of the media packets, never more than them.
    assert!(
        on.fec_packets * 10 > on.media_packets,
        "{} {}",
        on.fec_packets,
        on.media_packets
    );
    assert!(on.fec_packets <= on.media_packets);
    // The FEC packets cross the bottleneck and count in the flow's received bytes.
    assert_eq!(on.received_bytes, on.delivered.as_bytes());
    // The encoder gets at most the target less the overhead, and less than without FEC
    // relative to its target.
    let share_on = on.rates.1.as_bps() / on.rates.0.as_bps();
    let share_off = off.rates.1.as_bps() / off.rates.0.as_bps();
    assert!(share_on < share_off, "{share_on} {share_off}");
    assert!(share_on >= 0.5 * 0.85, "{share_on}");
}

/// With `chromium_fec` the encoder's share of the first target is the target less
/// WebRTC M150's overhead by packet rate (`RtpVideoSender::CalculateOverheadRate`:
/// full 1200 B packets at the target, rounded up to whole Hz, x 48 B), not by packets
/// per frame; before any loss the protection cut is 1.
#[test]
fn fec_chain_takes_the_overhead_by_packet_rate() {
    use super::overhead;
    let at_start = |fec: bool| {
        let mut gcc = GccPreset::ChromiumM156.config();
        gcc.fec = fec.then(FecConfig::default);
        // The share before the encoder bitrate adjuster (on in the preset) divides it.
        gcc.encoder_adjuster = None;
        let mut scfg = MediaSenderConfig::new(gcc);
        scfg.source = VideoSourceConfig::Statistics(StatisticsCodecConfig::default());
        scfg.target_includes_overhead = true;
        let mut sender = MediaSender::new(scfg, Timestamp::ZERO);
        sender.handle_timeout(Timestamp::ZERO);
        while sender.poll_transmit(Timestamp::ZERO).is_some() {}
        (sender.target_rate(), sender.encoder_rate())
    };
    let (target, enc) = at_start(true);
    let want =
        overhead::payload_rate_by_packet_rate(target, DataSize::bytes(1200), DataSize::bytes(48));
    assert!((enc.as_bps() - want.as_bps()).abs() < 1.0, "{enc} {want}");
    // Without the option: the frame-rate rule (30 frames/s of one or more packets).
    let (target_off, enc_off) = at_start(false);
    assert_eq!(target_off, target);
    assert!(
        enc_off.as_bps() < want.as_bps() - 1_000.0,
        "{enc_off} {want}"
    );
}

/// `fec_delay_ms`: a frame's ULPFEC packets leave at least the delay after the media
/// packet that completed them (Chromium 156: ~5 ms), where without it most leave sooner
/// (queued behind it at once, paced); the FEC amount stays about the same.
#[test]
fn fec_delay_holds_ulpfec_behind_its_frame() {
    let gap = |sent: &[(Timestamp, bool, u64, bool)]| -> Vec<TimeDelta> {
        let mut last_media: std::collections::HashMap<u64, Timestamp> = Default::default();
        let mut gaps = Vec::new();
        for &(t, fec, frame, last) in sent {
            if last {
                last_media.insert(frame, t);
            } else if fec {
                if let Some(&m) = last_media.get(&frame) {
                    gaps.push(t - m);
                }
            }
        }
        gaps
    };
    let (mut now_sent, mut held_sent) = (Vec::new(), Vec::new());
    let at_once = run_with(true, 0.02, TimeDelta::ZERO, &mut now_sent);
    let held = run_with(true, 0.02, TimeDelta::from_micros(5_400), &mut held_sent);
    let (g0, g1) = (gap(&now_sent), gap(&held_sent));
    assert!(g0.len() > 50 && g1.len() > 50, "{} {}", g0.len(), g1.len());
    let early = g0
        .iter()
        .filter(|g| **g < TimeDelta::from_micros(5_400))
        .count() as f64
        / g0.len() as f64;
    assert!(
        early > 0.5,
        "without the delay most FEC follows within 5.4 ms: {early}"
    );
    assert!(
        g1.iter().all(|g| *g >= TimeDelta::from_micros(5_400)),
        "{:?}",
        g1.iter().min()
    );
    let ratio = held.fec_packets as f64 / at_once.fec_packets as f64;
    assert!(
        (0.7..1.3).contains(&ratio),
        "FEC packets {} against {}",
        held.fec_packets,
        at_once.fec_packets
    );
}
