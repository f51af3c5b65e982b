"""flowstate.browser: the synthetic camera clip, and two real Chromium browsers in a
WebRTC call on loopback, driven with Playwright.

The call tests need the Python package playwright and /usr/bin/chromium (Debian package
`chromium`; scripts/install-test-tools.sh installs it); they are skipped, saying which
is missing, without them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from flowstate.browser import y4m
from flowstate.browser.chromium import ChromiumCall, ChromiumError, DataFlow, VideoFlow

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent


def _needs_browsers() -> None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the Python package playwright is not installed")
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no Chromium at {CHROMIUM}")


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return y4m.write_clip(tmp_path_factory.mktemp("clip"))


def _frames(path: Path) -> tuple[str, list[bytes]]:
    """The header line and each frame's planes, checking every frame marker."""
    data = path.read_bytes()
    header, _, body = data.partition(b"\n")
    fields = dict((f[:1], f[1:]) for f in header.split()[1:])
    size = int(fields[b"W"]) * int(fields[b"H"]) * 3 // 2
    frames = [body[i + 6 : i + 6 + size] for i in range(0, len(body), size + 6)]
    assert all(body[i : i + 6] == b"FRAME\n" for i in range(0, len(body), size + 6))
    assert len(body) == len(frames) * (size + 6)
    return header.decode(), frames


