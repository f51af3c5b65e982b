"""Issue 21: scripts/sctp_start.py reads the data channel's start at packet level from a
real run's bottleneck logs and from the simulator's packet trace (the packet_trace
example), the same way: sends, drops, the longest pause, the densest 50 ms."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

from script_support import ROOT, SCRIPTS

if str(SCRIPTS) not in sys.path:
    sys.path.insert(0, str(SCRIPTS))
import sctp_start  # noqa: E402

KEPT = ROOT / "references" / "chromium-156-5runs" / "p000-table5" / "chromium" / "packets"


def test_pause_and_densest_window():
    times = [0.0, 0.01, 0.30, 0.301, 0.302, 0.349, 0.36]
    assert sctp_start.longest_pause(times) == (0.29, 0.01)
    # [0.30, 0.35) holds four sends; [0.301, 0.351) too, but the first span wins
    assert sctp_start.densest(times) == (4, 0.30)
    assert sctp_start.longest_pause([1.0]) == (0.0, None) and sctp_start.densest([]) == (0, None)


def write_real(folder: Path, gz: bool) -> None:
    folder.mkdir(parents=True)
    fwd = "arrival_us,departure_us,size,class\n" + "".join(
        f"{10_000_000 + 1000 * k},{'' if k in (3, 4) else 10_100_000 + 1000 * k},1238,dtls\n" for k in range(10)
    ) + "10005000,10105000,1200,rtp\n"
    rev = "departure_us,class\n10150000,dtls\n10160000,dtls\n10170000,rtcp\n"
    for name, text in (("bottleneck-forward.csv", fwd), ("bottleneck-reverse.csv", rev)):
        if gz:
            (folder / (name + ".gz")).write_bytes(gzip.compress(text.encode()))
        else:
            (folder / name).write_text(text)


def test_real_logs_plain_or_gzipped(tmp_path: Path):
    for gz in (False, True):
        d = tmp_path / f"run-{gz}"
        write_real(d, gz)
        p = sctp_start.real_packets(d)
        assert len(p.sends) == 10 and p.drops == [10.003, 10.004] and p.sacks == [10.15, 10.16]
        r = sctp_start.summarise(p, 10.0, 14.0)
        assert (r["sent"], r["dropped"], r["burst_packets"]) == (10, 2, 10)
        assert abs(r["burst_mbps"] - 10 * 1238 * 8 / 0.05 / 1e6) < 1e-9


def test_sim_trace_takes_the_named_flow(tmp_path: Path):
    t = tmp_path / "trace.csv"
    t.write_text("time_us,kind,link,flow,flow_name,dir,size,packet\n"
                 "10000000,send,0,1,sctp,0,1200,1\n10001000,drop,0,1,sctp,0,1200,1\n"
                 "10002000,send,0,0,gcc,0,1000,2\n10300000,deliver,1,1,sctp,1,28,3\n")
    p = sctp_start.sim_packets(t, "sctp")
    assert p.sends == [(10.0, 1200)] and p.drops == [10.001] and p.sacks == [10.3]


def test_the_kept_real_runs_show_the_burst():
    out = subprocess.run([sys.executable, str(SCRIPTS / "sctp_start.py"), "--real", str(KEPT / "run-3"), str(KEPT / "run-4")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = [l for l in out.stdout.splitlines() if l.startswith("| ") and "packets/run-" in l]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert int(cells[2]) > 100  # more than a hundred drops at the start
        assert int(cells[4]) >= 40  # a burst of 40+ packets within 50 ms


def test_bad_input_is_one_line(tmp_path: Path):
    def err(*args: str) -> str:
        p = subprocess.run([sys.executable, str(SCRIPTS / "sctp_start.py"), *args], capture_output=True, text=True)
        assert p.returncode != 0 and "Traceback" not in p.stderr, p.stderr
        return p.stderr.strip().splitlines()[-1]

    assert "give --real" in err()
    assert "not a folder" in err("--real", str(tmp_path / "none"))
    (tmp_path / "empty").mkdir()
    assert "no such file" in err("--real", str(tmp_path / "empty"))
    t = tmp_path / "t.csv"
    t.write_text("time_us,kind,link,flow,flow_name,dir,size,packet\n1,send,0,0,gcc,0,1,1\n")
    assert "no flow named 'sctp'" in err("--sim", str(t))
    t.write_text("a,b\n1,2\n")
    assert "no column" in err("--sim", str(t))
    assert "must be after" in err("--sim", str(t), "--from", "5", "--to", "4")
