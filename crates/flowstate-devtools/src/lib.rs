//! Checks the workspace's crates run in their own tests, written once: a dev-dependency
//! of each crate, never a dependency of a library.
//!
//! - [`module_graph`]: a crate's modules and which of them names which, read from its
//!   source files, and the import cycles among them (`tests/module_graph.rs` of every
//!   crate).

pub mod module_graph;
