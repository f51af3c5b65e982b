//! Turning a scenario into a run: `run(scenario, seed)` is a pure function.
//!
//! New flow kinds plug in through [`FlowFactory`] (wrap the endpoints in
//! [`crate::flow::EndpointPairFlow`]); coupling managers through
//! [`crate::coupling::CouplingFactory`].

use crate::coupling::{CouplingFactory, DefaultCouplingFactory, FlowInfo};
pub use crate::endpoints::{DefaultFlowFactory, FlowContext, FlowFactory};
use crate::engine::{FlowSetup, RunResult, SimConfig, Simulation};
use crate::error::FieldError;
use crate::link::{LinkConfig, LinkId};
use crate::metrics::{CouplingSummary, MetricsConfig};
use crate::queue::{Discipline, QueueLimit};
use crate::scenario::{DirectionSpec, LinkSpec, Scenario};
use crate::scheduler::{component_rng, ComponentId};
use crate::topology::{FlowDirection, FlowPath, Hops, Network, Route};
use crate::SimError;
use flowstate_core::{Bitrate, TimeDelta, Timestamp};
use rand::RngExt;
use std::path::Path;

fn secs(s: f64) -> Timestamp {
    Timestamp::from_micros((s.max(0.0) * 1e6).round() as u64)
}

/// The link a `[link]` / `[reverse_link]` section describes (also used by the
/// flowstate-emu bottleneck emulator).
pub fn link_config(l: &LinkSpec) -> LinkConfig {
    if let Some(trace) = &l.trace {
        let mut config = link_config(&LinkSpec {
            trace: None,
            capacity_trace: None,
            ..l.clone()
        });
        config.schedule = trace.rates.clone();
        config.trace = Some(trace.clone());
        return config;
    }
    let schedule = match (&l.capacity, &l.capacity_schedule) {
        (Some(c), _) => vec![(Timestamp::ZERO, Bitrate::bps(c.0))],
        (None, Some(s)) => s
            .iter()
            .map(|p| (secs(p.at.0), Bitrate::bps(p.rate.0)))
            .collect(),
        (None, None) => vec![(Timestamp::ZERO, Bitrate::ZERO)],
    };
    // A scenario that was not validated: an invalid queue becomes a 1-packet
    // drop-tail queue (validation names the field).
    let (queue, discipline) = l
        .queue
        .resolve()
        .unwrap_or((QueueLimit::Packets(1), Discipline::DropTail));
    LinkConfig {
        schedule,
        delay: TimeDelta::from_secs_f64(l.delay.0),
        queue,
        discipline,
        jitter: l.jitter.map(|j| TimeDelta::from_secs_f64(j.0)),
        loss: l.loss.unwrap_or(0.0),
        trace: None,
    }
}

/// The default reverse link: the forward link's delay and queue (limit and
/// discipline), a constant capacity
/// equal to the forward link's initial capacity, no jitter, no loss. After a trace: the
/// trace's mean capacity, and the trace's per-segment delays (so that the round-trip
/// time is a `gym-json` trace's `rtt`).
pub fn default_reverse(forward: &LinkConfig) -> LinkConfig {
    if let Some(trace) = &forward.trace {
        let mut config = LinkConfig::constant(trace.mean_rate, forward.delay, forward.queue);
        config.discipline = forward.discipline;
        config.trace = trace.delays_only().map(std::sync::Arc::new);
        return config;
    }
    LinkConfig {
        discipline: forward.discipline,
        ..LinkConfig::constant(
            forward.rate_at(Timestamp::ZERO),
            forward.delay,
            forward.queue,
        )
    }
}

/// A link that carries nothing (what an unvalidated scenario without links gets).
fn no_link() -> LinkConfig {
    LinkConfig::constant(Bitrate::ZERO, TimeDelta::ZERO, QueueLimit::Packets(1))
}

/// The named links and every flow's route over them (`None`: the dumbbell). Unknown
/// link names (a scenario that was not validated) are left out of a route.
pub fn network(scenario: &Scenario) -> Option<Network> {
    if !scenario.has_named_links() {
        return None;
    }
    let named = scenario.named_links();
    let ids = |names: &[String]| -> Vec<LinkId> {
        names
            .iter()
            .filter_map(|n| named.iter().position(|l| &l.0 == n))
            .map(|k| LinkId(k as u8))
            .collect()
    };
    let links: Vec<(String, LinkConfig)> = named
        .iter()
        .map(|(name, spec, _)| (name.clone(), link_config(spec)))
        .collect();
    let routes = scenario
        .flows
        .iter()
        .map(|f| {
            let data = Scenario::route_names(f).map_or_else(Vec::new, |r| ids(&r.1));
            let feedback = match (&f.return_route, f.return_delay) {
                (Some(r), _) => Hops::Links(ids(r)),
                (None, Some(d)) => Hops::Delay(TimeDelta::from_secs_f64(d.0.max(0.0))),
                // The default feedback path: the data route's propagation delays, with
                // no queue (docs/SCENARIOS.md, "Topologies").
                (None, None) => Hops::Delay(
                    data.iter()
                        .filter_map(|l| links.get(l.index()))
                        .fold(TimeDelta::ZERO, |acc, l| acc + l.1.delay),
                ),
            };
            Route { data, feedback }
        })
        .collect();
    Some(Network { links, routes })
}

