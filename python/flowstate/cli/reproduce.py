"""`flowstate reproduce ID...`: run experiments of the catalogue; the comparison with the paper,
the claims, the report."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, TextIO

from flowstate.catalogue import catalogue, references
from flowstate.catalogue import claims as claims_mod
from flowstate.catalogue import reproduce
from flowstate.cli import argtypes
from flowstate.cli.exit_status import ExitStatus
from flowstate.cli.progress_bar import progress_bar
from flowstate import manifest
from flowstate.cli import reproduce_folders
from flowstate.output_files import CATALOGUE_INDEX_FILE, REPORT_FILE, RESULTS_FILE
from flowstate.output_folder import Claim, check_claim, claim, clear, is_empty, remove_report_files
from flowstate.catalogue.catalogue import CatalogueError, Experiment
from flowstate.cli.reproduce_progress import Overall, clock_text, plan


def _console(stream: TextIO) -> Any:
    from rich.console import Console

    return Console(file=stream, width=None if stream.isatty() else 160)


def _fmt(value: Optional[float], digits: int = 3) -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.{digits}f}"


def _mean_std(stats: Optional[Mapping[str, Any]], runs: int, key: str = "mean") -> str:
    """``mean ± std`` over several runs; one run's value alone; ``-`` for none."""
    if stats is None or stats.get(key) is None:
        return "-"
    return f"{_fmt(stats[key])} ± {_fmt(stats['std'])}" if runs > 1 else _fmt(stats[key])


