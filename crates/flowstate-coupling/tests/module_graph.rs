//! The crate's modules import each other without cycles. The mechanisms' list
//! (`coupling/mechanism.rs`) imports each mechanism's file, the catalogue and the
//! option values, and none of them imports it back (each mechanism's catalogue entry
//! once built its preset as `Mechanism::X(..)`); `manager.rs`'s child `regroup.rs`
//! adds `move_flow` to the manager, which imports nothing from it. The graph is read
//! by flowstate-devtools: every module, nested ones included, and every path its code
//! names, outside comments and test code.

use flowstate_devtools::module_graph::ModuleGraph;

#[test]
fn modules_import_each_other_without_cycles() {
    let g = ModuleGraph::read(env!("CARGO_MANIFEST_DIR")).expect("the crate's sources");
    for module in [
        "coupling::mechanism",
        "coupling::fse",
        "coupling::manager::regroup",
        "sbd::grouping",
    ] {
        assert!(g.contains(module), "{module} not read");
    }
    assert!(g.names("coupling::mechanism").contains(&"coupling::fse"));
    g.assert_acyclic();
}
