//! The import cycles of a graph: the strongly connected components of more than one
//! module (Tarjan, "Depth-first search and linear graph algorithms", SIAM J. Comput.
//! 1972), each with one closed path through it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Modules that reach each other through their imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportCycle {
    /// Every module of the group, by name.
    pub modules: Vec<String>,
    /// One closed path through the group, `a -> ... -> a`, from its first module.
    pub path: Vec<String>,
}

/// One [`ImportCycle`] per group of modules that reach each other, groups in the order
/// of their first modules.
pub(crate) fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<ImportCycle> {
    components(graph)
        .into_iter()
        .filter(|c| c.len() > 1)
        .filter_map(|modules| {
            let path = cycle_through(graph, &modules)?;
            Some(ImportCycle { modules, path })
        })
        .collect()
}

/// The strongly connected components, each sorted, in the order of their first members.
fn components(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                component.sort();
                self.out.push(component);
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    t.out.sort();
    t.out
}

/// A shortest closed path from the component's first module back to it, inside the
/// component (breadth-first).
fn cycle_through(
    graph: &BTreeMap<String, BTreeSet<String>>,
    component: &[String],
) -> Option<Vec<String>> {
    let members: BTreeSet<&str> = component.iter().map(String::as_str).collect();
    let start = component.first()?.as_str();
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !members.contains(w) {
                continue;
            }
            if w == start {
                let mut path = vec![start.to_string()];
                let mut at = v;
                while at != start {
                    path.push(at.to_string());
                    at = came_from[at];
                }
                path.push(start.to_string());
                path.reverse();
                return Some(path);
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    None
}
