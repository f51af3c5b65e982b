"""The command line: the demo runs, bad flags are one-line errors with exit status 2."""

import subprocess
import sys


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "flowstate", *args], capture_output=True, text=True)


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
