//! `python` and `onnx`: flows whose rate is set by a controller outside the simulator
//! (flowstate-core's external rate controller, `endpoint::external`): a paced RTP
//! sender with RFC 8888 feedback every `feedback_interval_ms`, asking a
//! [`RateDecider`] for its rate at each report; coupled as a rate flow.
//!
//! The decider comes from the driver: a run built with a decider factory
//! (crate::deciders::DeciderFlowFactory; the Python package's runs) gets one per
//! flow, built from the flow's `controller` and `params`. The kind's own builder, which
//! the scenario check runs, builds the flow with [`Unbound`], which is never asked:
//! the default flow factory refuses these kinds with one line (the Rust-only tools
//! cannot load Python code).

use super::common::secs;
use super::rtp_video::{ccfb_receiver, read_config};
use crate::error::{FieldError, SimError};
use crate::flow::EndpointPairFlow;
use crate::flow_spec::{BuildInput, CouplingRole, FlowKind, FlowSpec, KindDef};
use crate::overrides::config_definitions;
use crate::tracked::{SimSender, Tracked};
use flowstate_core::endpoint::external::{
    DecideError, ExternalConfig, ExternalSender, FeedbackBatch, RateDecider, RateDecision,
};
use flowstate_core::endpoint::rfc8888::CcfbReceiver;

/// The `python` kind.
pub static PYTHON: KindDef = KindDef::new(
    "python",
    "a rate controller written in Python (controller = \"module:Class\", params = {...}): paced RTP packets at the rate it returns at each RFC 8888 report; coupled as a rate flow",
    |b| Ok(Box::new(external_flow(b, Box::new(Unbound))?)),
)
.coupled(CouplingRole::Rate)
.with_options(options);

/// The `onnx` kind.
pub static ONNX: KindDef = KindDef::new(
    "onnx",
    "a learned bandwidth estimator in an ONNX file (controller = \"model.onnx\") fed the MMSys 2024 challenge's 150-value observation, run by onnxruntime; coupled as a rate flow",
    |b| Ok(Box::new(external_flow(b, Box::new(Unbound))?)),
)
.coupled(CouplingRole::Rate)
.with_options(options);

fn options() -> Vec<crate::overrides::OverrideDef> {
    config_definitions(ExternalConfig::OPTIONS, &["python", "onnx"], &[])
}

/// A flow of a kind whose rate a decider outside the simulator sets.
pub fn is_external(kind: FlowKind) -> bool {
    kind == FlowKind::of(&PYTHON) || kind == FlowKind::of(&ONNX)
}

/// An external controller's flow.
pub type ExternalFlow = EndpointPairFlow<Tracked<ExternalSender>, CcfbReceiver>;

impl SimSender for ExternalSender {}

/// The decider of a flow built without a decider factory (the scenario check's build):
/// never asked, since the default flow factory refuses the kind.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unbound;

impl RateDecider for Unbound {
    fn decide(&mut self, _batch: &FeedbackBatch) -> Result<RateDecision, DecideError> {
        Err(DecideError::new(
            "no controller is attached to this flow (run it with a decider factory)",
        ))
    }
}

/// A flow's sender configuration from its `overrides`. Error: the key under
/// `overrides`.
pub fn external_config(spec: &FlowSpec) -> Result<ExternalConfig, FieldError> {
    // `validate` holds the feedback interval at >= 1 ms
    // (crate::bounds::MIN_FEEDBACK_INTERVAL_SECS).
    let (_, c) = read_config::<ExternalConfig, ()>(
        spec,
        ExternalConfig::OPTIONS,
        &[],
        "external.",
        ExternalConfig::validate,
    )?;
    Ok(c)
}

/// The flow's `controller`, checked for its kind: `"module:Class"` (or
/// `"onnx:model.onnx"`) for `python`, a model file for `onnx`. Error: the field
/// `controller`.
pub fn controller(spec: &FlowSpec) -> Result<&str, FieldError> {
    let err = |m: String| FieldError::new("controller", m);
    let kind = spec.kind.name();
    let Some(c) = spec.controller.as_deref().map(str::trim) else {
        return Err(err(match kind {
            "onnx" => "an onnx flow names its model file: controller = \"path/to/model.onnx\"".into(),
            _ => "a python flow names its controller class: controller = \"module:Class\" (module importable, or a .py file next to the scenario)".into(),
        }));
    };
    if kind == "onnx" {
        if c.is_empty() {
            return Err(err(
                "expected an ONNX model file, got an empty string".into()
            ));
        }
        return Ok(c);
    }
    match c.rsplit_once(':') {
        Some((module, class)) if !module.trim().is_empty() && !class.trim().is_empty() => Ok(c),
        _ => Err(err(format!(
            "expected \"module:Class\" (or \"onnx:model.onnx\"), got \"{c}\""
        ))),
    }
}

/// An external controller's flow asking `decider` for its rate.
pub fn external_flow(
    b: &BuildInput<'_>,
    decider: Box<dyn RateDecider>,
) -> Result<ExternalFlow, FieldError> {
    controller(b.spec)?;
    let mut cfg = external_config(b.spec)?;
    cfg.ecn = b.spec.ecn();
    let interval = cfg.feedback_interval;
    let ssrc = b.index as u32 + 1;
    let sender = ExternalSender::new(cfg, ssrc, secs(b.spec.start_secs()), decider);
    Ok(EndpointPairFlow::new(
        Tracked::new(sender),
        ccfb_receiver(b.index, interval, Default::default()),
    ))
}

/// The default factory's answer to a `python` / `onnx` flow.
pub fn refuse(index: usize, spec: &FlowSpec) -> SimError {
    SimError::Build(FieldError::new(
        format!("flows[{index}].kind"),
        format!(
            "a {} flow's controller runs in Python: run the scenario with `flowstate run` or flowstate.run() (the Python package); this tool cannot load it",
            spec.kind
        ),
    ))
}

/// `controller` and `params` are for `python` / `onnx` flows only. Error: the field.
pub fn check_controller_fields(spec: &FlowSpec) -> Result<(), FieldError> {
    if is_external(spec.kind) {
        return Ok(());
    }
    let only = |field: &str| {
        FieldError::new(
            field,
            format!(
                "only python and onnx flows take a {field}, and this flow is {}",
                spec.kind
            ),
        )
    };
    if spec.controller.is_some() {
        return Err(only("controller"));
    }
    if !spec.params.is_empty() {
        return Err(only("params"));
    }
    Ok(())
}
