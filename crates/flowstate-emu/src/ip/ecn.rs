//! The ECN field of a real IP header: read it as a packet enters the bottleneck, set CE
//! when the link model marked the packet.
//!
//! RFC 3168 section 5: the ECN field is the two low bits of the IPv4 TOS byte (byte 1)
//! and of the IPv6 traffic class (RFC 8200 section 3: the traffic class spans the low
//! nibble of byte 0 and the high nibble of byte 1, so its ECN bits are bits 5-4 of byte
//! 1). Marking rewrites only those two bits; IPv4's header checksum is updated
//! incrementally (RFC 1624 section 3, equation 3), IPv6 has no header checksum. The
//! transport checksums do not cover the field (it is not in the pseudo-header), so
//! nothing else changes. Pure functions of untrusted bytes: nothing here panics.

use flowstate_core::Ecn;

/// Shortest IPv4 header (RFC 791 3.1) and the fixed IPv6 header (RFC 8200 3).
const IPV4_MIN_HEADER: usize = 20;
const IPV6_HEADER: usize = 40;

/// The ECN codepoint of an IPv4 or IPv6 packet; `None` when the bytes are not a
/// complete IPv4 / IPv6 header.
pub fn codepoint(packet: &[u8]) -> Option<Ecn> {
    let first = *packet.first()?;
    match first >> 4 {
        4 if ipv4_header_len(packet).is_some() => Some(Ecn::from_bits(packet[1])),
        6 if packet.len() >= IPV6_HEADER => Some(Ecn::from_bits(packet[1] >> 4)),
        _ => None,
    }
}

/// The IPv4 header length when the packet holds a whole header of at least 20 bytes.
fn ipv4_header_len(p: &[u8]) -> Option<usize> {
    let ihl = usize::from(p.first()? & 0x0f) * 4;
    (ihl >= IPV4_MIN_HEADER && p.len() >= ihl).then_some(ihl)
}

/// What [`mark_ce`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marking {
    /// ECT(0) or ECT(1) became CE.
    Marked,
    /// Already CE: left as it is (RFC 3168 section 5).
    AlreadyCe,
    /// Not-ECT: never marked (RFC 3168 section 5: a router drops such a packet
    /// instead); the bytes are untouched.
    NotEcnCapable,
    /// Not a complete IPv4 / IPv6 header: untouched.
    NotIp,
}

/// Set the packet's ECN field to CE if it is ECN-capable (ECT(0) or ECT(1)), updating
/// the IPv4 header checksum. Any other packet is left bit for bit as it is.
pub fn mark_ce(packet: &mut [u8]) -> Marking {
    match codepoint(packet) {
        None => return Marking::NotIp,
        Some(Ecn::NotEct) => return Marking::NotEcnCapable,
        Some(Ecn::Ce) => return Marking::AlreadyCe,
        Some(Ecn::Ect0 | Ecn::Ect1) => {}
    }
    if packet[0] >> 4 == 6 {
        packet[1] |= Ecn::Ce.bits() << 4;
        return Marking::Marked;
    }
    // IPv4: the TOS byte is the low half of the header's first 16-bit word.
    let old = u16::from_be_bytes([packet[0], packet[1]]);
    packet[1] |= Ecn::Ce.bits();
    let new = u16::from_be_bytes([packet[0], packet[1]]);
    let checksum = u16::from_be_bytes([packet[10], packet[11]]);
    let updated = incremental_checksum(checksum, old, new);
    packet[10..12].copy_from_slice(&updated.to_be_bytes());
    Marking::Marked
}

/// RFC 1624 section 3, equation 3: the header checksum after one 16-bit word of the
/// header changed from `old` to `new`, `HC' = ~(~HC + ~m + m')` in one's complement
/// arithmetic. (Equation 3 rather than RFC 1141's `HC - ~m - m'`, which can give
/// 0xFFFF where a full recomputation gives 0x0000.)
pub fn incremental_checksum(checksum: u16, old: u16, new: u16) -> u16 {
    let sum = u32::from(!checksum) + u32::from(!old) + u32::from(new);
    !fold(sum)
}

