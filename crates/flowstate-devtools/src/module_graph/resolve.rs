//! From the paths a module names to the modules they lead to, as rustc resolves them
//! (Rust 2018 paths): `crate::`, `self::`, `super::` (repeated), a child module's name, or
//! a name the module imports; then as deep as the segments name modules; a name a module
//! imports (`use`, `pub use`) leads on to where that import points, so a re-exported item
//! is an edge to the module that defines it. Paths to other crates (`std::`, `serde::`),
//! to types (`Self::`, `Vec::new`) and to variables lead nowhere.

use super::source_tree::{ModPath, SourceModule};
use std::collections::{BTreeMap, BTreeSet};

/// Imports are followed at most this deep (a cycle of `use` declarations, which rustc
/// rejects, ends here).
const MAX_IMPORT_DEPTH: usize = 32;

/// `module -> modules its code names` (a module's name: `crate` for the root, else
/// `a::b`); every module is a key.
pub(crate) fn edges(tree: &BTreeMap<ModPath, SourceModule>) -> BTreeMap<String, BTreeSet<String>> {
    let resolver = Resolver { tree };
    tree.iter()
        .map(|(from, module)| {
            let deps = module
                .paths
                .iter()
                .filter_map(|p| resolver.resolve(from, p, 0))
                .filter(|to| to != from)
                .map(|to| module_name(&to))
                .collect();
            (module_name(from), deps)
        })
        .collect()
}

/// `crate` for the root, else the path joined with `::`.
pub(crate) fn module_name(path: &[String]) -> String {
    if path.is_empty() {
        "crate".to_string()
    } else {
        path.join("::")
    }
}

struct Resolver<'t> {
    tree: &'t BTreeMap<ModPath, SourceModule>,
}

impl Resolver<'_> {
    /// The module `path`, written in module `from`, leads to (`None`: outside the crate).
    fn resolve(&self, from: &ModPath, path: &[String], depth: usize) -> Option<ModPath> {
        let (first, rest) = path.split_first()?;
        let module = self.tree.get(from)?;
        match first.as_str() {
            "crate" => self.walk(Vec::new(), rest, depth),
            "self" => self.walk(from.clone(), rest, depth),
            "super" => {
                let mut base = from.clone();
                base.pop()?;
                let mut rest = rest;
                while let Some((s, tail)) = rest.split_first() {
                    if s != "super" {
                        break;
                    }
                    base.pop()?;
                    rest = tail;
                }
                self.walk(base, rest, depth)
            }
            name if module.children.contains(name) => self.walk(from.clone(), path, depth),
            name => {
                let target = module.imports.get(name)?;
                if depth >= MAX_IMPORT_DEPTH || target.as_slice() == path {
                    return None;
                }
                let base = self.resolve(from, target, depth + 1)?;
                self.walk(base, rest, depth)
            }
        }
    }

    /// From module `base`, down the `segments` that name child modules; a segment the
    /// module imports leads on through the import.
    fn walk(&self, mut base: ModPath, segments: &[String], depth: usize) -> Option<ModPath> {
        for (k, segment) in segments.iter().enumerate() {
            let module = self.tree.get(&base)?;
            if module.children.contains(segment) {
                base.push(segment.clone());
            } else if let Some(target) = module.imports.get(segment) {
                if depth >= MAX_IMPORT_DEPTH {
                    return Some(base);
                }
                let to = self.resolve(&base, target, depth + 1).unwrap_or(base);
                return self.walk(to, &segments[k + 1..], depth + 1);
            } else {
                break;
            }
        }
        Some(base)
    }
}
