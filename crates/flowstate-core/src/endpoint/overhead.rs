//! The RTP/UDP/IP overhead rate that a bandwidth target counting overhead leaves out of
//! the encoder's rate: Chromium ~M100 `RtpVideoSender::OnBitrateUpdated` with
//! `WebRTC-SendSideBwe-WithOverhead` (enabled by default since ~M87), which gives the
//! encoder `target - overhead_rate`.
//!
//! overhead_rate = packets_per_frame x fps x overhead_per_packet, where
//! packets_per_frame = ceil((target / fps) / max_payload), at least 1.

use crate::units::{Bitrate, DataSize, TimeDelta};

/// The overhead rate of a stream at `target` (overhead included) that sends one frame
/// every `frame_interval` in packets of at most `max_payload` payload bytes, each
/// carrying `overhead_per_packet` header bytes. Zero for a non-finite target or a
/// non-positive frame interval.
pub fn overhead_rate(
    target: Bitrate,
    frame_interval: TimeDelta,
    max_payload: DataSize,
    overhead_per_packet: DataSize,
) -> Bitrate {
    let interval = frame_interval.as_secs_f64();
    if !target.as_bps().is_finite() || interval <= 0.0 {
        return Bitrate::ZERO;
    }
    let fps = 1.0 / interval;
    let frame_bits = target.as_bps() * interval;
    let payload_bits = max_payload.as_bits_f64().max(8.0);
    let packets_per_frame = (frame_bits / payload_bits).ceil().max(1.0);
    Bitrate::bps(packets_per_frame * fps * overhead_per_packet.as_bits_f64())
}

/// The encoder's share of a target that includes the overhead: `target - overhead_rate`,
/// never below zero.
pub fn payload_rate(
    target: Bitrate,
    frame_interval: TimeDelta,
    max_payload: DataSize,
    overhead_per_packet: DataSize,
) -> Bitrate {
    target.saturating_sub(overhead_rate(
        target,
        frame_interval,
        max_payload,
        overhead_per_packet,
    ))
}

/// The overhead rate by WebRTC M150's default rule (`call/rtp_video_sender.cc`
/// `RtpVideoSender::CalculateOverheadRate`, lines 1044-1056 at signalapp/webrtc bd635df,
/// with `WebRTC-Video-UseFrameRateForOverhead` off, its default: `IsEnabled`, line 405):
/// packet rate = target / the largest packet on the wire (`max_total_packet_size` =
/// RTP max packet size + transport overhead), rounded up to whole Hz
/// (`RoundUpTo(Frequency::Hertz(1))`), times the per-packet overhead. Unlike
/// [`overhead_rate`] it does not depend on the frame rate: a stream is taken to send
/// full packets. Zero for a non-finite target or a zero packet size.
pub fn packet_rate_overhead(
    target: Bitrate,
    max_total_packet: DataSize,
    overhead_per_packet: DataSize,
) -> Bitrate {
    let packet_bits = max_total_packet.as_bits_f64();
    if !target.as_bps().is_finite() || packet_bits <= 0.0 {
        return Bitrate::ZERO;
    }
    let packets_per_s = (target.as_bps().max(0.0) / packet_bits).ceil();
    Bitrate::bps(packets_per_s * overhead_per_packet.as_bits_f64())
}

