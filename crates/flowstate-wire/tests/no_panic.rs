//! Parsing never panics: arbitrary bytes and mutated valid packets.
//! Parsed values must also re-emit and re-parse to themselves
//! (`flowstate_wire::fuzzing` bodies).

mod common;

use common::*;
use flowstate_wire::fuzzing;
use flowstate_wire::rtcp::RtcpPacket;
use proptest::collection::vec;
use proptest::prelude::*;

fn all_bodies(bytes: &[u8]) -> Result<(), TestCaseError> {
    let _ = RtcpPacket::parse(bytes);
    fuzzing::rtp(bytes).map_err(TestCaseError::fail)?;
    fuzzing::rtcp(bytes).map_err(TestCaseError::fail)?;
    fuzzing::sctp(bytes).map_err(TestCaseError::fail)?;
    Ok(())
}

/// Twenty mutations of `bytes` (seeded by `seed`), each through the fuzz body `body`
/// (which parses it, and re-emits and re-parses what parsed).
fn mutations_pass(
    bytes: &[u8],
    seed: u64,
    body: fn(&[u8]) -> Result<(), String>,
) -> Result<(), TestCaseError> {
    let mut rng = XorShift(seed | 1);
    for _ in 0..20 {
        let m = mutate(&mut rng, bytes);
        body(&m).map_err(TestCaseError::fail)?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn arbitrary_bytes(bytes in vec(any::<u8>(), 0..256)) {
        all_bodies(&bytes)?;
    }

    /// Version 2 first byte so the RTP/RTCP parsers get past the first check.
    #[test]
    fn arbitrary_bytes_version_2(first in 0x80u8..0xC0, pt in prop_oneof![Just(201u8), Just(205), Just(206), any::<u8>()],
                                 rest in vec(any::<u8>(), 0..256)) {
        let mut bytes = vec![first, pt];
        bytes.extend(rest);
        all_bodies(&bytes)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn mutated_rtp(p in rtp_packet(), seed: u64) {
        mutations_pass(&p.to_vec().unwrap(), seed, fuzzing::rtp)?;
    }

    #[test]
    fn mutated_rtcp(c in compound(), seed: u64) {
        mutations_pass(&c.to_vec().unwrap(), seed, fuzzing::rtcp)?;
    }

    #[test]
    fn mutated_sctp(p in sctp_packet(), seed: u64) {
        mutations_pass(&p.to_vec().unwrap(), seed, fuzzing::sctp)?;
    }
}
