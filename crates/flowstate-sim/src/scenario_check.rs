//! A scenario's checks ([`Scenario::validate`], called by [`Scenario::from_toml`]):
//! every value in range, every name known, every flow built by its kind's own builder,
//! each error one line naming the file and the field. The schema is `scenario.rs`; the
//! topology's checks are in `topology_spec.rs`.

use crate::error::{FieldError, ScenarioError};
use crate::flow_spec::FlowSpec;
use crate::sbd::GroupsMode;
use crate::scenario::{micros, LinkSpec, Scenario, MAX_DURATION_SECS, MAX_FLOW_COUNT, MECHANISMS};

impl Scenario {
    /// Check every value (called by [`Scenario::from_toml`]; call it again after
    /// editing a scenario in code).
    pub fn validate(&self, file: &str) -> Result<(), ScenarioError> {
        let err = |field: &str, message: String| ScenarioError {
            file: file.to_string(),
            field: field.to_string(),
            message,
        };
        let dur = self.duration.0;
        if self.name.trim().is_empty() {
            return Err(err("name", "must not be empty".into()));
        }
        if dur <= 0.0 {
            return Err(err("duration", format!("must be > 0 s, got {dur} s")));
        }
        if micros(dur) < 1.0 {
            // Before: 0.1us ran for 0 us (the clock counts whole microseconds).
            return Err(err(
                "duration",
                format!("must be at least 1 us (the simulator's clock resolution), got {dur} s"),
            ));
        }
        if dur > MAX_DURATION_SECS {
            return Err(err(
                "duration",
                format!("must be at most {MAX_DURATION_SECS:e} s (the simulator's clock range), got {dur:e} s"),
            ));
        }
        self.validate_links(&err)?;
        if let Some(c) = &self.coupling {
            // `web-api` is the simulator's own mode (crate::web_api), not a manager
            // mechanism.
            let web_api = c.mechanism == crate::web_api::MECHANISM;
            let rule = c.mechanism == crate::coupling_rule::MECHANISM;
            if !(web_api || rule || MECHANISMS.contains(&c.mechanism.as_str())) {
                return Err(err(
                    "coupling.mechanism",
                    format!(
                        "expected one of {}|{}|{} (any case, or as printed: FSEv2, FSE-NG, ...), got \"{}\"",
                        MECHANISMS.join("|"),
                        crate::web_api::MECHANISM,
                        crate::coupling_rule::MECHANISM,
                        c.mechanism
                    ),
                ));
            }
            crate::coupling_rule::check_fields(
                &c.mechanism,
                c.rule.as_deref(),
                &c.params,
                &c.options,
                c.gcc_report.as_deref(),
            )
            .map_err(|e| err(&e.field, e.message))?;
            match c.groups_mode() {
                None => {
                    return Err(err(
                        "coupling.groups",
                        format!(
                            "expected one of {}, got \"{}\"",
                            GroupsMode::NAMES.join("|"),
                            c.groups.as_deref().unwrap_or_default()
                        ),
                    ))
                }
                Some(GroupsMode::Sbd) if web_api || c.mechanism == "none" => {
                    return Err(err(
                        "coupling.groups",
                        format!(
                            "\"sbd\" moves flows between a coupling manager's groups; mechanism \"{}\" has none",
                            c.mechanism
                        ),
                    ))
                }
                _ => {}
            }
        }
        if let Some(config) = self.sbd_config() {
            if let Err(e) = config.validated() {
                return Err(err("sbd", e.to_string()));
            }
        }
        self.check_bounds(file)?;
        if self.flows.is_empty() {
            return Err(err(
                "flows",
                "at least one [[flows]] entry is required".into(),
            ));
        }
        // The web-api mode couples what a web page can read and control: a flow of
        // another kind in a coupling group would run uncoupled without a word.
        if self
            .coupling
            .as_ref()
            .is_some_and(|c| c.mechanism == crate::web_api::MECHANISM)
        {
            if let Some((i, f)) = self.flows.iter().enumerate().find(|(_, f)| {
                f.group().is_some() && !crate::web_api::FLOW_KINDS.contains(&f.kind.name())
            }) {
                return Err(err(
                    &format!("flows[{i}].group"),
                    format!(
                        "coupling mechanism \"{}\" couples only {} flows (what a web page reads and controls); \
                         the '{}' flow \"{}\" would run uncoupled in group \"{}\": leave it out of the group \
                         (cross_traffic = true) or choose another mechanism",
                        crate::web_api::MECHANISM,
                        crate::web_api::FLOW_KINDS.join(", "),
                        f.kind.name(),
                        f.name,
                        f.group().unwrap_or_default()
                    ),
                ));
            }
        }
        // Named links (none for the dumbbell), read once for every flow's route.
        let link_names: Vec<String> = self.named_links().into_iter().map(|l| l.0).collect();
        // Each name's first flow (a map: 10,000 flows compared pairwise cost 50 M
        // string comparisons per run).
        let mut first_with_name: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(self.flows.len());
        for (i, f) in self.flows.iter().enumerate() {
            let field = |name: &str| format!("flows[{i}].{name}");
            if f.name.is_empty() || f.name.contains([',', '"', '\n', '\r']) {
                return Err(err(
                    &field("name"),
                    format!(
                        "must be non-empty without commas, quotes or newlines, got {:?}",
                        f.name
                    ),
                ));
            }
            if let Some(&j) = first_with_name.get(f.name.as_str()) {
                return Err(err(
                    &field("name"),
                    format!("\"{}\" is already used by flows[{j}]", f.name),
                ));
            }
            first_with_name.insert(f.name.as_str(), i);
            let start = f.start_secs();
            if start < 0.0 {
                return Err(err(
                    &field("start"),
                    format!("must be >= 0 s, got {start} s"),
                ));
            }
            if start >= dur {
                return Err(err(
                    &field("start"),
                    format!("must be before the end of the run ({dur} s), got {start} s"),
                ));
            }
            let jitter = f.start_jitter_secs();
            if !(jitter.is_finite() && jitter >= 0.0) {
                return Err(err(
                    &field("start_jitter"),
                    format!("must be >= 0 s, got {jitter} s"),
                ));
            }
            let stop = f.stop.map_or(dur, |s| s.0);
            if jitter > 0.0 && start + jitter >= stop {
                return Err(err(
                    &field("start_jitter"),
                    format!(
                        "start + start_jitter ({} s) must be before the flow's stop ({stop} s)",
                        start + jitter
                    ),
                ));
            }
            // Pauses and schedules must follow the latest possible start.
            let start = start + jitter;
            if let Some(n) = f.count {
                if !(1..=MAX_FLOW_COUNT).contains(&n) {
                    return Err(err(
                        &field("count"),
                        format!("must be between 1 and {MAX_FLOW_COUNT}, got {n}"),
                    ));
                }
            }
            let mut prev = start;
            for (k, p) in f.priority_schedule.iter().enumerate() {
                let fk = format!("flows[{i}].priority_schedule[{k}]");
                if p.at.0 <= prev || p.at.0 >= stop {
                    return Err(err(
                        &format!("{fk}.at"),
                        format!(
                            "must be after the flow's (latest) start and the previous point ({prev} s) and before its stop ({stop} s), got {} s",
                            p.at.0
                        ),
                    ));
                }
                if let Err(e) = flowstate_core::coupling::check_priority(p.priority) {
                    return Err(err(&format!("{fk}.priority"), priority_message(&e)));
                }
                prev = p.at.0;
            }
            let mut prev = -1.0;
            for (k, p) in f.desired_rate_schedule.iter().enumerate() {
                let fk = format!("flows[{i}].desired_rate_schedule[{k}]");
                if !f.kind.def().takes_rate_schedule {
                    return Err(err(
                        &field("desired_rate_schedule"),
                        format!(
                            "only {} flows take one, not {}",
                            crate::kinds::names_where(|k| k.takes_rate_schedule),
                            f.kind
                        ),
                    ));
                }
                if p.at.0 < 0.0 || p.at.0 <= prev {
                    return Err(err(
                        &format!("{fk}.at"),
                        format!(
                            "must be >= 0 s and after the previous point ({prev} s), got {} s",
                            p.at.0
                        ),
                    ));
                }
                if p.rate.0 <= 0.0 {
                    return Err(err(
                        &format!("{fk}.rate"),
                        format!("must be > 0 bit/s, got {} bit/s", p.rate.0),
                    ));
                }
                prev = p.at.0;
            }
            if let Some(s) = f.stop {
                if s.0 <= start || micros(s.0) <= micros(start) {
                    return Err(err(
                        &field("stop"),
                        format!(
                            "must be at least 1 us (the clock resolution) after start ({start} s), got {} s",
                            s.0
                        ),
                    ));
                }
                if s.0 > dur {
                    return Err(err(
                        &field("stop"),
                        format!("must be <= duration ({dur} s), got {} s", s.0),
                    ));
                }
            }
            let mut prev_end = start;
            for (k, p) in f.pauses.iter().enumerate() {
                if p.at.0 <= prev_end {
                    return Err(err(
                        &format!("flows[{i}].pauses[{k}].at"),
                        format!(
                            "must be after the flow's start and the previous resume ({prev_end} s), got {} s",
                            p.at.0
                        ),
                    ));
                }
                if p.resume.0 <= p.at.0 || p.resume.0 >= stop {
                    return Err(err(
                        &format!("flows[{i}].pauses[{k}].resume"),
                        format!(
                            "must be after at ({} s) and before the flow's stop ({stop} s), got {} s",
                            p.at.0, p.resume.0
                        ),
                    ));
                }
                prev_end = p.resume.0;
            }
            if let Err(e) = flowstate_core::coupling::check_priority(f.priority()) {
                return Err(err(&field("priority"), priority_message(&e)));
            }
            if let Some(r) = f.desired_rate {
                if r.0 <= 0.0 {
                    return Err(err(
                        &field("desired_rate"),
                        format!("must be > 0 bit/s, got {} bit/s", r.0),
                    ));
                }
            }
            if let Some(d) = f.path_delay {
                if d.0 < 0.0 {
                    return Err(err(
                        &field("path_delay"),
                        format!("must be >= 0 s, got {} s", d.0),
                    ));
                }
            }
            if f.group.as_deref().is_some_and(|g| g.is_empty()) {
                return Err(err(&field("group"), "must not be empty".into()));
            }
            if f.group.is_some() && f.cross_traffic == Some(true) {
                return Err(err(
                    &field("cross_traffic"),
                    "cross traffic is never coupled: remove `group` or `cross_traffic`".into(),
                ));
            }
            if f.group.is_some() && f.kind.coupling().is_none() {
                return Err(err(
                    &field("group"),
                    format!(
                        "{} flows have no congestion controller to couple: remove `group`",
                        f.kind
                    ),
                ));
            }
            self.validate_route(i, f, &link_names, &err)?;
            validate_kind_fields(f).map_err(|e| e.under(&format!("flows[{i}].")).in_file(file))?;
        }
        if let Some(c) = &self.coupling {
            if c.mechanism != "none" && self.flows.iter().all(|f| f.group().is_none()) {
                return Err(err(
                    "coupling.mechanism",
                    format!(
                        "\"{}\" couples no flow: no flow is in a coupling group (gcc, sctp, nada and scream flows join group \"{}\" unless marked cross_traffic; give other flows a `group`)",
                        c.mechanism,
                        crate::flow_kind::CALL_GROUP
                    ),
                ));
            }
        }
        let m = &self.measure;
        let ms = m.start.map_or(0.0, |s| s.0);
        let me = m.end.map_or(dur, |s| s.0);
        if ms < 0.0 {
            return Err(err("measure.start", format!("must be >= 0 s, got {ms} s")));
        }
        if me <= ms || micros(me) <= micros(ms) {
            return Err(err(
                "measure.end",
                format!(
                    "must be at least 1 us (the clock resolution) after measure.start ({ms} s), got {me} s"
                ),
            ));
        }
        if me > dur {
            return Err(err(
                "measure.end",
                format!("must be <= duration ({dur} s), got {me} s"),
            ));
        }
        if let Some(b) = m.bin {
            if b.0 < 1e-3 {
                return Err(err(
                    "measure.bin",
                    format!("must be >= 1 ms, got {} s", b.0),
                ));
            }
        }
        Ok(())
    }
}

