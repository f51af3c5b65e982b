//! cargo +nightly fuzz run rtp: parse arbitrary bytes; if that succeeds,
//! emit and re-parse (same body as tests/fuzz_smoke.rs on stable).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = flowstate_wire::fuzzing::rtp(data) {
        panic!("{e}");
    }
});
