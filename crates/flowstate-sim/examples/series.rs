//! Print a coarse time series (one line per `STEP` seconds per flow) of a scenario:
//! `cargo run -p flowstate-sim --example series -- SCENARIO.toml [STEP_S] [SEED]`

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: series SCENARIO.toml [STEP_S] [SEED]");
        std::process::exit(2);
    };
    let step: f64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(5.0);
    let seed = args.next().and_then(|s| s.parse().ok());
    let r = match flowstate_sim::run_file(std::path::Path::new(&path), seed) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let mut names: Vec<flowstate_sim::metrics::FlowName> = Vec::new();
    for row in &r.series {
        if !names.contains(&row.flow) {
            names.push(row.flow.clone());
        }
    }
    println!("time_s flow throughput_mbps rtt_ms queuing_delay_ms");
    for name in &names {
        let rows: Vec<_> = r.series.iter().filter(|x| &x.flow == name).collect();
        let mut t = 0.0;
        while let Some(first) = rows.iter().position(|x| x.time_s >= t) {
            let chunk: Vec<_> = rows[first..]
                .iter()
                .take_while(|x| x.time_s < t + step)
                .collect();
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len() as f64;
            let thr = chunk.iter().map(|x| x.throughput_mbps).sum::<f64>() / n;
            let avg = |v: Vec<f64>| {
                if v.is_empty() {
                    f64::NAN
                } else {
                    v.iter().sum::<f64>() / v.len() as f64
                }
            };
            let rtt = avg(chunk.iter().filter_map(|x| x.rtt_ms).collect());
            let q = avg(chunk.iter().filter_map(|x| x.queuing_delay_ms).collect());
            println!("{t:6.1} {name} {thr:.3} {rtt:.0} {q:.0}");
            t += step;
        }
    }
}
