"""The command line: the demo runs, bad flags are one-line errors with exit status 2."""

from cli_support import flowstate as run


def test_demo_prints_each_mechanism():
    result = run("demo")
    assert result.returncode == 0, result.stderr
    for name in ("fse-ng", "ext-fse-ng", "fsev2"):
        assert f"\n{name}:" in result.stdout
    assert "priorities 1, 3, 1 -> shares P=1: 0.20, P=3: 0.60, P=1: 0.20" in result.stdout
    assert "0.75 / 1.25 Mbit/s" in result.stdout


def test_demo_reads_mechanisms_as_printed():
    result = run("demo", "--mechanism", "FSEv2", "--mechanism", "Extended FSE-NG")
    assert result.returncode == 0, result.stderr
    assert "\nfsev2:" in result.stdout and "\next-fse-ng:" in result.stdout and "\nfse-ng:" not in result.stdout


def test_bad_flag_is_a_one_line_error():
    result = run("demo", "--mechanism", "nope")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "got 'nope'" in result.stderr and "fsev2" in result.stderr
    assert "Traceback" not in result.stderr
    result = run("frobnicate")
    assert result.returncode == 2 and result.stderr.count("\n") == 1


def test_only_flowstate_errors_are_bad_input(monkeypatch, capsys):
    # A FlowstateError is bad input: one line, exit status 2. Any other exception, a plain
    # ValueError included, is a bug: it is not caught (a traceback), not called bad input.
    import pytest

    from flowstate.cli import demo
    from flowstate.cli.exit_status import ExitStatus
    from flowstate.cli.main import main
    from flowstate.errors import FlowstateError

    def bad_input(mechanisms):
        raise FlowstateError("demo: something the user gave is wrong")

    monkeypatch.setattr(demo, "main", bad_input)
    assert main(["demo"]) == ExitStatus.BAD_INPUT == 2
    assert capsys.readouterr().err == "flowstate: error: demo: something the user gave is wrong\n"

    def bug(mechanisms):
        raise ValueError("math domain error")

    monkeypatch.setattr(demo, "main", bug)
    with pytest.raises(ValueError, match="math domain error"):
        main(["demo"])


def test_every_user_facing_error_is_a_flowstate_error():
    import flowstate
    from flowstate.browser.plan import PlanError
    from flowstate.catalogue.catalogue import CatalogueError
    from flowstate.catalogue.claims import ClaimError
    from flowstate.catalogue.derived import DerivedError
    from flowstate.errors import UsageError
    from flowstate.overrides import PathError
    from flowstate.report.figures import FigureError
    from flowstate.rtclog import EventLogError
    from flowstate.report.report import ReportError
    from flowstate.sweep.metrics import MetricError
    from flowstate.sweep.spec import SweepError

    for error in (flowstate.ScenarioError, flowstate.CouplingError, CatalogueError, ClaimError, DerivedError,
                  PathError, ReportError, FigureError, SweepError, MetricError, PlanError, EventLogError, UsageError):
        assert issubclass(error, flowstate.FlowstateError) and issubclass(error, ValueError), error


def test_the_command_table_is_the_help():
    from flowstate.cli.main import COMMANDS, build_parser

    result = run("--help")
    assert result.returncode == 0
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert len(sub.choices) == len(COMMANDS)
    for name in sub.choices:
        assert f"\n    {name}" in result.stdout
