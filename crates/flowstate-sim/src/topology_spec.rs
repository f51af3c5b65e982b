//! A scenario's topology fields: the dumbbell (`[link]`, `[reverse_link]`) or named
//! links (`[[links]]`, `[parking_lot]`) with per-flow `route`, `return_route`,
//! `return_delay` and `hops`: which links there are, each flow's route over them, the
//! checks of those fields (one line naming the field), and the one bottleneck per
//! direction the emulator and the testbed can emulate (docs/SCENARIOS.md,
//! "Topologies").

use crate::error::ScenarioError;
use crate::scenario::{hop_name, DirectionSpec, FlowSpec, LinkSpec, Scenario};
use crate::scenario_check::validate_link;
use crate::topology::MAX_LINKS;
use crate::units_parse::{Bps, QueueSpec, Secs};

/// The capacity of the link that stands for a fixed-delay feedback path
/// (`return_delay`) where the emulator and the testbed need a link: 10 Gbit/s (a
/// 1500-byte packet serializes in 1.2 us), with a queue that never fills at the rates
/// a scenario runs at.
pub const FIXED_DELAY_CAPACITY_BPS: f64 = 10e9;

/// One bottleneck per direction: what the emulator and the testbed emulate.
#[derive(Debug, Clone, PartialEq)]
pub struct Bottleneck {
    /// The data direction's link.
    pub forward: LinkSpec,
    /// The feedback direction's link (`None`: the dumbbell's default reverse link).
    pub reverse: Option<LinkSpec>,
}

impl Scenario {
    /// Whether the scenario uses named links (`[[links]]` or `[parking_lot]`) rather
    /// than the dumbbell.
    pub fn has_named_links(&self) -> bool {
        !self.links.is_empty() || self.parking_lot.is_some()
    }

    /// The named links in [`crate::link::LinkId`] order: a parking lot's hops
    /// (`hop1` ..), then `[[links]]`; each with the field path its errors name.
    pub fn named_links(&self) -> Vec<(String, LinkSpec, String)> {
        let mut out = Vec::new();
        if let Some(p) = &self.parking_lot {
            for k in 1..=p.hops.min(MAX_LINKS as u32) {
                let mut l = p.link.clone();
                if let Some(c) = p.capacities.as_ref().and_then(|c| c.get(k as usize - 1)) {
                    l.capacity = Some(*c);
                }
                l.name = Some(hop_name(k));
                out.push((hop_name(k), l, "parking_lot.link".to_string()));
            }
        }
        for (k, l) in self.links.iter().enumerate() {
            let name = l.name.clone().unwrap_or_default();
            out.push((name, l.clone(), format!("links[{k}]")));
        }
        out
    }

    /// The field holding flow `f`'s data route and the link names in it (`hops` spelled
    /// out as `hop<k>` names); `None` for a dumbbell flow.
    pub fn route_names(f: &FlowSpec) -> Option<(&'static str, Vec<String>)> {
        if let Some(r) = &f.route {
            return Some(("route", r.clone()));
        }
        let h = f.hops.as_ref()?;
        let (a, b) = match h.as_slice() {
            [k] => (*k, *k),
            [a, b] => (*a, *b),
            _ => (1, 0),
        };
        Some(("hops", (a..=b).map(hop_name).collect()))
    }

