//! Explicit Congestion Notification codepoints: the two ECN bits of an IP header
//! (RFC 3168 section 5; ECT(1) as the L4S identifier, RFC 9331 section 4).
//!
//! A sender marks its data packets ECN-capable ([`Ecn::Ect0`] for classic ECN,
//! [`Ecn::Ect1`] for L4S); an active queue that would drop an ECN-capable packet marks
//! it [`Ecn::Ce`] instead; the receiver feeds the marks back (RFC 8888 for RTP, TCP's
//! ECE, SCTP's ECNE) and the sender's controller responds.

/// An ECN codepoint (RFC 3168 section 5, figure 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Ecn {
    /// `00`: the transport is not ECN-capable; an AQM drops such a packet.
    #[default]
    NotEct,
    /// `01`: ECN-capable transport (1): the L4S identifier (RFC 9331).
    Ect1,
    /// `10`: ECN-capable transport (0): classic ECN (RFC 3168).
    Ect0,
    /// `11`: congestion experienced, set by a queue.
    Ce,
}

impl Ecn {
    /// Every codepoint, in bit order.
    pub const ALL: [Ecn; 4] = [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce];

    /// The codepoint of the two low bits of an IPv4 TOS / IPv6 traffic class byte.
    pub const fn from_bits(bits: u8) -> Ecn {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// The two ECN bits (RFC 3168 section 5).
    pub const fn bits(self) -> u8 {
        match self {
            Ecn::NotEct => 0b00,
            Ecn::Ect1 => 0b01,
            Ecn::Ect0 => 0b10,
            Ecn::Ce => 0b11,
        }
    }

    /// Whether a queue may mark this packet instead of dropping it (ECT(0), ECT(1), or
    /// already CE: RFC 3168 section 5 lets a router leave CE as it is).
    pub const fn is_ecn_capable(self) -> bool {
        !matches!(self, Ecn::NotEct)
    }

    /// Whether the packet carries a congestion mark.
    pub const fn is_ce(self) -> bool {
        matches!(self, Ecn::Ce)
    }

    /// The lower-case name a scenario uses: `not-ect`, `ect1`, `ect0`, `ce`.
    pub const fn name(self) -> &'static str {
        match self {
            Ecn::NotEct => "not-ect",
            Ecn::Ect1 => "ect1",
            Ecn::Ect0 => "ect0",
            Ecn::Ce => "ce",
        }
    }

    /// The codepoint named `name` (see [`Ecn::name`]), `None` for any other text.
    pub fn from_name(name: &str) -> Option<Ecn> {
        Ecn::ALL.into_iter().find(|e| e.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::Ecn;

    #[test]
    fn bits_round_trip_and_follow_rfc_3168() {
        for e in Ecn::ALL {
            assert_eq!(Ecn::from_bits(e.bits()), e);
            assert_eq!(Ecn::from_name(e.name()), Some(e));
        }
        assert_eq!(Ecn::Ect0.bits(), 0b10);
        assert_eq!(Ecn::Ect1.bits(), 0b01);
        // The DSCP bits above are ignored.
        assert_eq!(Ecn::from_bits(0xb8 | 0b11), Ecn::Ce);
        assert!(!Ecn::NotEct.is_ecn_capable());
        assert!(Ecn::Ce.is_ecn_capable() && Ecn::Ce.is_ce());
        assert_eq!(Ecn::from_name("ECT0"), None);
    }
}