def comparison_table(results: dict[str, Any]) -> Any:
    """Ours (mean ± std over runs, [min, max]; one run: its value) against the paper's numbers; without
    paper numbers, the points' aggregate metrics: utilization, Jain's index, the mean
    queuing delay and the loss ratio of the forward flows (RFC 8868 section 2), and each
    flow's throughput."""
    from rich.table import Table

    runs = results["runs"]
    paper = str(results.get("paper") or "")
    source = ", ".join(part for part in (references.short(paper) if paper else "", results.get("reference")) if part)
    table = Table(
        title=f"{results['id']} ({source}): "
        + (f"ours = mean ± std over {runs} runs" if runs > 1 else "ours = the value of one run")
        + (" (short)" if results.get("short") else ""),
        title_justify="left",
    )
    labels = {p["name"]: p["label"] + ("" if not p["grid"] else " " + p["name"][len(p["variant"]) :]) for p in results["points"]}
    if results["comparison"]:
        for header, justify in (("point", "left"), ("metric", "left"), ("paper", "right"), ("ours", "right"), ("min..max", "right"), ("ours/paper", "right")):
            table.add_column(header, justify=justify)  # type: ignore[arg-type]
        for row in results["comparison"]:
            ours, paper = row["ours"], row["paper"]
            ratio = f"{ours / paper:.2f}" if ours is not None and paper else "-"
            table.add_row(
                labels.get(row["point"], row["point"]),
                row["label"],
                _fmt(paper),
                _mean_std(row, runs, "ours"),
                "-" if ours is None or runs == 1 else f"{_fmt(row['min'])}..{_fmt(row['max'])}",
                ratio,
            )
        return table
    for header, justify in (
        ("point", "left"),
        ("utilization", "right"),
        ("Jain", "right"),
        ("queuing ms", "right"),
        ("loss %", "right"),
        ("throughput Mbit/s per flow", "left"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for p in results["points"]:
        util = reproduce.metric_stats(p, "aggregate.utilization")
        jain = reproduce.metric_stats(p, "aggregate.jain_index")
        queue = reproduce.metric_stats(p, "aggregate.queuing_delay_ms")
        loss = reproduce.metric_stats(p, "aggregate.loss_ratio")
        flows = ", ".join(
            f"{f['name']} {_fmt(f.get('throughput_mbps'))}" for f in p["summary"].get("flows", [])
        )
        table.add_row(
            labels[p["name"]],
            _mean_std(util, runs),
            _mean_std(jain, runs),
            "-" if queue is None else _fmt(queue["mean"], 1),
            "-" if loss is None else _fmt(loss["mean"] * 100, 2),
            flows,
        )
    return table


_STATUS_STYLE = {"holds": "green", "fails": "bold red", "not evaluated": "yellow"}


def print_results(results: dict[str, Any], report: Optional[Path], note: Optional[str], out: Path, stdout: TextIO) -> None:
    from rich.markup import escape

    console = _console(stdout)
    console.print(comparison_table(results))
    for p in results["points"]:
        if p.get("derived"):
            parts = ", ".join(
                f"{name} {_mean_std(d, int(results['runs']))}" for name, d in p["derived"].items()
            )
            console.print(f"  derived, {escape(p['name'])}: {escape(parts)}", highlight=False)
    for claim in results["claims"]:
        style = _STATUS_STYLE[claim["status"]]
        values = ", ".join(f"{k} = {_fmt(v)}" for k, v in claim["values"].items())
        console.print(
            f"[{style}]{claim['status'].upper():>13}[/{style}]  {escape(claim['text'])}  [dim]({escape(values)})[/dim]",
            highlight=False,
            soft_wrap=True,
        )
        if claim.get("value_off"):
            against = ", ".join(
                f"{r['ref']}: paper {_fmt(r['paper'])}, ours {_fmt(r['ours'])} ({claims_mod.percent(r['relative_difference'])})"
                for r in claim.get("paper_values") or [] if r.get("relative_difference") is not None
            )
            console.print(
                f"[yellow]{'':>13}  {escape(claims_mod.status_text(claim))}[/yellow]  [dim]({escape(against)})[/dim]",
                highlight=False,
                soft_wrap=True,
            )
    console.print(f"results: {out / RESULTS_FILE} ({results['elapsed_s']:.1f} s)", highlight=False, soft_wrap=True)
    if report is not None:
        console.print(f"report: {report}", highlight=False, soft_wrap=True)
    elif note:
        console.print(f"report: not built: {note}", highlight=False, soft_wrap=True)


def _with_progress(
    label: str,
    total: int,
    body: Callable[[Optional[reproduce.Progress]], Any],
    stream: TextIO,
    overall: Optional[Overall] = None,
) -> Any:
    """Runs ``body(progress)`` with a transient progress bar on ``stream`` when it is a
    terminal: the experiment's runs, and with ``overall`` (several experiments) a first
    row for the runs of all of them with elapsed time and ETA. Not a terminal: no bar."""
    if overall is None:
        with progress_bar(stream, label, total) as update:
            return body(update)
    if not stream.isatty():
        return body(overall.update)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    index, n = overall.position + 1, len(overall.experiments)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[clock]}"),
        console=Console(file=stream),
        transient=True,
    ) as bar:
        clock = _clocks(overall.elapsed(), overall.eta())
        whole = bar.add_task(f"all ({index}/{n})", total=overall.total, completed=overall.done, clock=clock)
        task = bar.add_task(label, total=total, clock=_clocks(0.0, None))

        def progress(done: int, runs: int) -> None:
            overall.update(done, runs)
            bar.update(whole, completed=overall.done, clock=_clocks(overall.elapsed(), overall.eta()))
            bar.update(task, completed=done, total=runs, clock=_clocks(overall.current_elapsed(), overall.current_eta()))

        return body(progress)


def _clocks(elapsed: float, eta: Optional[float]) -> str:
    return f"{clock_text(elapsed)} ETA {clock_text(eta)}"