    /// Check the links (dumbbell or named). Errors name the field.
    pub(crate) fn validate_links(
        &self,
        err: &impl Fn(&str, String) -> ScenarioError,
    ) -> Result<(), ScenarioError> {
        if !self.has_named_links() {
            let Some(link) = &self.link else {
                return Err(err(
                    "link",
                    "required field is missing (or give named links: [[links]] or [parking_lot])"
                        .into(),
                ));
            };
            if link.name.is_some() {
                return Err(err(
                    "link.name",
                    "only [[links]] entries take a name".into(),
                ));
            }
            validate_link(link, "link", err)?;
            if let Some(r) = &self.reverse_link {
                if r.name.is_some() {
                    return Err(err(
                        "reverse_link.name",
                        "only [[links]] entries take a name".into(),
                    ));
                }
                validate_link(r, "reverse_link", err)?;
            }
            return Ok(());
        }
        if self.link.is_some() {
            return Err(err(
                "link",
                "give either the dumbbell ([link]) or named links ([[links]] / [parking_lot]), not both"
                    .into(),
            ));
        }
        if self.reverse_link.is_some() {
            return Err(err(
                "reverse_link",
                "only with [link] (with named links, give each flow a return_route or return_delay)"
                    .into(),
            ));
        }
        if let Some(p) = &self.parking_lot {
            if !(1..=MAX_LINKS as u32).contains(&p.hops) {
                return Err(err(
                    "parking_lot.hops",
                    format!("must be between 1 and {MAX_LINKS}, got {}", p.hops),
                ));
            }
            if p.link.name.is_some() {
                return Err(err(
                    "parking_lot.link.name",
                    "the hops are named hop1 .. hopN; give no name".into(),
                ));
            }
            if let Some(c) = &p.capacities {
                if c.len() != p.hops as usize {
                    return Err(err(
                        "parking_lot.capacities",
                        format!(
                            "must give one capacity per hop ({}), got {}",
                            p.hops,
                            c.len()
                        ),
                    ));
                }
                if p.link.capacity.is_some()
                    || p.link.capacity_schedule.is_some()
                    || p.link.capacity_trace.is_some()
                {
                    return Err(err(
                        "parking_lot.capacities",
                        "give either capacities or link.capacity / capacity_schedule / capacity_trace, not both"
                            .into(),
                    ));
                }
                for (k, Bps(b)) in c.iter().enumerate() {
                    if *b <= 0.0 || b.is_nan() {
                        return Err(err(
                            &format!("parking_lot.capacities[{k}]"),
                            format!("must be > 0 bit/s, got {b} bit/s"),
                        ));
                    }
                }
            }
        }
        let links = self.named_links();
        if links.len() > MAX_LINKS {
            return Err(err(
                "links",
                format!(
                    "at most {MAX_LINKS} named links (parking-lot hops included), got {}",
                    links.len()
                ),
            ));
        }
        for (k, (name, spec, field)) in links.iter().enumerate() {
            if field.starts_with("links[") {
                let Some(n) = &spec.name else {
                    return Err(err(
                        &format!("{field}.name"),
                        "required field is missing (routes name the links they cross)".into(),
                    ));
                };
                if n.trim().is_empty() || n.contains([',', '"', '\n', '\r']) {
                    return Err(err(
                        &format!("{field}.name"),
                        format!("must be non-empty without commas, quotes or newlines, got {n:?}"),
                    ));
                }
                if let Some(j) = links.iter().take(k).position(|l| &l.0 == name) {
                    let other = if links[j].2.starts_with("parking_lot") {
                        format!("the parking lot's hop {}", j + 1)
                    } else {
                        links[j].2.clone()
                    };
                    return Err(err(
                        &format!("{field}.name"),
                        format!(
                            "\"{name}\" is already used by {other} (link names must be unique)"
                        ),
                    ));
                }
            }
            validate_link(spec, field, err)?;
        }
        Ok(())
    }

    /// Check flow `i`'s topology fields against the links (`names`: the named links'
    /// names, [`Scenario::named_links`] order).
    pub(crate) fn validate_route(
        &self,
        i: usize,
        f: &FlowSpec,
        names: &[String],
        err: &impl Fn(&str, String) -> ScenarioError,
    ) -> Result<(), ScenarioError> {
        let field = |name: &str| format!("flows[{i}].{name}");
        if !self.has_named_links() {
            let given = [
                ("route", f.route.is_some()),
                ("return_route", f.return_route.is_some()),
                ("return_delay", f.return_delay.is_some()),
                ("hops", f.hops.is_some()),
            ];
            if let Some((name, _)) = given.iter().find(|g| g.1) {
                return Err(err(
                    &field(name),
                    "only with named links ([[links]] or [parking_lot]); the dumbbell's flows cross [link]".into(),
                ));
            }
            return Ok(());
        }
        if f.direction == DirectionSpec::Reverse {
            return Err(err(
                &field("direction"),
                "a flow on named links goes where its route says: give route and return_route instead of direction = \"reverse\"".into(),
            ));
        }
        let list = || {
            let shown: Vec<&str> = names.iter().take(12).map(String::as_str).collect();
            let more = if names.len() > 12 { ", ..." } else { "" };
            format!("{}{more}", shown.join(", "))
        };
        if let Some(h) = &f.hops {
            let hops = self.parking_lot.as_ref().map_or(0, |p| p.hops);
            if self.parking_lot.is_none() {
                return Err(err(
                    &field("hops"),
                    "only with [parking_lot] (with [[links]], give a route)".into(),
                ));
            }
            if f.route.is_some() {
                return Err(err(
                    &field("hops"),
                    "give either hops or route, not both".into(),
                ));
            }
            let ok = match h.as_slice() {
                [k] => (1..=hops).contains(k),
                [a, b] => 1 <= *a && a <= b && *b <= hops,
                _ => false,
            };
            if !ok {
                return Err(err(
                    &field("hops"),
                    format!(
                        "must be [k] or [first, last] with 1 <= first <= last <= {hops} (the parking lot's hops), got {h:?}"
                    ),
                ));
            }
        }
        let Some((key, route)) = Self::route_names(f) else {
            return Err(err(
                &field("route"),
                format!(
                    "required field is missing: with named links every flow names the links its data crosses (links: {})",
                    list()
                ),
            ));
        };
        check_path(&route, key, names, &field, err, &list)?;
        if let Some(r) = &f.return_route {
            if f.return_delay.is_some() {
                return Err(err(
                    &field("return_delay"),
                    "give either return_route or return_delay, not both".into(),
                ));
            }
            check_path(r, "return_route", names, &field, err, &list)?;
        }
        if let Some(Secs(d)) = f.return_delay {
            if d < 0.0 || d.is_nan() {
                return Err(err(
                    &field("return_delay"),
                    format!("must be >= 0 s, got {d} s"),
                ));
            }
        }
        Ok(())
    }

