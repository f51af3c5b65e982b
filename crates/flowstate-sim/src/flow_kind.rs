//! The flow kind of a scenario flow, by its usual path: [`FlowKind`] is defined with
//! the flow entry it belongs to ([`crate::flow_spec`]) and listed with every kind in
//! [`crate::kinds`].

pub use crate::flow_spec::{coupling_name, Coupling, FlowKind, CALL_GROUP};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for k in FlowKind::all() {
            assert_eq!(FlowKind::from_name(k.name()), Some(k));
            assert!(!k.description().is_empty());
        }
        let mut names = FlowKind::names_list();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), FlowKind::all().count());
        // The one name rule: any case, `_` or `-`.
        assert_eq!(
            FlowKind::from_name("TCP_CUBIC"),
            FlowKind::from_name("tcp-cubic")
        );
        assert_eq!(FlowKind::from_name("tcpcubic"), None);
    }

    #[test]
    fn window_kinds_are_sctp_tcp_and_ledbat() {
        let window: Vec<_> = FlowKind::all()
            .filter(|k| k.is_window())
            .map(FlowKind::name)
            .collect();
        assert_eq!(window, ["sctp", "tcp-newreno", "tcp-cubic", "ledbat"]);
        assert_eq!(
            FlowKind::from_name("cbr").and_then(FlowKind::coupling),
            None
        );
    }

    #[test]
    fn only_a_calls_own_flows_are_coupled_by_default() {
        let call: Vec<_> = FlowKind::all()
            .filter(|k| k.default_group().is_some())
            .collect();
        let names: Vec<_> = call.iter().map(|k| k.name()).collect();
        assert_eq!(names, ["gcc", "sctp", "nada", "scream", "scream-v2"]);
        for k in call {
            assert!(
                k.coupling().is_some(),
                "{k} joins a group it cannot be coupled in"
            );
        }
    }
}
