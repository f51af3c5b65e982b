//! The examples in docs/SCENARIOS.md parse (and, for built-in kinds, run).

use flowstate_sim::{run, Scenario};

#[test]
fn scenario_doc_examples_are_valid() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/SCENARIOS.md");
    let doc = std::fs::read_to_string(path).expect("docs/SCENARIOS.md exists");
    let examples = doc
        .split("## Examples")
        .nth(1)
        .and_then(|s| s.split("## Outputs").next())
        .expect("Examples section");
    let mut n = 0;
    for block in examples.split("```toml").skip(1) {
        let text = block.split("```").next().unwrap_or_default();
        let s = Scenario::from_toml(text, "SCENARIOS.md")
            .unwrap_or_else(|e| panic!("example {n} invalid: {e}"));
        if s.flows.iter().all(|f| f.kind.name() == "cbr") && s.coupling.is_none() {
            let r = run(&s, 1).expect("cbr example runs");
            assert!(r.events > 0);
        }
        n += 1;
    }
    assert_eq!(n, 4, "all four examples checked");
}