def test_clip_is_a_y4m_of_the_requested_shape(clip: Path) -> None:
    header, frames = _frames(clip)
    assert header == "YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 C420jpeg"
    assert len(frames) == 90
    assert clip.stat().st_size == len(header) + 1 + 90 * (6 + 1280 * 720 * 3 // 2)
    assert clip.name == y4m.clip_name(1280, 720, 30, 90, 1)


def test_clip_is_reused_and_deterministic_per_seed(tmp_path: Path) -> None:
    a = y4m.write_clip(tmp_path / "a", width=64, height=48, frames=5, seed=7)
    mtime = a.stat().st_mtime_ns
    assert y4m.write_clip(tmp_path / "a", width=64, height=48, frames=5, seed=7) == a
    assert a.stat().st_mtime_ns == mtime, "an existing clip with the same parameters is reused"
    b = y4m.write_clip(tmp_path / "b", width=64, height=48, frames=5, seed=7)
    c = y4m.write_clip(tmp_path / "a", width=64, height=48, frames=5, seed=8)
    assert a.read_bytes() == b.read_bytes()
    assert c.read_bytes() != a.read_bytes()
    assert not list((tmp_path / "a").glob(".*partial")), "no temporary file left"
    with pytest.raises(ValueError, match="even"):
        y4m.write_clip(tmp_path, width=63, height=48)


def test_clip_has_high_entropy(clip: Path) -> None:
    """A generic compressor cannot shrink a frame much (random texture), and the fresh
    noise changes most samples from one frame to the next even where the pan is undone,
    so no reference frame predicts them. (The texture has an 8-pixel grain, not a
    1-pixel one, so zlib saves up to ~30 %, not < 10 %: see y4m.py on why.)"""
    _, frames = _frames(clip)
    for frame in frames[:3]:
        assert len(zlib.compress(frame)) > 0.6 * len(frame)
    luma = [np.frombuffer(f[: 1280 * 720], np.uint8).reshape(720, 1280) for f in frames[:2]]
    pan = y4m.PAN_PX_PER_FRAME
    changed = np.mean(luma[1][:, :-pan] != luma[0][:, pan:])
    assert changed > 0.5, changed


def _running(pgid: int) -> list[int]:
    """Processes of the group that are not zombies (a zombie waits for its parent to
    reap it; it runs nothing)."""
    pids = []
    for entry in os.scandir("/proc"):
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            pids.append(int(entry.name))
    return pids


def _series(samples: list[dict], flow: str, field: str) -> list[tuple[float, float]]:
    return [(s["t_unix_s"], s[field]) for s in samples if s["flow"] == flow and s[field] is not None]


def _mbps(series: list[tuple[float, float]], start: float, end: float) -> float:
    inside = [(t, b) for t, b in series if start <= t <= end]
    (t0, b0), (t1, b1) = inside[0], inside[-1]
    return (b1 - b0) * 8 / (t1 - t0) / 1e6


def test_call_on_loopback_sends_video_and_data_then_stops_and_leaves_nothing(
    clip: Path, tmp_path: Path
) -> None:
    _needs_browsers()
    call = ChromiumCall(
        videos=[VideoFlow("cam", 1.5e6)],
        datas=[DataFlow("bulk", None), DataFlow("paced", 2e6)],
        clip=clip,
        sender_netns=None,
        receiver_netns=None,
        workdir=tmp_path,
    )
    with call:
        call.connect(timeout_s=30)
        ssrc = call.ssrcs()["cam"]
        assert isinstance(ssrc, int)
        call.start_video("cam")
        call.start_data("bulk")
        call.start_data("paced")
        t_start = time.time()
        time.sleep(6)
        call.stop_video("cam")
        t_stop = time.time()
        time.sleep(2.5)
        samples = call.stats()
    pids = call.browser_pids
    assert set(pids) == {"sender", "receiver"}
    assert all(not _running(pid) for pid in pids.values()), {p: _running(p) for p in pids.values()}

    kinds = {(s["flow"], s["kind"]) for s in samples}
    assert kinds == {("cam", "video"), ("*", "transport"), ("bulk", "data"), ("paced", "data"),
                     ("*", "inbound-video")}
    # The encoder's and the capturer's counters (frame rate and sizes) and the receiver's view.
    # (the media-source stats exist while a track is on the sender)
    last = [s for s in samples if s["kind"] == "video" and s["frames_encoded"] and s["source_frames"]][-1]
    assert last["encoder_implementation"] == "libvpx"
    assert 0 < last["frames_sent"] <= last["frames_encoded"] <= last["source_frames"]
    assert last["qp_sum"] > 0 and last["key_frames_encoded"] >= 1
    assert isinstance(last["quality_limitation_durations"], dict)
    inbound = [s for s in samples if s["kind"] == "inbound-video"]
    assert inbound[-1]["ssrc"] == ssrc and inbound[-1]["frames_decoded"] > 0
    assert "fec_packets_received" in inbound[-1]  # null when Chromium reports no FEC
    end = t_stop + 2.5
    video = _series(samples, "cam", "bytes_sent")
    assert _mbps(video, t_start, t_stop) > 0.1, "video sends"
    assert _mbps(video, t_stop + 1, end) == 0, "and stops after replaceTrack(null)"
    assert {s["ssrc"] for s in samples if s["flow"] == "cam" and s["ssrc"]} == {ssrc}
    assert any(s["rtt_s"] is not None for s in samples if s["kind"] == "video")
    assert any(s["available_outgoing_bitrate_bps"] for s in samples if s["kind"] == "transport")
    # Loose bounds: on a loaded machine dcSCTP can stall for seconds at the start (seen:
    # 30-70 MB in 8.5 s from run to run), but a greedy channel on loopback moves tens of
    # Mbit/s, and a paced one never goes faster than its rate.
    assert _mbps(_series(samples, "bulk", "bytes_sent"), t_start, end) > 2, "greedy data"
    assert _mbps(_series(samples, "bulk", "bytes_received"), t_start, end) > 2
    assert 0.5 < _mbps(_series(samples, "paced", "bytes_sent"), t_start, end) < 2.2


def test_ctrl_c_during_a_call_closes_both_browsers(clip: Path, tmp_path: Path) -> None:
    """Ctrl-C reaches the whole foreground process group: Python and Playwright's
    driver (the browsers have their own). The call must raise KeyboardInterrupt and
    still close everything."""
    _needs_browsers()
    child = f"""
import signal, sys, time
from pathlib import Path
from flowstate.browser.chromium import ChromiumCall, DataFlow, VideoFlow
signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job may inherit SIG_IGN
call = ChromiumCall(videos=[VideoFlow("cam", None)], datas=[DataFlow("bulk", None)],
                    clip=Path({str(clip)!r}), sender_netns=None, receiver_netns=None,
                    workdir=Path({str(tmp_path)!r}))
try:
    with call:
        call.connect()
        call.start_video("cam")
        call.start_data("bulk")
        print("pids", *call.browser_pids.values(), flush=True)
        while True:
            call.stats()
            time.sleep(0.1)
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""
    p = subprocess.Popen(
        [sys.executable, "-c", child], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        assert line.startswith("pids"), line
        time.sleep(1)
        os.killpg(p.pid, signal.SIGINT)
        out, _ = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
    assert out.strip() == "interrupted" and p.returncode == 0, out
    pids = [int(x) for x in line.split()[1:]]
    assert all(not _running(pid) for pid in pids), {pid: _running(pid) for pid in pids}


def _call(tmp_path: Path, good_clip: Path, **overrides) -> ChromiumCall:
    """A call on a good clip and an executable file as the browser (so each check
    is reached), with what the test changes."""
    args = dict(
        videos=[VideoFlow("cam", None)],
        datas=[],
        clip=good_clip,
        sender_netns=None,
        receiver_netns=None,
        workdir=tmp_path / "work",
        chromium=sys.executable,
    )
    args.update(overrides)
    return ChromiumCall(**args)


@pytest.mark.parametrize(
    "overrides, words",
    [
        ({"chromium": "/nonexistent/chromium"}, "no Chromium executable at /nonexistent/chromium"),
        ({"clip": Path("/nonexistent/clip.y4m")}, "cannot read the video clip /nonexistent/clip.y4m"),
        ({"clip": ROOT / "pyproject.toml"}, "is not a Y4M file"),
        ({"sender_netns": "flowstate-absent-ns"}, "no network namespace 'flowstate-absent-ns'"),
        ({"datas": [DataFlow("cam", None)]}, "flow names must be unique"),
    ],
)
def test_bad_inputs_are_one_line_errors(tmp_path: Path, clip: Path, overrides: dict, words: str) -> None:
    with pytest.raises(ChromiumError) as e:
        with _call(tmp_path, clip, **overrides) as call:
            call.connect()
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_browser_that_fails_to_start_is_a_one_line_error(tmp_path: Path, clip: Path) -> None:
    """Playwright launches the executable, which exits at once: the error names the
    browser's last complaint and its exit status, and nothing is left running."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        pytest.skip("the Python package playwright is not installed")
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\necho 'cannot start here' >&2\nexit 3\n")
    fake.chmod(0o755)
    call = _call(tmp_path, clip, chromium=str(fake))
    with pytest.raises(ChromiumError) as e:
        call.connect(timeout_s=20)
    message = str(e.value)
    assert message.startswith("sender browser did not start:") and "\n" not in message, message
    assert "cannot start here" in message and "exitCode=3" in message, message
