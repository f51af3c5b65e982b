"""The two README commands' set-ups: scripts/main.sh installs only what
the main job needs, quietly with one line per step; the test set-up adds Ray, playwright
and the test tools."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "scripts"


def _code(name: str) -> str:
    """The script without its comments, continued lines joined."""
    lines = (SCRIPTS / name).read_text(encoding="utf-8").splitlines()
    return "\n".join(re.sub(r"(^|\s)#.*$", "", line) for line in lines).replace("\\\n", " ")


def test_main_job_sets_up_only_what_it_needs():
    assert re.search(r"^bash scripts/setup\.sh$", _code("main.sh"), re.M)
    setup = _code("setup.sh")
    for extra in ("ray", "playwright", "--extras", "install-test-tools", "requirements.txt", "pytest"):
        assert extra not in setup, f"scripts/setup.sh (main job) installs {extra}"
    assert re.search(r"bash scripts/build_native\.sh$", setup, re.M)
    assert "maturin develop --release" in _code("build_native.sh")


def test_main_job_replaces_its_own_earlier_outputs():
    # `reproduce` refuses a folder that holds outputs; the main job must work twice in a row.
    assert re.search(r"^\.venv/bin/flowstate reproduce p000-table5 --force \"\$@\"$", _code("main.sh"), re.M)


def test_test_setup_adds_ray_playwright_and_the_tools():
    assert re.search(r"^bash scripts/setup-test\.sh$", _code("test.sh"), re.M)
    test_setup = _code("setup-test.sh")
    assert "bash scripts/setup.sh" in test_setup
    for needed in ('"ray>=2"', '"playwright>=1.40"', "-r requirements.txt", "scripts/install-test-tools.sh"):
        assert needed in test_setup
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^ray = \["ray>=2"\]', pyproject, re.M)
    assert re.search(r"^test = \[.*playwright.*ray>=2", pyproject, re.M)


def test_setup_is_one_line_per_step_and_quiet_otherwise():
    # Every command that prints (pip, maturin, apt) runs through step() or has its output
    # sent to the log; what reaches the terminal is an `echo "setup: ..."` line.
    for name in ("setup.sh", "setup-test.sh", "build_native.sh"):
        code = _code(name)
        for line in code.splitlines():
            if re.search(r"\b(pip install|maturin (develop|build)|install-test-tools\.sh)\b", line) and "import" not in line:
                # train_profile runs its builds through step and its training into $LOG.
                assert re.search(r'step |pip_quiet|train_profile |>>"\$LOG"', line), f"{name}: not quiet: {line.strip()}"
        assert "echo \"setup: " in code
    assert 'step "building the native extension' in _code("build_native.sh")


def test_native_build_is_plain_by_default_and_profile_guided_on_request():
    # scripts/build_native.sh: a plain release build unless FLOWSTATE_PGO=1; then the
    # instrumented build, the training, the merge and the build with the profile, with a
    # missing llvm-profdata falling back to the plain build, said in one line.
    code = _code("build_native.sh")
    assert "PGO=${FLOWSTATE_PGO:-0}" in code and '[ "$PGO" != 1 ]' in code
    assert "-Cprofile-generate=" in code and "-Cprofile-use=" in code
    assert "scripts/pgo_training.py" in code and "merge -o" in code


def test_a_second_build_with_unchanged_sources_builds_nothing():
    # The quick start's second run prints no "building" line: the extension's build key
    # (sources, Cargo.lock, compiler, mode) matches the installed one. The first call
    # builds only if the tree changed since the set-up.
    script = ROOT / "scripts" / "build_native.sh"
    env = {**os.environ, "LOG": str(ROOT / ".venv" / "setup.log")}
    env.pop("FLOWSTATE_PGO", None)
    subprocess.run(["bash", str(script)], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    second = subprocess.run(["bash", str(script)], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert "building" not in second.stdout, second.stdout
    assert "native extension up to date" in second.stdout, second.stdout