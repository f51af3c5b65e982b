//! cargo +nightly fuzz run ccfb: arbitrary bytes as the body of an RFC 8888
//! congestion control feedback packet (valid header, so every input reaches the
//! feedback parser); if that parses, emit and re-parse (same body as
//! tests/fuzz_smoke.rs on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = flowstate_wire::fuzzing::ccfb(data) {
        panic!("{e}");
    }
});
