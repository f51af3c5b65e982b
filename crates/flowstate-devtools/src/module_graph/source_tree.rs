//! A crate's module tree read from its files: each module's child modules, the names its
//! `use` declarations bring in, and every path its code names. Modules and items under
//! `#[cfg(test)]` (and files starting with `#![cfg(test)]`) are left out.
//!
//! Files are found as rustc finds them (the Rust Reference, "Modules"): `mod x;` in
//! `lib.rs`, `main.rs` or `mod.rs` is `x.rs` or `x/mod.rs` next to it, in `y.rs` it is
//! `y/x.rs` or `y/x/mod.rs`; `#[path = "..."]` is relative to the file's directory
//! (and, inside inline modules, to their directories under it).

use super::tokens::{tokens, Token};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's place in the crate: `[]` is the crate root, `["endpoint", "media"]` is
/// `crate::endpoint::media`.
pub(crate) type ModPath = Vec<String>;

/// What one module holds, as written (paths not yet resolved).
#[derive(Debug, Default)]
pub(crate) struct SourceModule {
    /// Child modules (file or inline), test-only ones left out.
    pub(crate) children: BTreeSet<String>,
    /// Each name a `use` declaration brings in, and the path it names.
    pub(crate) imports: BTreeMap<String, Vec<String>>,
    /// Every path the module's code names: `use` declarations (one per leaf of a group;
    /// a glob names its module) and paths of two segments or more in code.
    pub(crate) paths: Vec<Vec<String>>,
}

/// Reads the files of a crate.
pub(crate) trait SourceFiles {
    /// The text of `path`, `None` if there is no such file.
    fn read(&self, path: &Path) -> Option<String>;
}

/// Every module of the crate whose root file is `root`.
pub(crate) fn read_tree(
    root: &Path,
    files: &dyn SourceFiles,
) -> Result<BTreeMap<ModPath, SourceModule>, String> {
    let text = files
        .read(root)
        .ok_or_else(|| format!("{}: not found", root.display()))?;
    let dir = root.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut reader = TreeReader {
        files,
        modules: BTreeMap::new(),
    };
    reader.read_file(Vec::new(), &text, &dir, &dir)?;
    Ok(reader.modules)
}

struct TreeReader<'a> {
    files: &'a dyn SourceFiles,
    modules: BTreeMap<ModPath, SourceModule>,
}

/// Where a module's files are: `file_dir` holds its file (the base of `#[path]` outside
/// inline modules), `child_dir` its children's files.
struct Place<'p> {
    file_dir: &'p Path,
    child_dir: PathBuf,
    /// Whether the module is inline (`mod x { ... }`): `#[path]` is then relative to
    /// `child_dir`.
    inline: bool,
}

