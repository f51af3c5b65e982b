"""Type stubs of the native extension (flowstate-py, PyO3)."""

from typing import Literal, Optional, TypedDict, Union

__version__: str
MECHANISMS: list[str]

class CouplingError(ValueError):
    """Bad input to a coupling manager (invalid priority or rate, unknown flow, ...)."""

class Allocation:
    """One flow's share after an update."""

    @property
    def flow(self) -> int: ...
    @property
    def rate_bps(self) -> float:
        """The rate the manager assigned (FSE_R), bit/s."""
    @property
    def kind(self) -> Literal["rate", "window", "max_window"]:
        """What the flow's controller must apply."""
    @property
    def cwnd(self) -> Optional[int]:
        """For kind "window": the cwnd to set, bytes (whole MTUs, at least one)."""
    @property
    def ssthresh(self) -> Optional[int]:
        """For kind "window": the ssthresh to set with it, bytes (None: leave it)."""
    @property
    def max_cwnd(self) -> Optional[int]:
        """For kind "max_window": the cwnd cap, bytes (None: no cap)."""

class FlowInfo(TypedDict):
    id: int
    kind: Literal["rate", "window"]
    priority: float
    desired_rate_bps: Optional[float]
    allocated_rate_bps: float

class CouplingManager:
    """A coupling manager of the Flow State Exchange family.

    ``mechanism`` is one of ``MECHANISMS``; mechanism options are keyword arguments
    (e.g. ``count_change_twice=False`` for ``fse-ng``, ``rate_priority_boost=1.1`` for
    ``fsev2``); see docs/ALGORITHMS.md for every option.
    """

    def __init__(
        self,
        mechanism: str,
        *,
        deregister_policy: Literal["keep", "subtract"] = "keep",
        **options: Union[bool, int, float, str],
    ) -> None: ...
    @property
    def mechanism(self) -> str: ...
    def register_rate(
        self,
        group: int,
        *,
        priority: float = 1.0,
        initial_rate_bps: float,
        desired_rate_bps: Optional[float] = None,
        flow_id: Optional[int] = None,
    ) -> int: ...
    def register_window(
        self,
        group: int,
        *,
        priority: float = 1.0,
        initial_cwnd: int,
        initial_rtt_s: Optional[float] = None,
        initial_max_cwnd: Optional[int] = None,
        mtu: int = 1200,
        flow_id: Optional[int] = None,
    ) -> int: ...
    def update_rate(
        self, now_s: float, flow: int, rate_bps: float, *, rtt_s: Optional[float] = None
    ) -> list[Allocation]: ...
    def update_window(
        self,
        now_s: float,
        flow: int,
        cwnd: int,
        *,
        ssthresh: int,
        rtt_s: Optional[float] = None,
        desired_cwnd: Optional[int] = None,
    ) -> list[Allocation]: ...
    def deregister(self, flow: int) -> list[Allocation]: ...
    def set_priority(self, flow: int, priority: float) -> None: ...
    def set_desired_rate(self, flow: int, desired_rate_bps: Optional[float]) -> None: ...
    def aggregate_bps(self, group: int) -> Optional[float]: ...
    def flows(self, group: int) -> list[FlowInfo]: ...
