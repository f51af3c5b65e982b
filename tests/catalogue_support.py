"""A tiny catalogue in a temporary folder, for the catalogue and reproduce tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from flowstate.catalogue import catalogue
from flowstate.catalogue.catalogue import CatalogueError

BASE = """\
name = "tiny"
duration = "5s"
[link]
capacity = "1Mbps"
delay = "20ms"
queue = "100ms"
[[flows]]
name = "gcc"
kind = "gcc"
[[flows]]
name = "bg"
kind = "cbr"
overrides = { rate = "300kbps" }
"""

EXPERIMENT = """\
id = "tiny"
paper_id = "000"
reference = "Fig. 0"
title = "a tiny experiment"
description = "GCC next to 300 kbit/s of CBR on 1 Mbit/s, 5 s"
finding = "GCC takes what is left"
runs = 3

[short]
runs = 2
set = { duration = "4s" }

[[variants]]
name = "plain"
label = "plain"
scenario = "base.toml"

[[variants]]
name = "heavy"
label = "heavy CBR"
scenario = "base.toml"
set = { "flows.bg.overrides.rate" = "600kbps" }

[[paper]]
point = "plain"
metric = "aggregate.utilization"
value = 0.9
label = "utilization"

[[paper]]
point = "heavy"
metric = "derived.gcc_mean"
value = 0.3

[[derived]]
name = "gcc_mean"
fn = "mean_rate"
args = { flow = "gcc", from = "1s" }

[[claims]]
text = "the link is used"
check = "{plain:aggregate.utilization} > 0.1"

[[claims]]
text = "impossible"
check = "{plain:aggregate.utilization} > 2"

[[claims]]
text = "GCC gets less next to heavier CBR"
check = "{heavy:derived.gcc_mean} < {plain:derived.gcc_mean} + 0.5"

[[figures]]
kind = "rate"
"""


def make_catalogue(root: Path, experiment: str = EXPERIMENT, base: str = BASE, name: str = "tiny") -> Path:
    """Writes ``root/<name>/{experiment.toml,base.toml}``; returns ``root``."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "experiment.toml").write_text(experiment, encoding="utf-8")
    (folder / "base.toml").write_text(base, encoding="utf-8")
    return root


def load_error(root: Path, experiment: str, base: str = BASE) -> str:
    """The error of loading a catalogue made of `experiment` and `base`: a CatalogueError
    of one line."""
    make_catalogue(root, experiment, base)
    with pytest.raises(CatalogueError) as e:
        catalogue.load_id(root, "tiny")
    text = str(e.value)
    assert "\n" not in text, text
    return text
