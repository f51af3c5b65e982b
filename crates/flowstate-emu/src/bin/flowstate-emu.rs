//! `flowstate-emu SCENARIO.toml --receiver ADDR [options]`: run the bottleneck emulator
//! standalone with a scenario file's `[link]` (forward) and `[reverse_link]` (reverse;
//! default as in the simulator) for the scenario's duration or `--duration`.
//!
//! Prints `route 0: sender-facing ADDR receiver-facing ADDR` once bound, then one
//! summary line per direction at the end. Bad input: one line on stderr, exit status 2.

use flowstate_emu::{Emulator, EmulatorConfig, PathConfig, PathStats, Route};
use flowstate_sim::Scenario;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

const USAGE: &str = "usage: flowstate-emu SCENARIO.toml --receiver ADDR [--listen ADDR] \
[--receiver-facing ADDR] [--seed N] [--duration SECS]";

/// Default bind address of both emulator sockets.
const DEFAULT_BIND: &str = "127.0.0.1:0";

#[derive(Debug)]
struct Args {
    scenario: String,
    receiver: SocketAddr,
    listen: SocketAddr,
    receiver_facing: SocketAddr,
    seed: Option<u64>,
    duration: Option<f64>,
}

fn parse_args(mut it: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut scenario = None;
    let mut receiver = None;
    let addr = |flag: &str, v: Option<String>| -> Result<SocketAddr, String> {
        let v = v.ok_or_else(|| format!("{flag}: needs a value"))?;
        v.parse()
            .map_err(|_| format!("{flag}: expected an address such as 127.0.0.1:5000, got \"{v}\""))
    };
    let default: SocketAddr = DEFAULT_BIND
        .parse()
        .map_err(|_| "default address".to_string())?;
    let (mut listen, mut receiver_facing, mut seed, mut duration) = (default, default, None, None);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--receiver" => receiver = Some(addr("--receiver", it.next())?),
            "--listen" => listen = addr("--listen", it.next())?,
            "--receiver-facing" => receiver_facing = addr("--receiver-facing", it.next())?,
            "--seed" => {
                let v = it.next().unwrap_or_default();
                seed = Some(
                    v.parse()
                        .map_err(|_| format!("--seed: expected an integer, got \"{v}\""))?,
                );
            }
            "--duration" => {
                let v = it.next().unwrap_or_default();
                let d: f64 = v
                    .parse()
                    .ok()
                    .filter(|d: &f64| d.is_finite() && *d > 0.0)
                    .ok_or_else(|| format!("--duration: expected seconds > 0, got \"{v}\""))?;
                duration = Some(d);
            }
            "-h" | "--help" => return Err(USAGE.to_string()),
            s if s.starts_with('-') => return Err(format!("{s}: unknown option; {USAGE}")),
            s if scenario.is_none() => scenario = Some(s.to_string()),
            s => return Err(format!("{s}: unexpected argument; {USAGE}")),
        }
    }
    Ok(Args {
        scenario: scenario.ok_or_else(|| USAGE.to_string())?,
        receiver: receiver.ok_or_else(|| format!("--receiver: required; {USAGE}"))?,
        listen,
        receiver_facing,
        seed,
        duration,
    })
}

fn summary(name: &str, s: &PathStats) -> String {
    format!(
        "{name}: in {} out {} dropped_queue {} dropped_aqm {} dropped_loss {} foreign {} malformed {} io_errors {} delivered_bytes {} ecn_capable {} ce_marked {}",
        s.packets_in,
        s.packets_out,
        s.dropped_queue,
        s.dropped_aqm,
        s.dropped_loss,
        s.foreign,
        s.malformed,
        s.io_errors,
        s.delivered().as_bytes(),
        s.ecn_capable,
        s.ce_marked
    )
}

fn run() -> Result<(), String> {
    let args = parse_args(std::env::args().skip(1))?;
    let text = flowstate_sim::input_file::read_text(
        std::path::Path::new(&args.scenario),
        flowstate_sim::input_file::MAX_SCENARIO_BYTES,
        "a scenario",
    )
    .map_err(|e| format!("{}: {e}", args.scenario))?;
    let sc = Scenario::from_toml(&text, &args.scenario).map_err(|e| e.to_string())?;
    let seed = args.seed.or(sc.seed).unwrap_or(0);
    let (forward, reverse) =
        PathConfig::from_scenario(&sc, &args.scenario, seed).map_err(|e| e.to_string())?;
    let emu = Emulator::start(EmulatorConfig {
        forward,
        reverse,
        routes: vec![Route {
            sender_facing: args.listen,
            receiver_facing: args.receiver_facing,
            receiver: args.receiver,
        }],
    })
    .map_err(|e| format!("{}: {e}", args.scenario))?;
    for (i, (s, r)) in emu.route_addrs().iter().enumerate() {
        println!("route {i}: sender-facing {s} receiver-facing {r}");
    }
    let secs = args.duration.unwrap_or(sc.duration.0);
    std::thread::sleep(Duration::from_secs_f64(secs));
    let report = emu.stop();
    println!("{}", summary("forward", &report.forward));
    println!("{}", summary("reverse", &report.reverse));
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("flowstate-emu: {e}");
            ExitCode::from(2)
        }
    }
}