impl TreeReader<'_> {
    /// Reads the module `path` held by a file of text `text`.
    fn read_file(
        &mut self,
        path: ModPath,
        text: &str,
        file_dir: &Path,
        child_dir: &Path,
    ) -> Result<(), String> {
        let toks = tokens(text);
        if starts_test_only(&toks) {
            return Ok(());
        }
        let place = Place {
            file_dir,
            child_dir: child_dir.to_path_buf(),
            inline: false,
        };
        let mut i = 0;
        self.read_module(path, &toks, &mut i, &place)
    }

    /// Reads the items of module `path` from `toks[*i..]` up to the `}` closing it (or
    /// the end of the file).
    fn read_module(
        &mut self,
        path: ModPath,
        toks: &[Token],
        i: &mut usize,
        place: &Place<'_>,
    ) -> Result<(), String> {
        self.modules.entry(path.clone()).or_default();
        let mut depth = 0usize;
        let mut test_only = false;
        let mut path_attr: Option<String> = None;
        while *i < toks.len() {
            match &toks[*i] {
                Token::Punct('#') => {
                    let (attr, end) = attribute(toks, *i);
                    if attr
                        == [
                            Token::Ident("cfg".into()),
                            Token::Punct('('),
                            Token::Ident("test".into()),
                            Token::Punct(')'),
                        ]
                    {
                        test_only = true;
                    } else if let [Token::Ident(p), Token::Punct('='), Token::Str(file)] =
                        attr.as_slice()
                    {
                        if p == "path" {
                            path_attr = Some(file.clone());
                        }
                    }
                    *i = end;
                    continue;
                }
                _ if test_only => {
                    *i = skip_item(toks, *i);
                    test_only = false;
                    path_attr = None;
                    continue;
                }
                Token::Ident(kw) if kw == "mod" => {
                    if let (Some(Token::Ident(name)), Some(next)) =
                        (toks.get(*i + 1), toks.get(*i + 2))
                    {
                        let mut child = path.clone();
                        child.push(name.clone());
                        if *next == Token::Punct(';') {
                            self.read_child_file(child.clone(), name, path_attr.take(), place)?;
                            *i += 3;
                        } else if *next == Token::Punct('{') {
                            *i += 3;
                            let inner = Place {
                                file_dir: place.file_dir,
                                child_dir: place.child_dir.join(name),
                                inline: true,
                            };
                            self.read_module(child.clone(), toks, i, &inner)?;
                        } else {
                            *i += 1;
                            continue;
                        }
                        // A file starting with `#![cfg(test)]` added no module.
                        if self.modules.contains_key(&child) {
                            self.module(&path).children.insert(name.clone());
                        }
                        continue;
                    }
                }
                Token::Ident(kw)
                    if kw == "use" && !matches!(toks.get(*i + 1), Some(Token::Punct('<'))) =>
                {
                    *i += 1;
                    let mut leaves = Vec::new();
                    use_tree(toks, i, Vec::new(), &mut leaves);
                    let module = self.module(&path);
                    for leaf in leaves {
                        if let Some(name) = leaf.name {
                            module.imports.insert(name, leaf.path.clone());
                        }
                        if !leaf.path.is_empty() {
                            module.paths.push(leaf.path);
                        }
                    }
                    continue;
                }
                // A path in code: an identifier (not after `::`) followed by `::`.
                Token::Ident(first)
                    if (*i == 0 || toks[*i - 1] != Token::PathSep)
                        && toks.get(*i + 1) == Some(&Token::PathSep) =>
                {
                    let mut segments = vec![first.clone()];
                    let mut j = *i + 1;
                    while toks.get(j) == Some(&Token::PathSep) {
                        match toks.get(j + 1) {
                            Some(Token::Ident(s)) => segments.push(s.clone()),
                            _ => break,
                        }
                        j += 2;
                    }
                    self.module(&path).paths.push(segments);
                    *i = j;
                    continue;
                }
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    if depth == 0 {
                        *i += 1;
                        return Ok(());
                    }
                    depth -= 1;
                }
                _ => {}
            }
            path_attr = None;
            *i += 1;
        }
        Ok(())
    }

    fn module(&mut self, path: &ModPath) -> &mut SourceModule {
        self.modules.entry(path.clone()).or_default()
    }

    /// Reads `mod name;`, the module `child`, from its file.
    fn read_child_file(
        &mut self,
        child: ModPath,
        name: &str,
        path_attr: Option<String>,
        place: &Place<'_>,
    ) -> Result<(), String> {
        let candidates: Vec<PathBuf> = match path_attr {
            Some(p) if place.inline => vec![place.child_dir.join(p)],
            Some(p) => vec![place.file_dir.join(p)],
            None => vec![
                place.child_dir.join(format!("{name}.rs")),
                place.child_dir.join(name).join("mod.rs"),
            ],
        };
        for file in &candidates {
            if let Some(text) = self.files.read(file) {
                let file_dir = file.parent().unwrap_or(Path::new("")).to_path_buf();
                let is_mod_rs = file.file_name().is_some_and(|f| f == "mod.rs");
                let child_dir = if is_mod_rs {
                    file_dir.clone()
                } else {
                    file_dir.join(file.file_stem().unwrap_or_default())
                };
                return self.read_file(child, &text, &file_dir, &child_dir);
            }
        }
        Err(format!(
            "module {}: no file ({})",
            child.join("::"),
            candidates
                .iter()
                .map(|c| c.display().to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        ))
    }
}

/// Whether the file starts with `#![cfg(test)]` (after other inner attributes).
fn starts_test_only(toks: &[Token]) -> bool {
    let mut i = 0;
    while toks.get(i) == Some(&Token::Punct('#')) && toks.get(i + 1) == Some(&Token::Punct('!')) {
        let (attr, end) = attribute(toks, i);
        if attr
            == [
                Token::Ident("cfg".into()),
                Token::Punct('('),
                Token::Ident("test".into()),
                Token::Punct(')'),
            ]
        {
            return true;
        }
        i = end;
    }
    false
}

