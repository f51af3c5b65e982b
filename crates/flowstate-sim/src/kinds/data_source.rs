//! The data an `sctp`, `tcp-*` or `ledbat` flow sends: its `source` if given
//! (`on-off`, `short-flows`), else a rate source at `desired_rate`, else the kind's
//! greedy source.

use super::common::secs;
use crate::flow_spec::{AppSource, FlowSpec};
use flowstate_core::endpoint::data_source::SourceKind;
use flowstate_core::{Bitrate, DataSize};

/// The message size of an application-limited (`desired_rate`) SCTP, TCP or LEDBAT
/// source.
pub const DEFAULT_MESSAGE_SIZE: DataSize = DataSize::bytes(1200);

/// The data source of an `sctp` / `tcp-*` flow: `source` if given, else a rate source
/// at `desired_rate` if given, else `greedy` (the sender kind's default greedy source).
pub(crate) fn data_source(
    spec: &FlowSpec,
    greedy: SourceKind,
    message_size: DataSize,
    seed: u64,
) -> SourceKind {
    let start = secs(spec.start_secs());
    match (spec.source, spec.desired_rate) {
        (Some(AppSource::OnOff), _) => SourceKind::paper_on_off(start),
        (Some(AppSource::ShortFlows), _) => match SourceKind::rfc8867_short_flows(seed) {
            SourceKind::ShortFlows {
                min_file,
                max_file,
                mean_idle,
                seed,
                ..
            } => SourceKind::ShortFlows {
                min_file,
                max_file,
                mean_idle,
                start,
                seed,
            },
            other => other,
        },
        (None, Some(rate)) => SourceKind::Rate {
            rate: Bitrate::bps(rate.0),
            message_size,
            start,
            total: None,
        },
        _ => greedy,
    }
}
