//! `toy`: the toy rate controller of flowstate-core's tests
//! (`flowstate_core::testing::toy_controller`), compiled for this crate's tests only.
//! It is added the way every controller is (docs/ARCHITECTURE.md, "Adding a
//! controller"): this file and its line in [`super::ALL`]; the tests below run it by
//! name from a scenario, alone and coupled.

use super::common::secs;
use crate::error::FieldError;
use crate::flow::{EndpointPairFlow, ReceiverHooks};
use crate::flow_spec::{BuildInput, CouplingRole, KindDef};
use crate::overrides::{config_definitions, ConfigOverrides};
use crate::tracked::{SimSender, Tracked};
use flowstate_core::testing::toy_controller::{ToyConfig, ToyReceiver, ToySender};

/// The `toy` kind.
pub static KIND: KindDef = KindDef::new("toy", "a toy AIMD rate controller (tests only)", |b| {
    Ok(Box::new(toy_flow(b)?))
})
.coupled(CouplingRole::Rate)
.with_options(|| config_definitions(ToyConfig::OPTIONS, &["toy"], &[]));

impl SimSender for ToySender {}
impl ReceiverHooks for ToyReceiver {}

/// A toy flow.
pub type ToyFlow = EndpointPairFlow<Tracked<ToySender>, ToyReceiver>;

fn toy_flow(b: &BuildInput<'_>) -> Result<ToyFlow, FieldError> {
    let under = |e: FieldError| e.under("overrides");
    let o = ConfigOverrides::<ToyConfig, ()>::parse(&b.spec.overrides, ToyConfig::OPTIONS, &[])
        .map_err(under)?;
    let config = o.apply().map_err(under)?;
    config
        .validate()
        .map_err(|m| under(super::rtp_video::at_key("toy.", ToyConfig::OPTIONS, &m)))?;
    let start = secs(b.spec.start_secs());
    Ok(EndpointPairFlow::new(
        Tracked::new(ToySender::new(config, start)),
        ToyReceiver::default(),
    ))
}

#[cfg(test)]
mod tests {
    fn scenario(flows: &str, mechanism: &str) -> String {
        format!(
            r#"
name = "toy"
duration = "20s"
[link]
capacity = "2Mbps"
delay = "20ms"
queue = "100ms"
[coupling]
mechanism = "{mechanism}"
{flows}
"#
        )
    }

    #[test]
    fn the_toy_runs_by_name_and_fills_the_link() {
        let text = scenario("[[flows]]\nname = \"t\"\nkind = \"toy\"\n", "none");
        let r = crate::run_toml(&text, "toy.toml", Some(1)).expect("runs");
        let f = &r.summary.flows[0];
        assert_eq!(f.kind, "toy");
        assert!(
            f.throughput_mbps > 1.2 && f.throughput_mbps < 2.1,
            "{}",
            f.throughput_mbps
        );
    }

    #[test]
    fn the_toy_is_coupled_in_a_group() {
        let flows = "[[flows]]\nname = \"a\"\nkind = \"toy\"\ngroup = \"g\"\npriority = 1\n\
                     [[flows]]\nname = \"b\"\nkind = \"toy\"\ngroup = \"g\"\npriority = 3\n";
        let r = crate::run_toml(&scenario(flows, "fse"), "toy.toml", Some(1)).expect("runs");
        let (a, b) = (
            r.summary.flows[0].throughput_mbps,
            r.summary.flows[1].throughput_mbps,
        );
        let share = b / (a + b);
        assert!((share - 0.75).abs() < 0.1, "priority 3 of 4: {share}");
    }

    #[test]
    fn its_options_are_checked_where_every_kind_is() {
        let text = scenario(
            "[[flows]]\nname = \"t\"\nkind = \"toy\"\noverrides = { beta = 2 }\n",
            "none",
        );
        let e = crate::validate_toml(&text, "toy.toml").expect_err("beta above 1");
        assert!(e.to_string().contains("flows[0].overrides.beta"), "{e}");
        let listed: Vec<_> = crate::kinds::definitions()
            .into_iter()
            .filter(|d| d.applies_to == ["toy"])
            .map(|d| d.name)
            .collect();
        assert_eq!(listed, ["initial_rate", "increase", "beta", "packet_size"]);
    }
}
