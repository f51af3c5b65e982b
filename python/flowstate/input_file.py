"""Reading a file a user names (a scenario, a sweep, a catalogue entry) in bounded time
and memory, as the simulator reads scenario and trace files
(crates/flowstate-sim/src/input_file.rs): only a regular file is read (a FIFO, a device,
a socket or a folder is refused before it is opened, and the file is opened without
blocking, so a FIFO put in its place between the check and the open cannot block
either), and at most ``MAX_INPUT_BYTES``, counted on what is read rather than on the
size the file system reports (0 for /proc files, devices and pipes)."""

from __future__ import annotations

import os
import stat
from typing import Union

# Largest file read (bytes), the simulator's MAX_SCENARIO_BYTES: 64 MiB, a thousand
# times the catalogue's largest scenario.
MAX_INPUT_BYTES = 64 << 20

FilePath = Union[str, "os.PathLike[str]"]


class NotReadable(ValueError):
    """A file refused before or while reading it; the message does not name the path
    (the caller does): ``is a FIFO; a scenario must be a regular file``."""


def _not_regular(mode: int) -> str:
    """What a file of ``mode`` is when it is not a regular file ('' when it is)."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def read_bytes(file: FilePath, what: str, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``file``, at most ``limit`` (default
    ``MAX_INPUT_BYTES``); ``what`` names the file in errors (``"a scenario"``).
    NotReadable for a file that is not a regular file or is too large; OSError as
    opening and reading raise it."""
    limit = MAX_INPUT_BYTES if limit is None else limit
    kind = _not_regular(os.stat(file).st_mode)
    if kind:
        raise NotReadable(f"is {kind}; {what} must be a regular file")
    fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as f:
        kind = _not_regular(os.fstat(f.fileno()).st_mode)
        if kind:
            raise NotReadable(f"is {kind}; {what} must be a regular file")
        data = f.read(limit + 1)
    if len(data) > limit:
        raise NotReadable(f"larger than the {limit}-byte limit of {what}")
    return data