/// Flow `index`'s extra start delay: uniform in `[0, jitter)` from its own random
/// stream of the run's seed (papers 003/004: start times random in the first second).
pub fn start_jitter(seed: u64, index: usize, jitter: f64) -> f64 {
    if jitter <= 0.0 {
        return 0.0;
    }
    let mut rng = component_rng(seed, ComponentId::start_jitter(index as u64));
    rng.random::<f64>() * jitter
}

/// The engine configuration a scenario describes (flows with `count` expanded).
pub fn sim_config(scenario: &Scenario, seed: u64) -> SimConfig {
    let scenario = &scenario.expand_counts();
    let network = network(scenario);
    // With named links the engine uses `network`; `forward` and `reverse` are then the
    // one bottleneck per direction where there is one (what the testbed emulates),
    // else the first named link.
    let (forward, reverse) = match scenario.bottleneck("") {
        Ok(b) => (link_config(&b.forward), b.reverse.as_ref().map(link_config)),
        Err(_) => (
            network
                .as_ref()
                .and_then(|n| n.links.first())
                .map_or_else(no_link, |l| l.1.clone()),
            None,
        ),
    };
    let reverse = reverse.unwrap_or_else(|| default_reverse(&forward));
    let duration = secs(scenario.duration.0);
    let flows = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(i, f)| FlowSetup {
            info: FlowInfo {
                index: i,
                name: f.name.clone(),
                kind: f.kind,
                priority: f.priority(),
                desired_rate: f.desired_rate.map(|r| Bitrate::bps(r.0)),
                group: f.group().map(str::to_string),
            },
            path: FlowPath {
                direction: match f.direction {
                    DirectionSpec::Forward => FlowDirection::Forward,
                    DirectionSpec::Reverse => FlowDirection::Reverse,
                },
                path_delay: TimeDelta::from_secs_f64(f.path_delay.map_or(0.0, |d| d.0)),
            },
            start: secs(f.start_secs() + start_jitter(seed, i, f.start_jitter_secs())),
            priority_schedule: f
                .priority_schedule
                .iter()
                .map(|p| (secs(p.at.0), p.priority))
                .collect(),
            desired_rate_schedule: f
                .desired_rate_schedule
                .iter()
                .map(|p| (secs(p.at.0), Bitrate::bps(p.rate.0)))
                .collect(),
            stop: f.stop.map(|s| secs(s.0)).filter(|&s| s < duration),
            pauses: f
                .pauses
                .iter()
                .map(|p| (secs(p.at.0), secs(p.resume.0)))
                .collect(),
        })
        .collect();
    let m = &scenario.measure;
    SimConfig {
        name: scenario.name.clone(),
        seed,
        duration,
        forward,
        reverse,
        network,
        flows,
        metrics: MetricsConfig {
            bin: m
                .bin
                .map_or(TimeDelta::millis(500), |b| TimeDelta::from_secs_f64(b.0)),
            window_start: secs(m.start.map_or(0.0, |s| s.0)),
            window_end: m.end.map_or(duration, |s| secs(s.0)),
            trace: m.trace.unwrap_or(false),
            series: m.series.unwrap_or(true),
            trace_hash: m.trace_hash.unwrap_or(true),
            recorder_thread: m.recorder_thread.unwrap_or_default(),
        },
    }
}

