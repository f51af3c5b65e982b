//! The crate's modules import each other without cycles: every `crate::<module>` path
//! outside comments and test modules is an edge, and the graph must be acyclic (the
//! scenario reader, the override definitions, the GCC mapping and the flow builders
//! once imported each other).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// `module -> modules it names`, from the files in `src/` (tests and comments left out).
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut texts = BTreeMap::new();
    for entry in fs::read_dir(&src).expect("src/") {
        let path = entry.expect("entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            let text = fs::read_to_string(&path).expect("readable");
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let code: String = code
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            texts.insert(name.to_string(), code);
        }
    }
    let names: BTreeSet<String> = texts.keys().cloned().collect();
    texts
        .iter()
        .map(|(m, code)| {
            let deps = code
                .split("crate::")
                .skip(1)
                .map(|rest| {
                    rest.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .filter(|d| d != m && names.contains(d))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

/// A cycle through `graph`, if there is one (depth-first search).
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for d in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn modules_import_each_other_without_cycles() {
    let g = graph();
    assert!(g.contains_key("scenario") && g.contains_key("endpoints"));
    if let Some(c) = cycle(&g) {
        panic!("import cycle: {}", c.join(" -> "));
    }
}

#[test]
fn a_cycle_is_found() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        cycle(&g),
        Some(vec!["a".to_string(), "b".to_string(), "a".to_string()])
    );
}
