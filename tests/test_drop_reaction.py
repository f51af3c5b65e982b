"""scripts/drop_reaction.py (issue 21): the drop reaction at a fine bin from a real run's
per-packet record, and its one-line errors."""

from __future__ import annotations

from pathlib import Path

from script_support import load_script



def _module():
    return load_script("drop_reaction")


def _fake_run(folder: Path, fall_at_s: float) -> None:
    """1250 B every 5 ms (2 Mbit/s) until `fall_at_s`, then every 20 ms (0.5 Mbit/s),
    plus overhead packets that must not count."""
    folder.mkdir(parents=True)
    rows = ["arrival_us,departure_us,model_departure_us,queue_delay_us,size,class,protocol,src,dst,src_port,dst_port,ssrc,flow"]
    t = 55_000_000
    while t < 70_000_000:
        rows.append(f"{t},{t + 1000},{t + 1000},0,1250,rtp,17,a,b,1,2,3,media")
        rows.append(f"{t},{t + 1000},{t + 1000},0,1250,stun,17,a,b,1,2,,(overhead)")
        t += 5_000 if t < fall_at_s * 1e6 else 20_000
    (folder / "bottleneck-forward.csv").write_text("\n".join(rows) + "\n")


def test_reaction_is_the_first_bin_under_110_percent_of_the_new_capacity(tmp_path):
    dr = _module()
    for k, fall in enumerate((61.0, 60.5, 61.3)):
        _fake_run(tmp_path / "rfc8867-5.1" / "chromium" / f"run-{k + 1}", fall)
    got = dr.real_runs(tmp_path, "media", 0.1)
    firsts = sorted(round(f, 2) for f, _ in got)
    assert firsts == [0.5, 1.0, 1.3]
    # Above 0.66 Mbit/s for exactly as long as the 2 Mbit/s lasts after the drop.
    assert sorted(round(a, 2) for _, a in got) == [0.5, 1.0, 1.3]
    # A coarser bin cannot resolve 1.3 s: its first bin under starts at 1.5 s.
    assert sorted(round(f, 2) for f, _ in dr.real_runs(tmp_path, "media", 0.5)) == [0.5, 1.0, 1.5]


def test_bad_input_is_one_line(tmp_path, capsys):
    dr = _module()
    assert dr.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "no real runs there" in err
    (tmp_path / "rfc8867-5.1" / "chromium").mkdir(parents=True)
    assert dr.main(["--out", str(tmp_path), "--bins", "0"]) == 2
    assert capsys.readouterr().err.strip().endswith("each bin width must be in (0, 1] s")
    assert dr.main(["--out", str(tmp_path), "--sim-set", "nokey"]) == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err