/// Build the run of `scenario` with `seed` without running it: the engine
/// configuration, every flow (kind, preset, overrides) from `flows` and the coupling
/// hook (mechanism, options) from `coupling`. Every error a run can give before its
/// first event comes from here.
pub fn build_with(
    scenario: &Scenario,
    seed: u64,
    flows: &dyn FlowFactory,
    coupling: &dyn CouplingFactory,
) -> Result<Simulation, SimError> {
    let scenario = &scenario.expand_counts();
    let config = sim_config(scenario, seed);
    let ctx = FlowContext {
        mechanism: scenario
            .coupling
            .as_ref()
            .map_or_else(|| "none".to_string(), |c| c.mechanism.clone()),
        gcc_report: scenario.coupling.as_ref().and_then(|c| c.gcc_report_mode()),
    };
    let mut built = Vec::with_capacity(scenario.flows.len());
    for (i, f) in scenario.flows.iter().enumerate() {
        let rng = component_rng(seed, ComponentId::flow(i as u64));
        built.push(flows.build(&ctx, i, f, rng)?);
    }
    let infos: Vec<FlowInfo> = config.flows.iter().map(|f| f.info.clone()).collect();
    let hook = match &scenario.coupling {
        // The simulator's own web-api mode, not a manager mechanism: no factory builds it.
        Some(c) if c.mechanism == crate::web_api::MECHANISM => Box::new(
            crate::web_api::WebApiHook::from_options(&c.options, &infos)?,
        ),
        Some(c) if c.mechanism == crate::coupling_rule::MECHANISM => coupling.build_rule(
            c.rule.as_deref().unwrap_or_default(),
            &c.params,
            &infos,
            component_rng(seed, ComponentId::coupling_rule()),
        )?,
        Some(c) => coupling.build(&c.mechanism, &c.options, &infos)?,
        None => coupling.build("none", &toml::Table::new(), &infos)?,
    };
    let coupling = CouplingSummary {
        mechanism: ctx.mechanism.clone(),
        groups_mode: scenario.groups_mode().name().to_string(),
    };
    let sim = Simulation::new(config, built, hook).describe(coupling, scenario.warnings());
    let Some(sbd) = scenario.sbd_config() else {
        return Ok(sim);
    };
    // SBD groups the flows of one sending host (`host`: by default the dumbbell end the
    // flow sends from); hosts are numbered by first appearance.
    let mut names: Vec<&str> = Vec::new();
    let hosts: Vec<usize> = scenario
        .flows
        .iter()
        .map(|f| {
            names
                .iter()
                .position(|h| *h == f.host())
                .unwrap_or_else(|| {
                    names.push(f.host());
                    names.len() - 1
                })
        })
        .collect();
    sim.with_sbd(sbd, scenario.groups_mode(), &hosts)
        .map_err(|e| SimError::Build(FieldError::new("sbd", e.to_string())))
}

/// Run `scenario` with `seed`, with the given flow and coupling factories.
pub fn run_with(
    scenario: &Scenario,
    seed: u64,
    flows: &dyn FlowFactory,
    coupling: &dyn CouplingFactory,
) -> Result<RunResult, SimError> {
    Ok(build_with(scenario, seed, flows, coupling)?.run())
}

/// Seed used by [`validate`]: what a run checks before its first event does not depend
/// on the seed (the seed only draws start jitter and the flows' random streams).
pub const VALIDATE_SEED: u64 = 1;

/// Check that `scenario` can run, without running it: the same construction as
/// [`run`] (flows with their presets and overrides, the coupling manager with its
/// mechanism and options), so it returns the error a run would give, or `Ok`.
pub fn validate(scenario: &Scenario) -> Result<(), SimError> {
    build_with(
        scenario,
        VALIDATE_SEED,
        &DefaultFlowFactory,
        &DefaultCouplingFactory,
    )
    .map(drop)
}

/// Parse TOML text (`file` names it in messages) and [`validate`] it.
pub fn validate_toml(text: &str, file: &str) -> Result<(), SimError> {
    validate(&Scenario::from_toml(text, file)?)
}

/// Run `scenario` with `seed`: every flow kind from the flowstate-core endpoints, the
/// scenario's coupling mechanism from flowstate-core's managers.
pub fn run(scenario: &Scenario, seed: u64) -> Result<RunResult, SimError> {
    run_with(scenario, seed, &DefaultFlowFactory, &DefaultCouplingFactory)
}

/// Parse TOML text (`file` names it in messages) and run it.
pub fn run_toml(text: &str, file: &str, seed: Option<u64>) -> Result<RunResult, SimError> {
    let s = Scenario::from_toml(text, file)?;
    let seed = seed.or(s.seed).unwrap_or(1);
    run(&s, seed)
}

/// Load a scenario file.
pub fn load(path: &Path) -> Result<Scenario, SimError> {
    let file = path.display().to_string();
    let text =
        crate::input_file::read_text(path, crate::input_file::MAX_SCENARIO_BYTES, "a scenario")
            .map_err(|message| SimError::Io {
                path: file.clone(),
                message,
            })?;
    Ok(Scenario::from_toml(&text, &file)?)
}

/// Load and run a scenario file (seed: the argument, else the file's, else 1).
pub fn run_file(path: &Path, seed: Option<u64>) -> Result<RunResult, SimError> {
    let s = load(path)?;
    let seed = seed.or(s.seed).unwrap_or(1);
    run(&s, seed)
}