/// The tokens inside the attribute starting at `toks[start]` (`#[...]` or `#![...]`)
/// and the index after it.
fn attribute(toks: &[Token], start: usize) -> (Vec<Token>, usize) {
    let mut i = start + 1;
    if toks.get(i) == Some(&Token::Punct('!')) {
        i += 1;
    }
    if toks.get(i) != Some(&Token::Punct('[')) {
        return (Vec::new(), start + 1);
    }
    let body = i + 1;
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i] {
            Token::Punct('[') => depth += 1,
            Token::Punct(']') => {
                depth -= 1;
                if depth == 0 {
                    return (toks[body..i].to_vec(), i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (toks[body..].to_vec(), toks.len())
}

/// The index after the item (or field, variant, statement) starting at `start`: after
/// its `;`, after its body `{ ... }` (a `const`, `static`, `type` or `let` goes on to
/// its `;`), before a `,` ending a field or variant, or before the `}` closing what
/// holds it.
fn skip_item(toks: &[Token], start: usize) -> usize {
    const TO_SEMICOLON: [&str; 4] = ["const", "static", "type", "let"];
    const ITEMS: [&str; 15] = [
        "pub",
        "fn",
        "impl",
        "struct",
        "enum",
        "union",
        "trait",
        "mod",
        "use",
        "const",
        "static",
        "type",
        "unsafe",
        "extern",
        "macro_rules",
    ];
    let first = match &toks[start] {
        Token::Ident(s) => s.as_str(),
        _ => "",
    };
    let keyword = toks[start..]
        .iter()
        .find_map(|t| match t {
            Token::Ident(s) if TO_SEMICOLON.contains(&s.as_str()) => Some(true),
            Token::Ident(s) if !["pub", "crate", "super", "in"].contains(&s.as_str()) => {
                Some(false)
            }
            _ => None,
        })
        .unwrap_or(false);
    let item = ITEMS.contains(&first);
    let mut depth = 0usize;
    let mut i = start;
    while i < toks.len() {
        match toks[i] {
            Token::Punct('{' | '(' | '[') => depth += 1,
            Token::Punct('}' | ')' | ']') => {
                if depth == 0 {
                    return i;
                }
                depth -= 1;
                if depth == 0 && toks[i] == Token::Punct('}') && !keyword {
                    return i + 1;
                }
            }
            Token::Punct(';') if depth == 0 => return i + 1,
            Token::Punct(',') if depth == 0 && !item => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// One leaf of a `use` tree: the path it names and the name it brings in (`None`: a
/// glob, or `as _`).
struct UseLeaf {
    path: Vec<String>,
    name: Option<String>,
}

/// Reads the `use` tree at `toks[*i..]` (after `use`) up to its `;` (or the `,` / `}`
/// ending a group's member), each leaf's path prefixed with `prefix`.
fn use_tree(toks: &[Token], i: &mut usize, prefix: Vec<String>, leaves: &mut Vec<UseLeaf>) {
    let mut path = prefix;
    loop {
        match toks.get(*i) {
            Some(Token::PathSep) => *i += 1,
            Some(Token::Ident(s)) if s == "as" => {
                *i += 1;
                let name = match toks.get(*i) {
                    Some(Token::Ident(n)) if n != "_" => Some(n.clone()),
                    _ => None,
                };
                *i += 1;
                leaves.push(UseLeaf { path, name });
                return;
            }
            Some(Token::Ident(s)) if s == "self" && !path.is_empty() => {
                // `use a::b::{self}` names `a::b`.
                *i += 1;
            }
            Some(Token::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
            }
            Some(Token::Punct('*')) => {
                *i += 1;
                leaves.push(UseLeaf { path, name: None });
                return;
            }
            Some(Token::Punct('{')) => {
                *i += 1;
                while *i < toks.len() && toks[*i] != Token::Punct('}') {
                    use_tree(toks, i, path.clone(), leaves);
                    if toks.get(*i) == Some(&Token::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                if toks.get(*i) == Some(&Token::Punct(';')) {
                    *i += 1;
                }
                return;
            }
            Some(Token::Punct(';')) => {
                *i += 1;
                let name = path.last().cloned();
                leaves.push(UseLeaf { path, name });
                return;
            }
            _ => {
                // `,` or `}` ending a group member (left for the group to read).
                let name = path.last().cloned();
                leaves.push(UseLeaf { path, name });
                return;
            }
        }
    }
}
