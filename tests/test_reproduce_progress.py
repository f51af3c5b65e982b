"""The overall progress of `flowstate reproduce` over several experiments: runs done of
the total, elapsed time, ETA; without a terminal one line per finished experiment."""

from __future__ import annotations

import io
import re

import pytest
from catalogue_support import EXPERIMENT, make_catalogue

from flowstate.catalogue import catalogue
from flowstate.cli import reproduce as reproduce_command
from flowstate.cli.reproduce_progress import Overall, Planned, clock_text, plan


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_counts_fraction_and_eta_weigh_runs_by_cost():
    clock = FakeClock()
    overall = Overall([Planned("a", 4, 100.0), Planned("b", 2, 300.0)], clock=clock)
    assert overall.total == 6 and overall.done == 0
    assert overall.eta() is None  # nothing done yet
    overall.begin(0)
    clock.now += 10
    overall.update(2, 4)
    assert overall.done == 2
    assert overall.fraction() == pytest.approx(50 / 400)
    assert overall.eta() == pytest.approx(10 * (1 - 0.125) / 0.125)  # 70 s
    assert overall.current_eta() == pytest.approx(10.0)  # 2 of 4 runs in 10 s
    clock.now += 10
    line = overall.finish()
    assert line == "[1/2] a: 4 runs in 20.0 s; all: 4/6 runs, 0:00:20 elapsed, ETA 0:01:00"
    overall.begin(1)
    clock.now += 60
    overall.update(2, 2)
    assert overall.done == 6 and overall.fraction() == pytest.approx(1.0)
    assert overall.finish() == "[2/2] b: 2 runs in 60.0 s; all: 6/6 runs, 0:01:20 elapsed, done"


def test_zero_cost_falls_back_to_run_counts():
    overall = Overall([Planned("a", 3, 0.0), Planned("b", 1, 0.0)], clock=FakeClock())
    overall.begin(0)
    overall.update(3, 3)
    assert overall.fraction() == pytest.approx(0.75)


def test_clock_text():
    assert clock_text(None) == "-:--:--"
    assert clock_text(3725.4) == "1:02:05"
    assert clock_text(-3) == "0:00:00"


def _two(tmp_path):
    root = make_catalogue(tmp_path / "cat")
    make_catalogue(root, EXPERIMENT.replace('id = "tiny"', 'id = "twin"'), name="twin")
    return root


def test_plan_counts_the_runs_of_every_point(tmp_path):
    root = _two(tmp_path)
    exps = catalogue.load_all(root)
    planned = plan(exps, None, short=True)
    assert [(p.id, p.runs) for p in planned] == [("tiny", 4), ("twin", 4)]  # 2 points x 2 short runs
    assert all(p.cost > 0 for p in planned)
    assert [p.runs for p in plan(exps, 1, short=False)] == [2, 2]


LINE = re.compile(
    r"^flowstate: \[(\d)/2\] (tiny|twin): 2 runs in \d+\.\d s; all: (\d)/4 runs, \d:\d\d:\d\d elapsed, "
    r"(ETA \d:\d\d:\d\d|done)$"
)


def test_without_a_terminal_one_line_per_finished_experiment(tmp_path):
    root = _two(tmp_path)
    stdout, stderr = io.StringIO(), io.StringIO()
    status = reproduce_command.main(
        [], all_=True, runs=1, short=True, no_report=True, out=str(tmp_path / "out"),
        catalogue_dir=str(root), stdout=stdout, stderr=stderr,
    )  # fmt: skip
    assert status == 0
    lines = stderr.getvalue().splitlines()
    assert len(lines) == 2, lines
    found = [LINE.match(line) for line in lines]
    assert all(found), lines
    assert [(m.group(1), m.group(2), m.group(3)) for m in found] == [("1", "tiny", "2"), ("2", "twin", "4")]
    assert found[0].group(4).startswith("ETA") and found[1].group(4) == "done"
    assert "\x1b" not in stderr.getvalue()  # no bar, no escape codes in CI logs
    assert "catalogue: 2 experiments" in stdout.getvalue()


def test_a_single_experiment_stays_quiet_without_a_terminal(tmp_path):
    root = _two(tmp_path)
    stderr = io.StringIO()
    reproduce_command.main(
        ["tiny"], runs=1, short=True, no_report=True, out=str(tmp_path / "out"),
        catalogue_dir=str(root), stdout=io.StringIO(), stderr=stderr,
    )  # fmt: skip
    assert stderr.getvalue() == ""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_has_an_overall_row(tmp_path):
    root = _two(tmp_path)
    stderr = Terminal()
    status = reproduce_command.main(
        ["tiny", "twin"], runs=1, short=True, no_report=True, out=str(tmp_path / "out"),
        catalogue_dir=str(root), stdout=io.StringIO(), stderr=stderr,
    )  # fmt: skip
    assert status == 0
    text = stderr.getvalue()
    assert "all (1/2)" in text and "all (2/2)" in text, text
    assert "4/4" in text  # the overall row reaches the total
    assert re.findall(r"flowstate: \[\d/2\] (\w+): 2 runs in ", text) == ["tiny", "twin"]
