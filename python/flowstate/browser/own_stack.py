"""``flowstate browser --stack flowstate``: the scenario's media and data flows run on
the testbed's own endpoints (flowstate's GCC and SCTP, crates/flowstate-testbed) in
the sender and receiver namespaces, across the same IP-level bottleneck and against
the same kernel TCP flows as the Chromium stack: our model of GCC and the real one
measured on one path.

The testbed multiplexes one UDP port pair: RTP with SSRC = flow index + 1
(crates/flowstate-testbed/src/codec.rs, ``flow_of_ssrc``) and SCTP over UDP (whose
first byte, the high byte of SCTP port 5000 + i, shows as plain UDP at the
bottleneck), so the bottleneck's classifier gives RTP by SSRC and UDP to the data
flows.
"""

from __future__ import annotations

import threading
from typing import Any, Optional

from flowstate import _native
from flowstate.browser.plan import Plan


class OwnStack:
    """The testbed, run in a background thread from :meth:`start` for the plan's
    duration."""

    def __init__(
        self, plan: Plan, text: str, file: str, *, seed: int, sender: tuple[str, str], receiver: tuple[str, str]
    ) -> None:
        import tomllib

        doc = tomllib.loads(text)
        # Kernel TCP flows are not the testbed's: it runs everything else.
        doc["flows"] = [f for f in doc.get("flows", []) if not str(f.get("kind", "")).startswith("tcp-")]
        self._media = [f for f in plan.flows if f.transport != "tcp"]
        self._result: Optional[dict[str, Any]] = None
        self._error: Optional[BaseException] = None
        own_text = _native.scenario_toml(doc)

        def body() -> None:
            try:
                self._result = _native.testbed(
                    own_text, file, seed=seed, duration=plan.duration_s, netns=(sender, receiver)
                )
            except BaseException as e:  # noqa: BLE001 - reported by check()
                self._error = e

        self._thread = threading.Thread(target=body, name="flowstate-testbed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def check(self) -> None:
        """Raise the testbed's error, if it failed."""
        if self._error is not None:
            raise RuntimeError(f"testbed: {self._error}")

    def ssrcs(self, records: dict[str, list]) -> dict[int, str]:
        """SSRC -> flow name of the testbed's RTP flows (flow index + 1)."""
        return {i + 1: f.name for i, f in enumerate(self._media) if f.transport == "video"}

    def result(self) -> Optional[dict[str, Any]]:
        """The testbed's own summary (its endpoints' measurements), once it ended."""
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        if self._result is None:
            return None
        import json

        return json.loads(self._result["summary_json"])

    def close(self) -> None:
        if self._thread.is_alive():
            self._thread.join(timeout=5)