/// The encoder's share of a target that includes the overhead by M150's rule
/// ([`packet_rate_overhead`]): `target - overhead`, never below zero
/// (`RtpVideoSender::OnBitrateUpdated`, `payload_bitrate_bps - overhead_rate`).
pub fn payload_rate_by_packet_rate(
    target: Bitrate,
    max_total_packet: DataSize,
    overhead_per_packet: DataSize,
) -> Bitrate {
    target.saturating_sub(packet_rate_overhead(
        target,
        max_total_packet,
        overhead_per_packet,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FRAME_40FPS: TimeDelta = TimeDelta::from_micros(25_000);

    #[test]
    fn overhead_rate_known_numbers() {
        // 40 fps (25 ms), 1152 B payload, 48 B overhead.
        let payload = DataSize::bytes(1152);
        let ovh = DataSize::bytes(48);
        // 1 Mbit/s: 3125 B per frame -> 3 packets -> 120 pkt/s x 384 bit = 46.08 kbit/s.
        let r = overhead_rate(Bitrate::mbps(1.0), FRAME_40FPS, payload, ovh);
        assert!((r.as_bps() - 46_080.0).abs() < 1e-6, "{r}");
        // 100 kbit/s: 312.5 B -> 1 packet -> 40 x 384 = 15.36 kbit/s.
        let r = overhead_rate(Bitrate::kbps(100.0), FRAME_40FPS, payload, ovh);
        assert!((r.as_bps() - 15_360.0).abs() < 1e-6, "{r}");
        // Exactly one full packet per frame (1152 B x 8 x 40 = 368.64 kbit/s): 1 packet.
        let r = overhead_rate(Bitrate::bps(368_640.0), FRAME_40FPS, payload, ovh);
        assert!((r.as_bps() - 15_360.0).abs() < 1e-6, "{r}");
        // Zero target: still one packet per frame.
        let r = overhead_rate(Bitrate::ZERO, FRAME_40FPS, payload, ovh);
        assert!((r.as_bps() - 15_360.0).abs() < 1e-6, "{r}");
        // Payload rate: 1 Mbit/s - 46.08 kbit/s; floored at zero.
        let p = payload_rate(Bitrate::mbps(1.0), FRAME_40FPS, payload, ovh);
        assert!((p.as_bps() - 953_920.0).abs() < 1e-6, "{p}");
        let p = payload_rate(Bitrate::kbps(10.0), FRAME_40FPS, payload, ovh);
        assert_eq!(p, Bitrate::ZERO);
    }

    #[test]
    fn overhead_rate_degenerate_inputs_are_zero_or_finite() {
        let payload = DataSize::bytes(1152);
        let ovh = DataSize::bytes(48);
        assert_eq!(
            overhead_rate(Bitrate::INFINITY, FRAME_40FPS, payload, ovh),
            Bitrate::ZERO
        );
        assert_eq!(
            overhead_rate(Bitrate::mbps(1.0), TimeDelta::ZERO, payload, ovh),
            Bitrate::ZERO
        );
        // Zero payload counts as one byte per packet: finite.
        let r = overhead_rate(Bitrate::kbps(8.0), FRAME_40FPS, DataSize::ZERO, ovh);
        assert!(r.as_bps().is_finite());
    }

    #[test]
    fn packet_rate_overhead_known_numbers() {
        let packet = DataSize::bytes(1200);
        let ovh = DataSize::bytes(48);
        // 1 Mbit/s / 9600 bit = 104.17 packets/s -> 105 Hz x 384 bit = 40.32 kbit/s.
        let r = packet_rate_overhead(Bitrate::mbps(1.0), packet, ovh);
        assert!((r.as_bps() - 40_320.0).abs() < 1e-6, "{r}");
        // 100 kbit/s: 10.42 -> 11 Hz x 384 = 4.224 kbit/s, whatever the frame rate (the
        // frame-rate rule at 40 fps: 15.36 kbit/s).
        let r = packet_rate_overhead(Bitrate::kbps(100.0), packet, ovh);
        assert!((r.as_bps() - 4_224.0).abs() < 1e-6, "{r}");
        // Exactly 100 full packets a second: 100 Hz, no rounding up.
        let r = packet_rate_overhead(Bitrate::bps(960_000.0), packet, ovh);
        assert!((r.as_bps() - 38_400.0).abs() < 1e-6, "{r}");
        // Zero target: no packets, no overhead.
        assert_eq!(
            packet_rate_overhead(Bitrate::ZERO, packet, ovh),
            Bitrate::ZERO
        );
        let p = payload_rate_by_packet_rate(Bitrate::mbps(1.0), packet, ovh);
        assert!((p.as_bps() - 959_680.0).abs() < 1e-6, "{p}");
    }

    #[test]
    fn packet_rate_overhead_degenerate_inputs_are_zero() {
        let ovh = DataSize::bytes(48);
        let packet = DataSize::bytes(1200);
        assert_eq!(
            packet_rate_overhead(Bitrate::INFINITY, packet, ovh),
            Bitrate::ZERO
        );
        assert_eq!(
            packet_rate_overhead(Bitrate::mbps(1.0), DataSize::ZERO, ovh),
            Bitrate::ZERO
        );
        // Never more than the target is taken off.
        assert_eq!(
            payload_rate_by_packet_rate(Bitrate::bps(100.0), packet, DataSize::bytes(10_000)),
            Bitrate::ZERO
        );
    }
}