    /// The one bottleneck per direction the emulator and the testbed emulate: the
    /// dumbbell's links, or the one link every flow's data crosses and the one link
    /// (or fixed delay) of its feedback. A scenario with more than one bottleneck in a
    /// direction is refused with one line naming the field.
    pub fn bottleneck(&self, file: &str) -> Result<Bottleneck, ScenarioError> {
        let err = |field: &str, message: String| ScenarioError {
            file: file.to_string(),
            field: field.to_string(),
            message,
        };
        if !self.has_named_links() {
            let link = self
                .link
                .clone()
                .ok_or_else(|| err("link", "required field is missing".into()))?;
            return Ok(Bottleneck {
                forward: link,
                reverse: self.reverse_link.clone(),
            });
        }
        const ONLY_ONE: &str = "the emulator and the testbed emulate one bottleneck per direction; run multi-link topologies in the simulator (flowstate run)";
        let links = self.named_links();
        let spec = |name: &str| links.iter().find(|l| l.0 == name).map(|l| l.1.clone());
        let mut forward: Option<(String, usize)> = None;
        let mut reverse: Option<(Option<String>, Secs, usize)> = None;
        for (i, f) in self.flows.iter().enumerate() {
            let field = |n: &str| format!("flows[{i}].{n}");
            let Some((key, route)) = Self::route_names(f) else {
                return Err(err(&field("route"), "required field is missing".into()));
            };
            let [one] = route.as_slice() else {
                return Err(err(
                    &field(key),
                    format!(
                        "crosses {} links ({}); {ONLY_ONE}",
                        route.len(),
                        route.join(", ")
                    ),
                ));
            };
            match &forward {
                Some((l, j)) if l != one => {
                    return Err(err(
                        &field(key),
                        format!("crosses \"{one}\" but flows[{j}] crosses \"{l}\": two bottlenecks; {ONLY_ONE}"),
                    ))
                }
                _ => forward = forward.or(Some((one.clone(), i))),
            }
            let back = match (&f.return_route, f.return_delay) {
                (Some(r), _) => {
                    let [one] = r.as_slice() else {
                        return Err(err(
                            &field("return_route"),
                            format!("crosses {} links ({}); {ONLY_ONE}", r.len(), r.join(", ")),
                        ));
                    };
                    (Some(one.clone()), Secs(0.0))
                }
                (None, Some(d)) => (None, d),
                (None, None) => (None, spec(one).map_or(Secs(0.0), |l| l.delay)),
            };
            match &reverse {
                Some((l, d, j)) if (l, d.0) != (&back.0, back.1 .0) => {
                    return Err(err(
                        &field(if f.return_route.is_some() {
                            "return_route"
                        } else {
                            "return_delay"
                        }),
                        format!(
                        "differs from flows[{j}]'s feedback path: two feedback paths; {ONLY_ONE}"
                    ),
                    ))
                }
                _ => reverse = reverse.or(Some((back.0, back.1, i))),
            }
        }
        let forward = forward
            .and_then(|(l, _)| spec(&l))
            .ok_or_else(|| err("flows", "at least one [[flows]] entry is required".into()))?;
        let reverse = match reverse {
            Some((Some(l), _, _)) => spec(&l),
            Some((None, d, _)) => Some(LinkSpec {
                name: None,
                capacity: Some(Bps(FIXED_DELAY_CAPACITY_BPS)),
                capacity_schedule: None,
                capacity_trace: None,
                trace: None,
                delay: d,
                queue: QueueSpec::Packets(100_000.0).into(),
                jitter: None,
                loss: None,
            }),
            None => None,
        };
        let mut forward = forward;
        forward.name = None;
        let reverse = reverse.map(|mut r| {
            r.name = None;
            r
        });
        Ok(Bottleneck { forward, reverse })
    }
}

/// A `route` / `return_route`: not empty, every name a link, no link twice.
fn check_path(
    route: &[String],
    key: &str,
    names: &[String],
    field: &impl Fn(&str) -> String,
    err: &impl Fn(&str, String) -> ScenarioError,
    list: &impl Fn() -> String,
) -> Result<(), ScenarioError> {
    if route.is_empty() {
        return Err(err(
            &field(key),
            format!("must name at least one link (links: {})", list()),
        ));
    }
    for (k, name) in route.iter().enumerate() {
        if !names.contains(name) {
            return Err(err(
                &field(&format!("{key}[{k}]")),
                format!("unknown link \"{name}\" (links: {})", list()),
            ));
        }
        if let Some(j) = route.iter().take(k).position(|n| n == name) {
            return Err(err(
                &field(&format!("{key}[{k}]")),
                format!("\"{name}\" is already crossed at {key}[{j}] (a route crosses a link at most once: no cycles)"),
            ));
        }
    }
    Ok(())
}
