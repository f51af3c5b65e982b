"""The names of the files and folders flowstate writes, defined once: the commands write
them, `flowstate report` / `compare` read them back (docs/CATALOGUE.md, docs/SWEEPS.md,
docs/BROWSER.md describe their contents)."""

from __future__ import annotations

# Every output folder: what produced it (flowstate.manifest; docs/SCENARIOS.md, "Outputs").
MANIFEST_FILE = "manifest.json"

# `flowstate run` (one run or --runs K), testbed, browser; also each point of a reproduction.
SUMMARY_FILE = "summary.json"
TIMESERIES_FILE = "timeseries.csv"
LINKS_TIMESERIES_FILE = "links.csv"  # the per-link time series (a simulated run)

# A reproduction (`flowstate reproduce`), or any output folder after `flowstate report`.
RESULTS_FILE = "results.json"
REPORT_FILE = "report.html"
FIGURES_DIR = "figures"
INDEX_FILE = "index.html"  # a folder of reproductions: one line per reproduction
CATALOGUE_INDEX_FILE = "catalogue.json"  # `flowstate reproduce` of several ids: their claims

# `flowstate sweep`.
SWEEP_SPEC_FILE = "sweep.json"
SWEEP_POINTS_DIR = "points"  # one JSON file per finished task
SWEEP_RESULTS_FILE = "results.csv"
SWEEP_SUMMARY_FILE = "summary.csv"
SWEEP_PLOTS_DIR = "plots"

# `flowstate testbed`.
TESTBED_FILE = "testbed.json"
SENDER_PCAP = "sender.pcap"
RECEIVER_PCAP = "receiver.pcap"

# `flowstate browser`.
BROWSER_FILE = "browser.json"
GETSTATS_FILE = "getstats.json"
TCP_LOG_FILE = "tcp.json"
FRAMES_FILE = "frames.csv"  # the receiver page's render callbacks, one row per frame


def rtc_event_log(role: str, k: int = 1) -> str:
    """The ``role`` browser's ("sender", "receiver") RTC event log of its peer
    connection ``k`` (from 1; a call has one) (`flowstate browser --rtc-event-log`)."""
    return f"rtc-event-log-{role}.log" if k == 1 else f"rtc-event-log-{role}-{k}.log"


def run_dir(k: int) -> str:
    """The folder of run ``k`` (from 1) of a batch that keeps each run's files
    (`flowstate browser --runs K`)."""
    return f"run-{k}"


def bottleneck_pcap(direction: str) -> str:
    """The capture at the IP-level bottleneck, ``direction`` "forward" or "reverse"."""
    return f"bottleneck-{direction}.pcap"


def bottleneck_records(direction: str) -> str:
    """The per-packet records at the IP-level bottleneck, ``direction`` "forward" or "reverse"."""
    return f"bottleneck-{direction}.csv"