/// The core's priority error as a field message ("must be a number in ...").
fn priority_message(e: &flowstate_core::coupling::CouplingError) -> String {
    let text = e.to_string();
    match text.strip_prefix("priority ") {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// Check a flow's `preset`, `overrides` and `source` by building it, with the kind's
/// own builder (the one the run calls), and dropping it. Error: the field under the
/// flow (`preset`, `overrides.k_up`).
fn validate_kind_fields(f: &FlowSpec) -> Result<(), FieldError> {
    crate::kinds::check_takes_preset(f.kind, f.preset.as_deref())?;
    let input = crate::flow_spec::BuildInput {
        ctx: &crate::flow_spec::FlowContext::default(),
        index: 0,
        spec: f,
        seed: 0,
    };
    (f.kind.def().build)(&input)?;
    crate::kinds::external::check_controller_fields(f)?;
    if f.source.is_some() && !f.kind.def().takes_source {
        return Err(FieldError::new(
            "source",
            format!(
                "only {} flows take a source, not {}",
                crate::kinds::names_where(|k| k.takes_source),
                f.kind
            ),
        ));
    }
    Ok(())
}

pub(crate) fn validate_link(
    l: &LinkSpec,
    name: &str,
    err: &impl Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let field = |f: &str| format!("{name}.{f}");
    if l.capacity_trace.is_some() {
        if l.capacity.is_some() || l.capacity_schedule.is_some() {
            return Err(err(
                &field("capacity_trace"),
                "give one of capacity, capacity_schedule or capacity_trace, not several".into(),
            ));
        }
        if l.trace.is_none() {
            return Err(err(
                &field("capacity_trace"),
                "the trace is not loaded (Scenario::from_toml or load_traces reads it)".into(),
            ));
        }
    }
    match (&l.capacity, &l.capacity_schedule) {
        (Some(_), Some(_)) => {
            return Err(err(
                &field("capacity"),
                "give either capacity or capacity_schedule, not both".into(),
            ))
        }
        (None, None) if l.capacity_trace.is_some() => {}
        (None, None) => {
            return Err(err(
                &field("capacity"),
                "missing: give capacity (e.g. \"2Mbps\"), capacity_schedule or capacity_trace"
                    .into(),
            ))
        }
        (Some(c), None) => {
            if c.0 <= 0.0 {
                return Err(err(
                    &field("capacity"),
                    format!("must be > 0 bit/s, got {} bit/s", c.0),
                ));
            }
        }
        (None, Some(s)) => {
            if s.is_empty() {
                return Err(err(&field("capacity_schedule"), "must not be empty".into()));
            }
            let mut prev = -1.0;
            for (k, p) in s.iter().enumerate() {
                let f = format!("{name}.capacity_schedule[{k}]");
                if k == 0 && p.at.0 != 0.0 {
                    return Err(err(
                        &format!("{f}.at"),
                        format!("the first point must be at 0 s, got {} s", p.at.0),
                    ));
                }
                if p.at.0 <= prev {
                    return Err(err(
                        &format!("{f}.at"),
                        format!(
                            "must be after the previous point ({prev} s), got {} s",
                            p.at.0
                        ),
                    ));
                }
                if p.rate.0 <= 0.0 {
                    return Err(err(
                        &format!("{f}.rate"),
                        format!("must be > 0 bit/s, got {} bit/s", p.rate.0),
                    ));
                }
                prev = p.at.0;
            }
        }
    }
    if l.delay.0 < 0.0 {
        return Err(err(
            &field("delay"),
            format!("must be >= 0 s, got {} s", l.delay.0),
        ));
    }
    if let Err((key, m)) = l.queue.resolve() {
        let f = if key.is_empty() {
            field("queue")
        } else {
            field(&format!("queue.{key}"))
        };
        return Err(err(&f, m));
    }
    if let Some(j) = l.jitter {
        if j.0 < 0.0 {
            return Err(err(
                &field("jitter"),
                format!("must be >= 0 s, got {} s", j.0),
            ));
        }
    }
    if let Some(p) = l.loss {
        if !(0.0..1.0).contains(&p) {
            return Err(err(
                &field("loss"),
                format!("must be a probability in [0, 1), got {p}"),
            ));
        }
    }
    Ok(())
}
