//! The crate's modules import each other without cycles (the scenario reader, the
//! override definitions, the GCC mapping and the flow builders once imported each
//! other). The graph is read by flowstate-devtools: every module, nested ones included,
//! and every path its code names, outside comments and test code.

use flowstate_devtools::module_graph::ModuleGraph;

#[test]
fn modules_import_each_other_without_cycles() {
    let g = ModuleGraph::read(env!("CARGO_MANIFEST_DIR")).expect("the crate's sources");
    assert!(g.contains("scenario") && g.contains("metrics::collector"));
    g.assert_acyclic();
}
