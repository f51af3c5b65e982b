//! A trace-driven link means the same in the emulator as in the simulator: the
//! simulator's sends, fed to the emulator's shaper (`PathCore`, virtual clock), leave
//! at the simulator's exit times (Mahimahi delivery, a looping csv schedule with an
//! outage, gym-json segments with delay, jitter and loss drawn from the same seeds).

use flowstate_core::{DataSize, Timestamp};
use flowstate_emu::config::PathConfig;
use flowstate_emu::core::PathCore;
use flowstate_sim::engine::TraceKind;
use flowstate_sim::link::LinkId;
use flowstate_sim::{run, Scenario};
use std::path::Path;

fn scenario(trace: &str, format: &str, rate: &str) -> Scenario {
    let text = format!(
        r#"
name = "eq"
duration = "25s"
[link]
capacity_trace = {{ file = "{trace}", format = "{format}" }}
delay = "15ms"
queue = "40pkt"
[[flows]]
name = "cbr"
kind = "cbr"
overrides = {{ rate = "{rate}", packet_size = "1200B" }}
[measure]
trace = true
"#
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/traces");
    Scenario::from_toml_in(&text, "eq.toml", &dir).expect("valid scenario")
}

/// Exit times of the forward data packets: (simulator, emulator).
fn both(s: &Scenario, seed: u64) -> (Vec<u64>, Vec<u64>) {
    let r = run(s, seed).expect("runs");
    let trace = r.trace.expect("trace kept");
    let fwd = |k: TraceKind| {
        trace
            .iter()
            .filter(move |x| x.kind == k && x.link == 0 && x.dir == 0)
    };
    let sim: Vec<u64> = fwd(TraceKind::Exit)
        .map(|x| x.time_us)
        .filter(|&t| t < 25_000_000)
        .collect();
    let mut core: PathCore<u64> = PathCore::new(
        &PathConfig::from_link(s.link.as_ref().expect("dumbbell"), seed),
        LinkId::FORWARD,
    );
    let mut emu = Vec::new();
    for x in fwd(TraceKind::Send) {
        let t = Timestamp::from_micros(x.time_us);
        while let Some(d) = core.pop_due(t) {
            emu.push(d.at.as_micros());
        }
        core.offer(t, 0, DataSize::bytes(u64::from(x.size)), x.packet);
    }
    let end = Timestamp::from_secs(25);
    while let Some(d) = core.next_deadline().filter(|&d| d < end) {
        while let Some(x) = core.pop_due(d) {
            emu.push(x.at.as_micros());
        }
        core.advance(d);
    }
    let emu = emu.into_iter().filter(|&t| t < end.as_micros()).collect();
    (sim, emu)
}

#[test]
fn mahimahi_csv_and_gym_traces_leave_at_the_same_times() {
    for (trace, format, rate) in [
        ("step.mahimahi", "mahimahi", "3Mbps"),
        ("cellular-synth.mahimahi", "mahimahi", "2Mbps"),
        ("example.csv", "csv", "2.5Mbps"),
        ("example-gym.json", "gym-json", "1.8Mbps"),
    ] {
        let s = scenario(trace, format, rate);
        let (sim, emu) = both(&s, 5);
        assert!(sim.len() > 500, "{trace}: {} exits", sim.len());
        let first = sim.iter().zip(&emu).position(|(a, b)| a != b);
        assert!(
            first.is_none() && sim.len() == emu.len(),
            "{trace}: {} vs {} exits, first difference at {first:?}: {:?} vs {:?}",
            sim.len(),
            emu.len(),
            first.map(|i| &sim[i.saturating_sub(2)..(i + 3).min(sim.len())]),
            first.map(|i| &emu[i.saturating_sub(2)..(i + 3).min(emu.len())]),
        );
    }
}
