//! The default [`FlowFactory`]: every scenario flow kind built by its own file in
//! [`crate::kinds`] (flowstate-core's senders wrapped in [`Tracked`]).
//!
//! | kind | sender / receiver | default |
//! |---|---|---|
//! | `gcc` | `MediaSender` / `MediaReceiver` | preset `chromium`, statistics codec, 2.5 Mbit/s max |
//! | `sctp` | `SctpSender` / `SctpReceiver` | paper 000's greedy data channel |
//! | `tcp-newreno`, `tcp-cubic` | `TcpSender` / `TcpReceiver` | long-lived greedy |
//! | `rap` | `RapSender` / `RapReceiver` | greedy |
//! | `tfrc` | `TfrcSender` / `TfrcReceiver` | greedy |
//! | `cbr` | [`crate::kinds::cbr`] | - |
//! | `nada` | `NadaSender` / `CcfbReceiver` | RFC 8698 defaults, statistics codec, RFC 8888 feedback every DELTA |
//! | `scream` | `ScreamSender` / `CcfbReceiver` | RFC 8298 defaults, statistics codec, RFC 8888 feedback every 20 ms |
//! | `ledbat` | `LedbatSender` / `LedbatReceiver` | RFC 6817 defaults, long-lived greedy |

use crate::error::SimError;
use crate::flow::SimFlow;
use crate::flow_spec::BuildInput;
use crate::scenario::FlowSpec;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

pub use crate::flow_spec::FlowContext;
pub use crate::kinds::gcc::{gcc_flow, GccFlow};
pub use crate::kinds::ledbat::{ledbat_flow, LedbatFlow};
pub use crate::kinds::nada::{nada_flow, NadaFlow};
pub use crate::kinds::rap::{rap_flow, RapFlow};
pub use crate::kinds::scream::{scream_flow, ScreamFlow};
pub use crate::kinds::sctp::{sctp_flow, SctpFlow};
pub use crate::kinds::tcp::{tcp_flow, TcpFlow};
pub use crate::kinds::tfrc::{tfrc_flow, TfrcFlow};
pub use crate::tracked::{SimSender, Tracked};

/// Builds the flow for one `[[flows]]` entry.
pub trait FlowFactory {
    /// `index` is the flow's position; `rng` its own random stream (derived from the
    /// run seed and `index`).
    fn build(
        &self,
        ctx: &FlowContext,
        index: usize,
        spec: &FlowSpec,
        rng: ChaCha8Rng,
    ) -> Result<Box<dyn SimFlow>, SimError>;
}

/// Builds every scenario flow kind with its own builder ([`crate::kinds::KindDef`]).
/// Seeds (video noise, short-flow sizes) come from the flow's own random stream.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultFlowFactory;

impl FlowFactory for DefaultFlowFactory {
    fn build(
        &self,
        ctx: &FlowContext,
        index: usize,
        spec: &FlowSpec,
        mut rng: ChaCha8Rng,
    ) -> Result<Box<dyn SimFlow>, SimError> {
        if crate::kinds::external::is_external(spec.kind) {
            return Err(crate::kinds::external::refuse(index, spec));
        }
        let seed: u64 = rng.random();
        let input = BuildInput {
            ctx,
            index,
            spec,
            seed,
        };
        (spec.kind.def().build)(&input)
            .map_err(|e| SimError::Build(e.under(&format!("flows[{index}]."))))
    }
}
