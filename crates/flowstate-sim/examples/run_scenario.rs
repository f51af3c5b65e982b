//! Run a scenario file and print its summary.json:
//! `cargo run -p flowstate-sim --example run_scenario -- SCENARIO.toml [SEED]`

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario SCENARIO.toml [SEED]");
        std::process::exit(2);
    };
    let seed = args.next().and_then(|s| s.parse().ok());
    match flowstate_sim::run_file(std::path::Path::new(&path), seed) {
        Ok(r) => println!("{}", r.summary.to_json()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
