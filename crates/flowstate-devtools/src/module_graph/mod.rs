//! A crate's module graph, read from its source files, for the test that keeps the
//! crate's modules free of import cycles (each crate's `tests/module_graph.rs`).
//!
//! A node is a module: `crate` (the root), `endpoint`, `endpoint::media::sender`, a file
//! or an inline `mod x { ... }`. Modules under `#[cfg(test)]` (and files starting with
//! `#![cfg(test)]`) are left out with everything in them, and so are other items under
//! `#[cfg(test)]`. An edge `a -> b`: code of `a` (outside comments and strings) names an
//! item of `b`, in a `use` declaration (groups, `self`, `as`, globs) or a path in code
//! starting with `crate::`, `self::`, `super::` (repeated), a child module's name or a
//! name `a` imports. A path goes as deep as its segments name modules, and a name a
//! module imports or re-exports leads on to the module that defines it: `crate::Bitrate`,
//! which the crate root re-exports from `units`, is an edge to `units`, not to the root.
//! Declaring a module (`mod x;`) is not an edge.
//!
//! ```no_run
//! let graph = flowstate_devtools::module_graph::ModuleGraph::read(env!("CARGO_MANIFEST_DIR"))
//!     .expect("the crate's sources");
//! graph.assert_acyclic();
//! ```

mod cycles;
mod resolve;
mod source_tree;
mod tokens;

pub use cycles::ImportCycle;
use source_tree::SourceFiles;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Which module of a crate names which.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleGraph {
    edges: BTreeMap<String, BTreeSet<String>>,
}

impl ModuleGraph {
    /// The graph of the library of the crate in `manifest_dir` (`src/lib.rs`).
    pub fn read(manifest_dir: impl AsRef<Path>) -> Result<Self, String> {
        struct Disk;
        impl SourceFiles for Disk {
            fn read(&self, path: &Path) -> Option<String> {
                std::fs::read_to_string(path).ok()
            }
        }
        let root = manifest_dir.as_ref().join("src").join("lib.rs");
        Self::from_tree(&root, &Disk)
    }

    /// The graph of a crate whose files are given as `(path, text)` pairs, the root file
    /// `root` (for tests of the reader).
    pub fn from_files<'a>(
        root: &str,
        files: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Self, String> {
        struct Memory(BTreeMap<PathBuf, String>);
        impl SourceFiles for Memory {
            fn read(&self, path: &Path) -> Option<String> {
                self.0.get(path).cloned()
            }
        }
        let files = Memory(
            files
                .into_iter()
                .map(|(p, t)| (PathBuf::from(p), t.to_string()))
                .collect(),
        );
        Self::from_tree(Path::new(root), &files)
    }

    /// A graph of the given edges (modules without edges included as keys).
    pub fn from_edges<'a>(edges: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in edges {
            graph.entry(to.to_string()).or_default();
            graph
                .entry(from.to_string())
                .or_default()
                .insert(to.to_string());
        }
        Self { edges: graph }
    }

    fn from_tree(root: &Path, files: &dyn SourceFiles) -> Result<Self, String> {
        let tree = source_tree::read_tree(root, files)?;
        Ok(Self {
            edges: resolve::edges(&tree),
        })
    }

    /// Whether the crate has module `name` (`crate`, `a::b`).
    pub fn contains(&self, name: &str) -> bool {
        self.edges.contains_key(name)
    }

    /// The modules `name` names (empty for an unknown module).
    pub fn names(&self, name: &str) -> Vec<&str> {
        self.edges
            .get(name)
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect()
    }

    /// Every module, by name.
    pub fn modules(&self) -> impl Iterator<Item = &str> {
        self.edges.keys().map(String::as_str)
    }

    /// One [`ImportCycle`] per group of modules that reach each other; empty when the
    /// graph has none.
    pub fn cycles(&self) -> Vec<ImportCycle> {
        cycles::cycles(&self.edges)
    }

    /// Panics naming every group of modules that reach each other, with one cycle
    /// through it.
    #[track_caller]
    pub fn assert_acyclic(&self) {
        let cycles = self.cycles();
        if cycles.is_empty() {
            return;
        }
        let mut message = format!("{} import cycle(s):", cycles.len());
        for c in &cycles {
            let _ = write!(
                message,
                "\n  {} (modules {})",
                c.path.join(" -> "),
                c.modules.join(", ")
            );
        }
        panic!("{message}");
    }
}

#[cfg(test)]
mod tests;