/// One's complement sum folded to 16 bits.
fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The one's complement sum of a header's 16-bit words (RFC 791 3.1): 0xFFFF when
    /// the checksum in it is right.
    fn header_sum(h: &[u8]) -> u16 {
        fold(
            h.chunks(2)
                .map(|w| u32::from(u16::from_be_bytes([w[0], *w.get(1).unwrap_or(&0)])))
                .sum(),
        )
    }

    /// A full recomputation of the IPv4 header checksum (field zeroed, sum, invert).
    fn recomputed(h: &[u8]) -> u16 {
        let mut c = h.to_vec();
        c[10] = 0;
        c[11] = 0;
        !header_sum(&c)
    }

    /// An IPv4 UDP packet 10.81.1.2 -> 10.81.2.2 with TOS `tos` and a correct checksum.
    fn v4(tos: u8) -> Vec<u8> {
        let mut p = vec![
            0x45, tos, 0, 32, 0x12, 0x34, 0x40, 0, 64, 17, 0, 0, 10, 81, 1, 2, 10, 81, 2, 2,
        ];
        let c = recomputed(&p);
        p[10..12].copy_from_slice(&c.to_be_bytes());
        p.extend_from_slice(&[0x13, 0x88, 0x17, 0x70, 0, 12, 0xab, 0xcd, 1, 2, 3, 4]);
        p
    }

    /// An IPv6 UDP packet with traffic class `tc` and flow label 0xabcde.
    fn v6(tc: u8) -> Vec<u8> {
        let mut p = vec![0x60 | (tc >> 4), (tc << 4) | 0x0a, 0xbc, 0xde, 0, 8, 17, 64];
        p.extend_from_slice(&[0xfd; 32]);
        p.extend_from_slice(&[0x13, 0x88, 0x17, 0x70, 0, 8, 0, 0]);
        p
    }

    #[test]
    fn reads_the_two_low_bits_of_tos_and_traffic_class_rfc3168_5() {
        // DSCP EF (46 << 2 = 0xb8) above the ECN bits must not change what is read.
        for e in Ecn::ALL {
            assert_eq!(codepoint(&v4(0xb8 | e.bits())), Some(e));
            assert_eq!(codepoint(&v6(0xb8 | e.bits())), Some(e));
        }
        assert_eq!(codepoint(&[]), None);
        assert_eq!(codepoint(&[0x45, 0x02, 0, 20]), None, "truncated header");
        assert_eq!(codepoint(&[0x44; 40]), None, "IHL below 5");
        assert_eq!(codepoint(&[0x60, 0x20, 0, 0]), None, "truncated IPv6");
        assert_eq!(codepoint(&[0x50; 40]), None, "version 5");
    }

    #[test]
    fn ipv4_mark_sets_ce_and_keeps_the_checksum_valid_rfc1624() {
        for tos in [0x02u8, 0x01, 0xb8 | 0x02, 0xb8 | 0x01, 0xfe] {
            let mut p = v4(tos);
            assert_eq!(header_sum(&p[..20]), 0xffff, "valid before");
            let before = p.clone();
            assert_eq!(mark_ce(&mut p), Marking::Marked);
            assert_eq!(codepoint(&p), Some(Ecn::Ce));
            assert_eq!(p[1], tos | 0b11, "DSCP kept");
            assert_eq!(header_sum(&p[..20]), 0xffff, "valid after (tos {tos:#x})");
            assert_eq!(
                u16::from_be_bytes([p[10], p[11]]),
                recomputed(&p[..20]),
                "same as a full recomputation"
            );
            // Only the TOS byte and the checksum changed.
            for (k, (a, b)) in before.iter().zip(&p).enumerate() {
                if ![1, 10, 11].contains(&k) {
                    assert_eq!(a, b, "byte {k}");
                }
            }
        }
    }

    #[test]
    fn ipv6_mark_sets_ce_and_keeps_flow_label_and_dscp() {
        for tc in [0x02u8, 0x01, 0xb8 | 0x02, 0xb9] {
            let mut p = v6(tc);
            let before = p.clone();
            assert_eq!(mark_ce(&mut p), Marking::Marked);
            assert_eq!(codepoint(&p), Some(Ecn::Ce));
            let tc_after = ((p[0] & 0x0f) << 4) | (p[1] >> 4);
            assert_eq!(tc_after, tc | 0b11);
            assert_eq!(p[1] & 0x0f, 0x0a, "flow label kept");
            assert_eq!(&p[2..], &before[2..]);
        }
    }

    #[test]
    fn not_ect_ce_and_non_ip_stay_bit_for_bit() {
        for (mut p, expect) in [
            (v4(0x00), Marking::NotEcnCapable),
            (v4(0xb8), Marking::NotEcnCapable),
            (v6(0x00), Marking::NotEcnCapable),
            (v4(0x03), Marking::AlreadyCe),
            (v6(0x03), Marking::AlreadyCe),
            (vec![0x45, 0x02, 0, 20], Marking::NotIp),
            (vec![0x60, 0x20], Marking::NotIp),
            (vec![], Marking::NotIp),
        ] {
            let before = p.clone();
            assert_eq!(mark_ce(&mut p), expect);
            assert_eq!(p, before);
        }
    }

    #[test]
    fn rfc1624_section_4_example() {
        // The other header words sum to 0xCD7A, a word changes from 0x5555 to 0x3285:
        // HC = ~(0xCD7A + 0x5555) = 0xDD2F; a full recomputation gives
        // ~(0xCD7A + 0x3285) = 0x0000, which equation 3 reproduces (RFC 1141's
        // equation gives 0xFFFF).
        assert_eq!(!fold(0xcd7a + 0x5555), 0xdd2f);
        assert_eq!(incremental_checksum(0xdd2f, 0x5555, 0x3285), 0x0000);
        assert_eq!(incremental_checksum(0xdd2f, 0x5555, 0x5555), 0xdd2f);
    }

    proptest! {
        /// Any IPv4 header with a correct checksum and an ECN-capable TOS: after the
        /// mark, the checksum equals a full recomputation; marking twice changes
        /// nothing more.
        #[test]
        fn ipv4_checksum_matches_recomputation(
            words in proptest::collection::vec(any::<u8>(), 18),
            dscp in 0u8..64,
            ect1 in any::<bool>(),
            options in 0usize..=10,
        ) {
            let ihl = 5 + options;
            let mut p = vec![0x40 | ihl as u8, (dscp << 2) | if ect1 { 1 } else { 2 }];
            p.extend_from_slice(&words);
            p.resize(ihl * 4, 0x5a);
            p[10] = 0;
            p[11] = 0;
            let c = recomputed(&p);
            p[10..12].copy_from_slice(&c.to_be_bytes());
            prop_assert_eq!(mark_ce(&mut p), Marking::Marked);
            prop_assert_eq!(u16::from_be_bytes([p[10], p[11]]), recomputed(&p));
            prop_assert_eq!(header_sum(&p), 0xffff);
            let once = p.clone();
            prop_assert_eq!(mark_ce(&mut p), Marking::AlreadyCe);
            prop_assert_eq!(p, once);
        }

        /// Any bytes: no panic, and a packet that is not marked is not changed.
        #[test]
        fn never_panics_and_never_touches_what_it_does_not_mark(
            bytes in proptest::collection::vec(any::<u8>(), 0..80),
        ) {
            let mut p = bytes.clone();
            if mark_ce(&mut p) != Marking::Marked {
                prop_assert_eq!(p, bytes);
            }
        }
    }
}
