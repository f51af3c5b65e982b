//! # flowstate-testbed
//!
//! Runs a scenario over real UDP sockets on the wall clock: the same sans-I/O
//! endpoints as the simulator (built by flowstate-sim's flow factory), their messages
//! turned into real RTP/RTCP/SCTP packets by [`codec`] (flowstate-wire), one event
//! loop thread per side, the coupling manager driven in the sender loop by the
//! simulator's [`flowstate_sim::coupling::ManagerHook`], the results measured by the
//! simulator's [`flowstate_sim::metrics::Metrics`] (summary.json and time series of
//! identical shape), and a pcap of each side; the packets cross the flowstate-emu
//! bottleneck emulator ([`flowstate_emu::Emulator`]) on loopback.

pub mod codec;
pub mod driver;
pub mod netns;

pub use driver::{run, SctpTransfer, SideStats, TestbedError, TestbedOptions, TestbedResult};
pub use netns::{NetnsSide, NetnsSides};
