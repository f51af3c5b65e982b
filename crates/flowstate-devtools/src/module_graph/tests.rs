use super::ModuleGraph;

fn graph(files: &[(&str, &str)]) -> ModuleGraph {
    ModuleGraph::from_files("src/lib.rs", files.iter().copied()).expect("the test crate reads")
}

fn names<'g>(g: &'g ModuleGraph, module: &str) -> Vec<&'g str> {
    g.names(module)
}

#[test]
fn file_modules_nested_and_inline() {
    let g = graph(&[
        (
            "src/lib.rs",
            "pub mod a; mod b { pub mod c { pub struct C; } }",
        ),
        ("src/a.rs", "pub mod x; pub use crate::b::c::C;"),
        ("src/a/x.rs", "pub mod deep;"),
        ("src/a/x/deep/mod.rs", "pub struct Deep;"),
    ]);
    let modules: Vec<&str> = g.modules().collect();
    assert_eq!(modules, ["a", "a::x", "a::x::deep", "b", "b::c", "crate"]);
    assert_eq!(names(&g, "a"), ["b::c"]);
}

#[test]
fn super_self_crate_and_child_paths() {
    let g = graph(&[
        (
            "src/lib.rs",
            "mod p; mod q; mod r; fn f() { let _ = q::Q; let _ = self::r::R; }",
        ),
        ("src/p/mod.rs", "mod inner; pub struct P;"),
        (
            "src/p/inner.rs",
            "use super::super::q::Q; fn g() -> super::P { crate::r::R; todo!() }",
        ),
        ("src/q.rs", "pub struct Q;"),
        ("src/r.rs", "pub struct R;"),
    ]);
    assert_eq!(names(&g, "p::inner"), ["p", "q", "r"]);
    assert_eq!(names(&g, "crate"), ["q", "r"]);
    assert!(
        names(&g, "p").is_empty(),
        "declaring `mod inner;` is no edge"
    );
}

#[test]
fn use_groups_self_alias_and_glob() {
    let g = graph(&[
        ("src/lib.rs", "mod a; mod b; mod c; mod d; mod e;"),
        (
            "src/a.rs",
            "use crate::{b::{self, B}, c::C as See, d::*};\n\
             use super::e as ee;\n\
             fn f() { ee::E; }",
        ),
        ("src/b.rs", "pub struct B;"),
        ("src/c.rs", "pub struct C;"),
        ("src/d.rs", "pub struct D;"),
        ("src/e.rs", "pub struct E;"),
    ]);
    assert_eq!(names(&g, "a"), ["b", "c", "d", "e"]);
}

#[test]
fn a_re_exported_name_leads_to_its_module() {
    let g = graph(&[
        (
            "src/lib.rs",
            "mod units; mod user; mod facade; pub use units::Rate;",
        ),
        ("src/units.rs", "pub struct Rate;"),
        ("src/facade/mod.rs", "mod part; pub use part::Part;"),
        ("src/facade/part.rs", "pub struct Part;"),
        (
            "src/user.rs",
            "use crate::Rate; fn f() -> crate::facade::Part { todo!() }",
        ),
    ]);
    assert_eq!(names(&g, "user"), ["facade::part", "units"]);
    // The root names `units` (its re-export), `user` does not name the root.
    assert_eq!(names(&g, "crate"), ["units"]);
    assert!(g.cycles().is_empty());
}

#[test]
fn comments_strings_and_test_code_are_no_edges() {
    let g = graph(&[
        ("src/lib.rs", "mod a; mod b; mod c;"),
        (
            "src/a.rs",
            "// use crate::b::B;\n\
             /* crate::b::B /* nested */ crate::b::B */\n\
             const S: &str = \"crate::b::B\";\n\
             const R: &str = r#\"crate::b::B\"#;\n\
             fn f<'a>(x: &'a str) -> char { 'b' }\n\
             #[cfg(test)]\n\
             use crate::b::B;\n\
             #[cfg(test)]\n\
             mod tests { use crate::b::B; }\n\
             #[cfg(test)]\n\
             #[path = \"a_tests.rs\"]\n\
             mod more_tests;\n\
             #[cfg(test)]\n\
             fn helper() { crate::b::B; }\n\
             /// [`crate::b::B`]\n\
             pub fn g() { std::mem::drop(()); }",
        ),
        ("src/a_tests.rs", "use crate::b::B;"),
        ("src/b.rs", "pub struct B;"),
        ("src/c.rs", "#![cfg(test)]\nuse crate::a;"),
    ]);
    assert_eq!(names(&g, "a"), Vec::<&str>::new());
    assert!(!g.contains("a::tests") && !g.contains("a::more_tests") && !g.contains("c"));
}

#[test]
fn path_attribute_is_relative_to_the_file() {
    let g = graph(&[
        ("src/lib.rs", "mod a;"),
        (
            "src/a.rs",
            "#[path = \"elsewhere/impl_a.rs\"] mod imp; use imp::X;",
        ),
        ("src/elsewhere/impl_a.rs", "pub struct X;"),
    ]);
    assert_eq!(names(&g, "a"), ["a::imp"]);
}

#[test]
fn a_missing_module_file_is_an_error() {
    let e = ModuleGraph::from_files("src/lib.rs", [("src/lib.rs", "mod gone;")]).unwrap_err();
    assert!(e.contains("module gone: no file"), "{e}");
}

#[test]
fn cycles_through_parents_and_siblings_are_found() {
    let g = graph(&[
        ("src/lib.rs", "mod m; mod s;"),
        (
            "src/m/mod.rs",
            "mod child; pub struct Shared; use child::C;",
        ),
        ("src/m/child.rs", "use super::Shared; pub struct C;"),
        ("src/s.rs", "use crate::m::child::C;"),
    ]);
    let cycles = g.cycles();
    assert_eq!(cycles.len(), 1);
    assert_eq!(cycles[0].path, ["m", "m::child", "m"]);
    assert_eq!(cycles[0].modules, ["m", "m::child"]);
    let r = std::panic::catch_unwind(|| g.assert_acyclic());
    assert!(r.is_err());
}

#[test]
fn one_cycle_per_strongly_connected_group() {
    let g = ModuleGraph::from_edges([
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("c", "d"),
        ("x", "y"),
        ("y", "x"),
        ("d", "e"),
    ]);
    let cycles = g.cycles();
    let paths: Vec<&[String]> = cycles.iter().map(|c| c.path.as_slice()).collect();
    assert_eq!(paths, [&["a", "b", "c", "a"][..], &["x", "y", "x"][..]]);
    assert_eq!(cycles[0].modules, ["a", "b", "c"]);
    assert!(
        ModuleGraph::from_edges([("a", "b"), ("b", "c"), ("a", "c")])
            .cycles()
            .is_empty()
    );
}