def main(
    ids: Sequence[str],
    *,
    all_: bool = False,
    runs: Optional[int] = None,
    out: Optional[str] = None,
    seed: Optional[int] = None,
    short: bool = False,
    jobs: Optional[int] = None,
    no_report: bool = False,
    check: bool = False,
    catalogue_dir: Optional[str] = None,
    force: bool = False,
    resume: bool = False,
    command: Optional[Sequence[str]] = None,
    stdout: Optional[TextIO] = None,
    stderr: Optional[TextIO] = None,
) -> ExitStatus:
    """Checks every requested entry and its output folder first (a non-empty one needs
    ``force``, which empties it, or ``resume``, which keeps a complete entry and the
    results of one cut short before its report), then runs them one after the other.
    Returns the exit status: 0, or 1 with ``check`` when a claim fails. Ctrl-C: a
    KeyboardInterrupt whose message names what finished and the command that completes
    the rest."""
    stdout = stdout if stdout is not None else sys.stdout
    stderr = stderr if stderr is not None else sys.stderr
    root = catalogue.find_root(catalogue_dir)
    if all_ and ids:
        raise CatalogueError("give experiment ids or --all, not both")
    if not all_ and not ids:
        raise CatalogueError("give at least one experiment id, or --all (see 'flowstate list')")
    experiments = catalogue.load_all(root) if all_ else [catalogue.load_id(root, i) for i in dict.fromkeys(ids)]
    if not experiments:
        raise CatalogueError(f"{root}: the catalogue is empty")
    several = len(experiments) > 1
    out_root = Path(out) if out is not None else Path("out")
    folders = {exp.id: out_root / exp.id if (all_ or several or out is None) else out_root for exp in experiments}
    seeds = {exp.id: reproduce.entry_seeds(exp, runs, seed, short) for exp in experiments}
    # Every folder is checked before any is emptied or anything runs.
    kept: dict[str, reproduce_folders.Saved] = {}
    for exp in experiments:
        check_claim(folders[exp.id], force=force, resume=resume, resumable=True)
        if resume and not is_empty(folders[exp.id]):
            found = reproduce_folders.saved(folders[exp.id], seeds[exp.id], short)
            if found is not None:
                kept[exp.id] = found
            else:  # it will be emptied: only if flowstate wrote it
                check_claim(folders[exp.id], force=True)
    for exp in experiments:
        if exp.id not in kept and claim(folders[exp.id], force=force, resume=resume, resumable=True) is Claim.RESUMED:
            clear(folders[exp.id])  # cut short before its results: it runs again
    to_run = [exp for exp in experiments if exp.id not in kept]
    index: list[dict[str, Any]] = []
    started = time.perf_counter()
    failed = False
    finished: list[str] = []
    # Several experiments: an overall row on the bar; one line per finished experiment.
    overall = Overall(plan(to_run, runs, short)) if len(to_run) > 1 else None
    # One pool for every entry, and every entry's runs queued on it from the start, entry
    # after entry (each entry's longest first): the pool simulates while the main thread
    # collects and writes an entry's results (Python, one core), and never waits for it.
    # With only the next entry queued, the pool ran dry behind a long entry's writing or
    # its last long run (3-4 % of the whole catalogue's wall time at 10 runs, ~10 % at 3;
    # docs/investigations/2026-11-scaling-passes.md, "where the instructions go"). The pool finishes runs in entry order and the main thread collects faster
    # than the pool simulates, so the results waiting to be collected stay few.
    workers = max(1, jobs or os.cpu_count() or 1)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="flowstate-reproduce") as pool:
        # Entries that simulate the same scenarios (but for their names) share the runs.
        shared = reproduce.SharedRuns.counting(pool, to_run, runs=runs, seed=seed, short=short)
        ahead: list[reproduce.PendingRuns] = []
        try:
            for exp in to_run:
                ahead.append(reproduce.start(exp, pool, runs=runs, seed=seed, short=short, shared=shared))
            for exp in experiments:
                folder = folders[exp.id]
                if exp.id in kept and kept[exp.id].complete:
                    results = kept[exp.id].results
                    report = folder / REPORT_FILE if (folder / REPORT_FILE).is_file() else None
                    print(f"flowstate: {exp.id}: already complete in {folder} (--force reruns it)", file=stderr, flush=True)
                    print_results(results, report, "--no-report" if report is None else None, folder, stdout)
                else:
                    scenarios = reproduce.entry_scenarios(exp, short)
                    with manifest.recording(
                        folder,
                        kind="reproduce",
                        command=command,
                        seeds=seeds[exp.id],
                        scenario=scenarios,
                        coupling=manifest.coupling_of_points(scenarios),
                    ):
                        if exp.id in kept:  # cut short after its results: the report is left
                            results = kept[exp.id].results
                            remove_report_files(folder)
                        else:
                            position = to_run.index(exp)
                            results = _collect(exp, folder, ahead.pop(0), overall, position, runs, seed, short, stderr)
                        report, note = (None, "--no-report") if no_report else reproduce.build_report(folder)
                    print_results(results, report, None if no_report else note, folder, stdout)
                    if overall is not None and exp.id not in kept:
                        print(file=stdout)
                        stdout.flush()
                        print(f"flowstate: {overall.finish()}", file=stderr, flush=True)
                finished.append(exp.id)
                failed = failed or any(c["status"] == "fails" for c in results["claims"])
                index.append(
                    {
                        "id": exp.id,
                        "title": exp.title,
                        "out": str(folder),
                        "report": None if report is None else str(report),
                        "runs": results["runs"],
                        "elapsed_s": results["elapsed_s"],
                        "claims": [
                            {"text": c["text"], "status": c["status"], "value_off": bool(c.get("value_off"))}
                            for c in results["claims"]
                        ],
                    }
                )
        except BaseException as e:
            # Nothing queued may run after an error or Ctrl-C.
            for p in ahead:
                p.cancel()
            if isinstance(e, KeyboardInterrupt):
                unfinished = [exp.id for exp in experiments if exp.id not in finished]
                cut = folders[unfinished[0]] if unfinished else None
                command_text = reproduce_folders.resume_command(
                    ids, all_=all_, out=out, runs=runs, seed=seed, short=short, no_report=no_report,
                    catalogue_dir=catalogue_dir,
                )
                report_only = cut if cut is not None and (cut / RESULTS_FILE).is_file() else None
                raise KeyboardInterrupt(
                    reproduce_folders.interrupted_message(finished, unfinished, command_text, report_only)
                ) from None
            raise
    if all_ or several:
        path = out_root / CATALOGUE_INDEX_FILE
        document = {"short": short, "elapsed_s": round(time.perf_counter() - started, 3), "experiments": index}
        out_root.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        statuses = [c["status"] for e in index for c in e["claims"]]
        print(
            f"catalogue: {len(index)} experiments in {document['elapsed_s']:.1f} s; claims: "
            f"{statuses.count('holds')} hold, {statuses.count('fails')} fail, "
            f"{statuses.count('not evaluated')} not evaluated; index: {path}",
            file=stdout,
        )
    return ExitStatus.FAILED if (check and failed) else ExitStatus.OK


