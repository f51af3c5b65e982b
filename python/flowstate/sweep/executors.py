"""Where sweep tasks run: in this process, on a local process pool, or on Ray.

Every executor takes a list of jobs (argument tuples of :func:`run_task`) and yields
``(job index, result)`` as jobs finish, in completion order. A result is a plain dict
(``{"summary", "derived"}`` or ``{"error"}``), so it pickles the same way everywhere;
since every task is a pure function of (scenario, seed), the results do not depend on
the executor or on the number of workers.

Ray is imported only by :class:`RayExecutor` (``.venv/bin/pip install 'ray>=2'``, the ``ray`` extra).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Iterator, Mapping, Optional, Protocol, Sequence

from flowstate.errors import FlowstateError

# Seconds between polls of Ray for finished tasks.
RAY_POLL_S = 0.2

Job = tuple[Mapping[str, Any], int, Sequence[Mapping[str, Any]]]


def run_task(scenario: Mapping[str, Any], seed: int, derived: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One sweep task: simulate ``scenario`` once at ``seed`` (one thread) and return
    ``{"summary": the run's summary, "derived": {name: {fn, args, value}}}``, or
    ``{"error": one line}`` for a scenario that cannot be run (a FlowstateError), or
    ``{"error": one line, "bug": the exception's type}`` for any other exception."""
    from flowstate.simulation import as_pooled_run, run
    from flowstate.sweep.metrics import compute_derived

    try:
        # A task returns the summary and derived metrics (no fingerprint needed), one of
        # many on the machine's cores (no recorder thread).
        result = run(as_pooled_run(scenario), seed=seed, runs=1, threads=1)
        summary = result.runs[0]
        return {"summary": summary, "derived": compute_derived(result, derived)}
    except FlowstateError as e:  # bad input: ScenarioError, MetricError, ...
        return {"error": _one_line(e)}
    except Exception as e:  # noqa: BLE001 - a bug, reported as one (the worker may be another process)
        return {"error": _one_line(e), "bug": type(e).__name__}


def _one_line(e: BaseException) -> str:
    return str(e).splitlines()[0] if str(e) else type(e).__name__


class Executor(Protocol):
    name: str

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, dict[str, Any]]]: ...


class InlineExecutor:
    """Runs the jobs one after the other in this process (``--workers 1``)."""

    name = "inline"

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, dict[str, Any]]]:
        for i, job in enumerate(jobs):
            yield i, run_task(*job)


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which cancels and stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalExecutor:
    """A ``ProcessPoolExecutor`` (spawn context) of ``workers`` processes (default: one
    per core). Ctrl-C (or closing the iterator) cancels the pending jobs and stops the
    workers; jobs already yielded are kept by the caller."""

    name = "local"

    def __init__(self, workers: Optional[int] = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, dict[str, Any]]]:
        if not jobs:
            return
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(jobs)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_ignore_sigint,
        )
        finished = False
        try:
            futures: dict[Future[dict[str, Any]], int] = {pool.submit(run_task, *job): i for i, job in enumerate(jobs)}
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in sorted(done, key=futures.__getitem__):
                    try:
                        result = future.result()
                    except BrokenProcessPool:
                        raise _worker_died("a worker process died (out of memory, or killed)") from None
                    yield futures[future], result
            finished = True
        finally:
            if finished:
                pool.shutdown(wait=True)
            else:  # interrupted or failed: do not wait for the running simulations
                processes = list(getattr(pool, "_processes", {}).values())
                pool.shutdown(wait=False, cancel_futures=True)
                for p in processes:
                    if p.is_alive():
                        p.terminate()


class RayExecutor:
    """Ray tasks (``ray.remote``, one CPU each) on the cluster at ``address``, or on a
    local Ray instance with ``workers`` CPUs when no Ray is initialized and no address
    is given. A Ray this executor started is shut down at the end. Every node needs
    flowstate installed (the same version)."""

    name = "ray"

    def __init__(self, address: Optional[str] = None, workers: Optional[int] = None) -> None:
        self.address = address
        self.workers = workers

    def run(self, jobs: Sequence[Job]) -> Iterator[tuple[int, dict[str, Any]]]:
        ray = import_ray()
        started = False
        if not ray.is_initialized():
            if self.address is not None:
                try:
                    ray.init(address=self.address, log_to_driver=False, logging_level=logging.WARNING)
                except Exception as e:  # noqa: BLE001 - any Ray error type (ConnectionError, ValueError, ...)
                    from flowstate.sweep.spec import SweepError

                    first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                    raise SweepError(f"--ray-address {self.address!r}: {first}") from None
            else:
                ray.init(
                    num_cpus=self.workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING
                )
            started = True
        refs: dict[Any, int] = {}
        try:
            remote = ray.remote(num_cpus=1)(run_task)
            refs = {remote.remote(*job): i for i, job in enumerate(jobs)}
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=len(pending), timeout=RAY_POLL_S)
                for ref in sorted(done, key=refs.__getitem__):
                    try:
                        result = ray.get(ref)
                    except Exception as e:  # noqa: BLE001 - a task or worker failure, any Ray error type
                        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                        raise _worker_died(f"a Ray task failed: {first}") from None
                    yield refs[ref], result
            refs = {}
        finally:
            for ref in refs:  # interrupted: cancel what has not been yielded
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - finished or already gone
                    pass
            if started:
                ray.shutdown()


def _worker_died(message: str) -> Exception:
    from flowstate.sweep.spec import SweepError

    return SweepError(f"{message}; the finished tasks are stored, rerun to resume")


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        from flowstate.sweep.spec import SweepError

        raise SweepError(
            "--executor ray needs the ray package: .venv/bin/pip install 'ray>=2' (the ray extra)"
        ) from None
    return ray


def make_executor(kind: str, workers: Optional[int] = None, address: Optional[str] = None) -> Executor:
    """``local`` (``workers`` 1: inline in this process) or ``ray``."""
    if address is not None and (kind != "ray" or not address.strip()):
        from flowstate.sweep.spec import SweepError

        why = "only with --executor ray" if kind != "ray" else "expected a Ray cluster address"
        raise SweepError(f"--ray-address {address!r}: {why}")
    if kind == "ray":
        import_ray()
        return RayExecutor(address, workers)
    if kind != "local":
        from flowstate.sweep.spec import SweepError

        raise SweepError(f"--executor: expected local or ray, got {kind!r}")
    if workers == 1:
        return InlineExecutor()
    return LocalExecutor(workers)
