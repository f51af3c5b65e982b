//! Run a scenario file and print its summary.json:
//! `cargo run -p flowstate-sim --example run_scenario -- SCENARIO.toml [SEED] [DURATION_S]`
//!
//! `DURATION_S` overrides the scenario's duration (the measurement window end is
//! clipped to it), e.g. for the 1-hour memory measurement in docs/BENCHMARKS.md.
//! Wall time and events/s go to stderr.

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario SCENARIO.toml [SEED] [DURATION_S]");
        std::process::exit(2);
    };
    let seed = args.next().and_then(|s| s.parse::<u64>().ok());
    let duration = args.next().and_then(|s| s.parse::<f64>().ok());
    let mut scenario = match flowstate_sim::run::load(std::path::Path::new(&path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    if let Some(d) = duration {
        scenario.duration = flowstate_sim::units_parse::Secs(d);
        if scenario.measure.end.is_some_and(|e| e.0 > d) {
            scenario.measure.end = None;
        }
        if let Err(e) = scenario.validate(&path) {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
    let seed = seed.or(scenario.seed).unwrap_or(1);
    let t0 = std::time::Instant::now();
    match flowstate_sim::run(&scenario, seed) {
        Ok(r) => {
            let wall = t0.elapsed().as_secs_f64();
            let hash = r
                .trace_hash
                .map_or_else(|| "off".to_string(), |h| format!("{h:016x}"));
            eprintln!(
                "wall {wall:.3} s, {} events, {:.2} M events/s, trace hash {hash}",
                r.events,
                r.events as f64 / wall / 1e6,
            );
            // A closed stdout (e.g. `| head`) ends the run quietly, not with a panic.
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{}", r.summary.to_json()).is_err() || out.flush().is_err() {
                std::process::exit(1);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
