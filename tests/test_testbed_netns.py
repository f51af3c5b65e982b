"""`flowstate testbed --netns`: one-line errors for bad namespace arguments. (The
kernel-tbf script that used it was replaced by `flowstate browser --stack flowstate`,
tests/test_browser_path.py: the shaper now sits in a router namespace.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from flowstate.cli.main import main


@pytest.mark.parametrize(
    "netns, words",
    [
        (["snd", "rcv=10.0.0.2"], "the sender side must be NAME=IP"),
        (["snd=10.0.0.1", "rcv=ten"], "'ten' is not an IP address"),
        (["flowstate-absent-s=10.0.0.1", "flowstate-absent-r=10.0.0.2"], "sender namespace 'flowstate-absent-s'"),
    ],
)
def test_bad_netns_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], netns, words) -> None:
    scenario = tmp_path / "g.toml"
    scenario.write_text(
        'name = "g"\nduration = "2s"\n[link]\ncapacity = "1Mbps"\ndelay = "10ms"\nqueue = "30kB"\n'
        '[[flows]]\nname = "gcc"\nkind = "gcc"\n'
    )
    assert main(["testbed", str(scenario), "--no-report", "--out", str(tmp_path / "o"), "--netns", *netns]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("flowstate: error:") and words in err[0], err
