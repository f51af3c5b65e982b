"""``json.dumps(document, indent=2)`` at C speed: the front end's summary.json and
results.json files.

CPython encodes with its C encoder only without ``indent``; with it, every value goes
through the pure-Python encoder, which was a tenth of ``flowstate reproduce --all``'s
CPU (docs/investigations/2026-11-scaling-passes.md, "the front end's Python off the critical path"). The simulator's encoder
(``_native.json_dumps_indent2``, crates/flowstate-py/src/file_text.rs) writes the
same text byte for byte; a document it cannot write the same way (a key that is not a
str, a type json.dumps would not take) goes to ``json.dumps``, which also raises its
own errors for them.
"""

from __future__ import annotations

import json
from typing import Any

from flowstate import _native


def dumps_indent2(document: Any, *, allow_nan: bool = True) -> str:
    """``json.dumps(document, indent=2, allow_nan=allow_nan)``."""
    try:
        return str(_native.json_dumps_indent2(document, allow_nan=allow_nan))
    except TypeError:
        return json.dumps(document, indent=2, allow_nan=allow_nan)
