//! cargo +nightly fuzz run utp: parse arbitrary bytes as a uTP (BEP 29) packet; if
//! that succeeds, emit and re-parse (same body as tests/fuzz_smoke.rs on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = flowstate_wire::fuzzing::utp(data) {
        panic!("{e}");
    }
});
