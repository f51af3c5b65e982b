//! Chromium's encoder-side protection (option `chromium_fec`): how much of
//! GCC's target the encoder gets when the call carries RED/ULPFEC, and the ULPFEC
//! packets sent on top. One rule per file, from libwebrtc WebRTC M150
//! (signalapp/webrtc bd635df, whose last upstream merge is `branch-heads/7871`; six
//! milestones before the M156 of Chromium 156, the newest revision found):
//!
//! - [`loss_fraction`]: goog_cc's loss fraction from the RTCP receiver reports;
//! - [`loss_filter`]: the controller's 10 s max filter of it;
//! - [`protection`] (with [`rate_table`]): the hybrid NACK/FEC protection factors;
//! - [`exp_filter`]: the packets-per-frame filters the key-frame factor reads;
//! - [`rate_tracker`]: the 1 s send statistics and the sent frame rate;
//! - [`ulpfec`]: the ULPFEC generator's FEC packet count and sizes;
//! - [`controller`]: `FecControllerDefault::UpdateFecRates`, the encoder's share.
//!
//! docs/ALGORITHMS.md, "Chromium's protection: `chromium_fec`", lists each rule and
//! what is not modelled.

pub mod controller;
pub mod exp_filter;
pub mod loss_filter;
pub mod loss_fraction;
pub mod protection;
pub mod rate_table;
pub mod rate_tracker;
pub mod ulpfec;

#[cfg(test)]
mod proptests;

pub use controller::{FecConfig, FecController};
