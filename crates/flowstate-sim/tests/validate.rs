//! `validate`: the checks of a run's construction (flows, coupling manager) without
//! running it; it gives exactly the error the run would give.

use flowstate_sim::{run, validate, validate_toml, Scenario};

const BASE: &str = r#"
name = "t"
duration = "5s"

[link]
capacity = "2Mbps"
delay = "25ms"
queue = "300ms"

[coupling]
mechanism = "fsev2"

[[flows]]
name = "gcc"
kind = "gcc"

[[flows]]
name = "data"
kind = "sctp"
start = "1s"
"#;

fn with(extra_coupling: &str, extra_flow: &str) -> String {
    BASE.replacen("mechanism = \"fsev2\"", extra_coupling, 1) + extra_flow
}

/// The validation error of `text`; asserts that a run gives the same one.
fn error(text: &str) -> String {
    let s = Scenario::from_toml(text, "v.toml").expect("parses: the error is a build error");
    let e = validate(&s).expect_err("validate must fail").to_string();
    let r = run(&s, 7).expect_err("the run must fail too").to_string();
    assert_eq!(e, r, "validate and run give the same message");
    assert!(!e.contains('\n'), "one line: {e}");
    e
}

#[test]
fn valid_scenario_validates() {
    let s = Scenario::from_toml(BASE, "v.toml").unwrap();
    assert_eq!(validate(&s), Ok(()));
    assert_eq!(validate_toml(BASE, "v.toml"), Ok(()));
}

/// Each (coupling lines, extra flow, the error's start): a coupling option's error
/// names the option.
#[test]
fn coupling_and_build_errors_name_the_field() {
    let cases = [
        (
            "mechanism = \"fsev2\"\noptions = { count_change_twic = true }",
            "",
            "coupling.options.count_change_twic: unknown option",
        ),
        (
            "mechanism = \"fsev2\"\noptions = { cwnd_rtt = 3 }",
            "",
            "coupling.options.cwnd_rtt: option 'cwnd_rtt' expects",
        ),
        (
            "mechanism = \"none\"\noptions = { x = 1 }",
            "",
            "coupling.options.x: mechanism 'none' takes no options",
        ),
    ];
    for (coupling, flow, start) in cases {
        let e = error(&with(coupling, flow));
        assert!(e.starts_with(start), "{e}");
    }
}

/// A flow error the kind's builder finds (TFRC's initial rate, refused when the flow is
/// built) is found when the scenario is read: validation runs the same builder.
#[test]
fn build_errors_are_found_when_the_scenario_is_read() {
    let text = with(
        "mechanism = \"fsev2\"",
        "\n[[flows]]\nname = \"t\"\nkind = \"tfrc\"\noverrides = { initial_rate = \"1Mbps\" }\n",
    );
    let e = Scenario::from_toml(&text, "v.toml")
        .expect_err("the builder refuses it")
        .to_string();
    assert!(
        e.starts_with(
            "v.toml: flows[2].overrides.initial_rate: TFRC starts from its initial window"
        ),
        "{e}"
    );
}

#[test]
fn validate_toml_reports_parse_errors_with_the_file() {
    let e = validate_toml("duration = \"5s\"\nbogus = 1\n", "bad.toml")
        .expect_err("must fail")
        .to_string();
    assert!(e.starts_with("bad.toml: "), "{e}");
}