def _collect(
    exp: Experiment,
    folder: Path,
    pending: reproduce.PendingRuns,
    overall: Optional[Overall],
    position: int,
    runs: Optional[int],
    seed: Optional[int],
    short: bool,
    stderr: TextIO,
) -> dict[str, Any]:
    """Waits for ``exp``'s runs (with the progress bar; ``position``: its index among
    the entries that run), writes its points and results.json into ``folder`` and
    returns the results."""
    total = len(exp.point_names()) * reproduce.entry_runs(exp, runs, short)
    if overall is not None:
        overall.begin(position)
    return _with_progress(
        f"{exp.id}",
        total,
        lambda progress: reproduce.reproduce(
            exp, runs=runs, seed=seed, short=short, out=folder, pending=pending, progress=progress
        ),
        stderr,
        overall,
    )


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "reproduce",
        help="reproduce experiments of the catalogue: comparison table, claims, report",
        description="Run every point of the experiments ID... (or --all) for K seeds, write the points' "
        "summary.json and timeseries.csv, results.json and the report into DIR, and print the comparison "
        "with the paper and the paper's claims.",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="experiment ids (see 'flowstate list')")
    p.add_argument("--all", action="store_true", help="every experiment of the catalogue")
    p.add_argument("--runs", type=argtypes.runs, metavar="K", help="runs per point (default: the entry's runs)")
    p.add_argument(
        "--out", type=argtypes.out_dir, metavar="DIR", help="output folder (default out/<id>; with several ids DIR/<id>)"
    )
    p.add_argument("--seed", type=argtypes.seed, metavar="S", help="first seed (default 1)")
    p.add_argument("--short", action="store_true", help="the entry's short version (CI): [short] runs and set")
    p.add_argument("--jobs", type=argtypes.positive, metavar="N", help="parallel runs (default: one per core)")
    p.add_argument("--no-report", action="store_true", help="do not build report.html")
    p.add_argument("--check", action="store_true", help="exit status 1 when a claim fails")
    argtypes.add_catalogue_option(p)
    argtypes.add_force_option(p)
    argtypes.add_resume_option(p, "the complete entries (and the results of one cut short before its report)")
    return p


def run(args: argparse.Namespace) -> ExitStatus:
    return main(
        args.ids,
        all_=args.all,
        runs=args.runs,
        out=args.out,
        seed=args.seed,
        short=args.short,
        jobs=args.jobs,
        no_report=args.no_report,
        check=args.check,
        catalogue_dir=args.catalogue,
        force=args.force,
        resume=args.resume,
        command=getattr(args, "command_line", None),
    )
