"""Sockets made inside a named network namespace, from any thread of this process.

setns(2) moves only the calling thread, so each socket is made on a short-lived
thread that enters the namespace first; the socket stays in that namespace whichever
thread uses it later, and the caller never moves (the same rule as the Rust side's
``flowstate_emu::netns::in_netns``). Python 3.11 has no ``os.setns``: libc's is called
through ctypes.
"""

from __future__ import annotations

import ctypes
import os
import socket
import threading
from typing import Callable, TypeVar

CLONE_NEWNET = 0x40000000
T = TypeVar("T")

_libc = ctypes.CDLL(None, use_errno=True)


def _enter(netns: str) -> None:
    path = netns if netns.startswith("/") else f"/run/netns/{netns}"
    fd = os.open(path, os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"cannot enter the network namespace {path}: {os.strerror(err)}")
    finally:
        os.close(fd)


def in_netns(netns: str, make: Callable[[], T]) -> T:
    """``make()`` run on a new thread inside ``netns``; its result or its exception."""
    box: dict[str, object] = {}

    def body() -> None:
        try:
            _enter(netns)
            box["value"] = make()
        except BaseException as e:  # noqa: BLE001 - handed back to the caller
            box["error"] = e

    t = threading.Thread(target=body, name=f"netns-{netns}")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def socket_in(netns: str, kind: int = socket.SOCK_STREAM) -> socket.socket:
    """An IPv4 socket (TCP by default) in ``netns``."""
    return in_netns(netns, lambda: socket.socket(socket.AF_INET, kind))
