"""A synthetic camera clip that VP8 cannot compress well.

Chromium's default fake camera (20 fps, trivial content) cannot fill a 2 Mbit/s target:
VP8 sends 0.35-0.77 Mbit/s whatever GCC allows, so the video would be encoder-limited
and say nothing about congestion control (REAL-CHROMIUM.md, "Media and data"). This
clip, passed with ``--use-file-for-fake-video-capture``, lets VP8 spend several Mbit/s:
a panning random texture (motion the encoder must search), a few moving shapes (edges
that change every frame) and fresh per-frame noise (residual that no reference frame
predicts). Chromium loops the file, so 90 frames are enough.

How hard the clip is also decides whether Chromium's quality scaler ever raises the
resolution above the 320x180 it starts at. Measured on Chromium 156 on loopback, video
alone, maxBitrate 2.5 Mbit/s, 30 s: a texture of 1-pixel grain stays at 320x180 for
any noise from 6 to 48 levels (sending 2.5 Mbit/s all the same); an 8-pixel grain with 4
levels of noise climbs to 480x270-960x540 and still fills 2.5 Mbit/s (and 4 Mbit/s with
a 4 Mbit/s cap). The defaults are the latter: the video adapts its resolution as a
camera's would, and is still not encoder-limited. (A generic compressor still saves
only ~27 % on a frame: zlib cannot follow the pan.)

Format (the YUV4MPEG2 header Chromium's file capturer reads): ``YUV4MPEG2 W.. H..
F30:1 Ip A1:1 C420jpeg``, then per frame ``FRAME\\n`` and the Y, U, V planes (4:2:0,
chroma at half resolution in both directions, full-range 8-bit samples).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

#: Pan per frame, in luma pixels (an integer: the encoder's motion search can find it).
PAN_PX_PER_FRAME = 4
#: Side of the texture's random squares, in luma pixels.
GRAIN_PX = 8
#: Fresh per-frame noise: 0 to NOISE_LEVELS - 1 added to every sample.
NOISE_LEVELS = 4
SHAPES = 5


def clip_name(width: int, height: int, fps: int, frames: int, seed: int) -> str:
    """The file name carries every parameter and the content's knobs, so a clip on disk
    is reused only if it was made with the same ones."""
    knobs = f"pan{PAN_PX_PER_FRAME}-grain{GRAIN_PX}-noise{NOISE_LEVELS}"
    return f"flowstate-{width}x{height}-{fps}fps-{frames}f-seed{seed}-{knobs}.y4m"


def write_clip(
    path: Path, width: int = 1280, height: int = 720, fps: int = 30, frames: int = 90, seed: int = 1
) -> Path:
    """Write the clip into the directory ``path`` (created if needed) and return the
    file, or return the existing file made with the same parameters. The clip is a pure
    function of the parameters (numpy's PCG64 seeded with ``seed``). It is written to a
    temporary name and renamed, so an interrupted run never leaves a truncated clip for
    the next one to reuse."""
    if width <= 0 or height <= 0 or width % 2 or height % 2:
        raise ValueError(f"4:2:0 needs a positive, even width and height, not {width}x{height}")
    if fps <= 0 or frames <= 0:
        raise ValueError(f"fps and frames must be positive, not {fps} and {frames}")
    directory = Path(path)
    directory.mkdir(parents=True, exist_ok=True)
    clip = directory / clip_name(width, height, fps, frames, seed)
    if clip.is_file():
        return clip
    partial = clip.with_name(f".{clip.name}.{os.getpid()}.partial")
    try:
        with open(partial, "wb") as out:
            out.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode("ascii"))
            for frame in _frames(width, height, frames, np.random.default_rng(seed)):
                out.write(b"FRAME\n")
                out.write(frame)
        os.replace(partial, clip)
    finally:
        partial.unlink(missing_ok=True)
    return clip


def _frames(width: int, height: int, frames: int, rng: np.random.Generator):
    """Yield each frame's Y, U and V planes as one bytes object."""
    planes = [_Plane(width // scale, height // scale, frames, scale, rng) for scale in (1, 2, 2)]
    shapes = _shapes(width, height, frames, rng)
    for i in range(frames):
        yield b"".join(plane.frame(i, shapes) for plane in planes)


class _Plane:
    """One colour plane (``scale`` 1 for luma, 2 for chroma): a random texture of
    GRAIN_PX squares, wider than the frame, seen through a window that pans across it."""

    def __init__(self, width: int, height: int, frames: int, scale: int, rng: np.random.Generator):
        self.width, self.scale = width, scale
        self.pan = PAN_PX_PER_FRAME // scale
        grain = GRAIN_PX // scale
        wide = width + self.pan * frames
        cells = rng.integers(0, 256, (-(-height // grain), -(-wide // grain)), dtype=np.uint8)
        self.texture = np.repeat(np.repeat(cells, grain, axis=0), grain, axis=1)[:height]
        self.shade = rng.integers(0, 256 - NOISE_LEVELS, SHAPES, dtype=np.uint8)
        self.noise = rng.integers(0, NOISE_LEVELS, (frames, height, width), dtype=np.uint8)

    def frame(self, i: int, shapes: np.ndarray) -> bytes:
        """Frame ``i``: the texture window, the shapes drawn over it in flat shades,
        plus this frame's noise (uint8 arithmetic wraps modulo 256 on the texture, which
        stays uniform; the shades are low enough not to wrap, so the shapes stay
        shapes)."""
        x = self.pan * i
        out = self.texture[:, x : x + self.width].copy()
        for k, (top, left, h, w) in enumerate(shapes[i] // self.scale):
            out[top : top + h, left : left + w] = self.shade[k]
        out += self.noise[i]
        return out.tobytes()


def _shapes(width: int, height: int, frames: int, rng: np.random.Generator) -> np.ndarray:
    """Rectangles (top, left, height, width in luma pixels) that bounce around the frame
    at constant speed: array of shape (frames, SHAPES, 4)."""
    size = rng.integers([height // 10, width // 10], [height // 4, width // 4], (SHAPES, 2))
    span = np.array([height, width]) - size
    start = rng.integers(0, span, (SHAPES, 2))
    speed = rng.integers(3, 12, (SHAPES, 2)) * rng.choice([-1, 1], (SHAPES, 2))
    travel = start[None] + speed[None] * np.arange(frames)[:, None, None]
    # Reflect off the edges: a triangle wave between 0 and span, period 2 * span.
    position = span - np.abs(travel % (2 * span) - span)
    sizes = np.broadcast_to(size, position.shape)
    return np.concatenate([position, sizes], axis=2) // 2 * 2
