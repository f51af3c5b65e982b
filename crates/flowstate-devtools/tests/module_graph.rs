//! This crate's modules import each other without cycles, read by its own reader.

use flowstate_devtools::module_graph::ModuleGraph;

#[test]
fn modules_import_each_other_without_cycles() {
    let g = ModuleGraph::read(env!("CARGO_MANIFEST_DIR")).expect("the crate's sources");
    assert!(g.contains("module_graph::source_tree"));
    g.assert_acyclic();
}
