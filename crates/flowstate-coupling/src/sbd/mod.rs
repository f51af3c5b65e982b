//! Shared bottleneck detection (SBD): RFC 8382, sans-I/O.
//!
//! Flows that share a bottleneck see one-way delay (OWD) distributions of a similar
//! shape. Each receiver summarises its flow's OWD and loss per base interval T into
//! four statistics (skew_est, var_est, freq_est, pkt_loss), sends them to the sender
//! every T, and the sender's grouping algorithm puts flows with close statistics into
//! one group. The groups are what a coupling manager couples (keyed by
//! [`crate::coupling::GroupKey`]).
//!
//! | part | RFC 8382 | file |
//! |---|---|---|
//! | parameters, defaults | 2.1, 2.2 (Table 1) | [`config`] |
//! | one base interval T | 3.2 (3.2.2, 3.2.3 per sample) | `base_interval.rs` |
//! | summary over N, M, F intervals; oscillation noise | 3.2.1-3.2.5, 3.4.1, 3.4.2 | [`statistics`] |
//! | receiver: OWD, loss, intervals on its clock | 3.1.2, 3.2.5, 4 | [`receiver`] |
//! | feedback to the sender (16 bytes per flow per T) | 3.1.2 | [`feedback`] |
//! | grouping | 3.3.1, 3.3.2 | [`grouping`] |
//!
//! Deviations and readings of the RFC are named options of [`SbdConfig`] or listed in
//! docs/ALGORITHMS.md ("Shared bottleneck detection (RFC 8382)").
//!
//! ```
//! use flowstate_coupling::sbd::{FlowGrouping, SbdConfig, SbdReceiver};
//! use flowstate_coupling::{TimeDelta, Timestamp};
//!
//! let config = SbdConfig::default();
//! let mut receivers: Vec<SbdReceiver> =
//!     (0..2).map(|ssrc| SbdReceiver::new(ssrc, config).unwrap()).collect();
//! let mut grouping = FlowGrouping::new(config).unwrap();
//! // Both flows cross one standing queue of 100 ms that empties for 5 packets in 50:
//! // most OWD samples lie above their mean, so skew_est < c_s: a bottleneck.
//! for i in 0..2_000u64 {
//!     let sent = Timestamp::from_millis(10 * i);
//!     let queue = TimeDelta::millis(if i % 50 < 5 { 0 } else { 100 });
//!     for r in &mut receivers {
//!         r.on_packet(sent + TimeDelta::millis(20) + queue, sent, i);
//!     }
//! }
//! let feedback: Vec<_> = receivers
//!     .iter_mut()
//!     .filter_map(|r| r.poll_feedback())
//!     .filter_map(|fb| Some((fb.ssrc, fb.statistics()?)))
//!     .collect();
//! let groups = grouping.group(&feedback);
//! assert_eq!(groups.shared, vec![vec![0, 1]]);
//! ```

mod base_interval;
pub mod config;
pub mod feedback;
pub mod grouping;
pub mod receiver;
pub mod statistics;

pub use config::{SbdConfig, SbdConfigError};
pub use feedback::{FeedbackError, SbdFeedback};
pub use grouping::{FlowGrouping, Groups};
pub use receiver::SbdReceiver;
pub use statistics::SummaryStats;
