//! Run a scenario file with the packet trace kept and print every trace record as CSV:
//! `cargo run -p flowstate-sim --example packet_trace -- SCENARIO.toml [SEED] > trace.csv`
//!
//! Columns: `time_us,kind,link,flow,flow_name,dir,size,packet`. `kind` is what happened to
//! the packet (`send`: handed to a link by its flow, `drop`: tail-dropped at the queue,
//! `serialize`, `lost`: lost at random, `exit`: left the link, `deliver`: reached its
//! endpoint; engine.rs `TraceKind`), `link` the link's number (255 on a fixed-delay path),
//! `flow` the flow's index and `flow_name` its name from the summary, `dir` 0 for data and
//! 1 for feedback (acks, SACKs, reports), `size` the wire bytes, `packet` the packet's id.
//! The scenario's `[measure] trace` is set to true; nothing else changes, so the run is
//! the one `run_scenario` makes (same seed, same trace hash). Used by
//! scripts/sctp_start.py (docs/REPRODUCTION.md, "p000-table5's miss is SCTP's start").

use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: packet_trace SCENARIO.toml [SEED]");
        std::process::exit(2);
    };
    let seed = match args.next().map(|s| s.parse::<u64>()) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(_)) => {
            eprintln!("packet_trace: SEED must be a non-negative integer");
            std::process::exit(2);
        }
    };
    let mut scenario = match flowstate_sim::run::load(std::path::Path::new(&path)) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    scenario.measure.trace = Some(true);
    let seed = seed.or(scenario.seed).unwrap_or(1);
    let r = match flowstate_sim::run(&scenario, seed) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let names: Vec<&str> = r.summary.flows.iter().map(|f| f.name.as_str()).collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = (|| -> std::io::Result<()> {
        writeln!(out, "time_us,kind,link,flow,flow_name,dir,size,packet")?;
        for t in r.trace.as_deref().unwrap_or_default() {
            let kind = serde_json::to_value(t.kind).ok();
            let kind = kind.as_ref().and_then(|v| v.as_str()).unwrap_or("?");
            let name = names.get(t.flow as usize).copied().unwrap_or("");
            writeln!(
                out,
                "{},{},{},{},{},{},{},{}",
                t.time_us, kind, t.link, t.flow, name, t.dir, t.size, t.packet
            )?;
        }
        out.flush()
    })();
    if let Err(e) = written {
        // A closed pipe (e.g. `| head`) is not an error worth a message.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("packet_trace: writing the trace: {e}");
            std::process::exit(1);
        }
    }
}
