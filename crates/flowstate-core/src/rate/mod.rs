//! Rate-based congestion controllers that paper 004 coupled with the FSE in ns-2:
//! RAP (rate-based AIMD) and TFRC (RFC 5348, equation-based).
//!
//! Each controller is sans-I/O and has a matching pair of endpoints in
//! [`crate::endpoint::rap`] and [`crate::endpoint::tfrc`] (whose closed-loop tests over
//! a dumbbell are `endpoint/rate_testbed_tests.rs`).
pub mod loss_history;
pub mod pacer;
pub mod rap;
pub mod rap_history;
pub mod rtt;
pub mod tfrc;
pub mod tfrc_equation;
pub mod tfrc_receiver;
