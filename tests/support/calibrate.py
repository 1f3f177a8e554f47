"""Run chosen calibration probes in this process with a budget of their own.

`advisor calibrate --calibrate-seconds N` counts N from the command's start, so on a busy machine
the interpreter's start-up and the collection can eat a small budget before the first probe, and
the probe then (rightly) reports that it ran out of budget. A test that needs a probe's measurement
uses `calibrate_only`: the same collection and probes (advisor.api.collect, attach_calibration),
with the budget counted from the calibration's start; it returns what `advisor calibrate --format
json` prints. Tests of the command itself (budget from the start, signals, exit codes) run the CLI.
"""

from __future__ import annotations

import json
from typing import Any

from advisor import api
from advisor.collect.connection import ConnectionOptions, resolve
from advisor.render.calibration import render_json
from advisor.snapshot import Snapshot


def calibrate_only(host: str, port: int, *probes: str, budget: float = 3.0, write_probe: bool = False,
                   user: str = "root", **options: Any) -> tuple[dict[str, Any], Snapshot]:
    """(the calibration JSON, the snapshot) of `probes` against host:port, within `budget` seconds
    counted from the first probe. `options` go to ConnectionOptions (password, ssl_mode, ...)."""
    opts = ConnectionOptions(host=host, port=port, user=user, no_defaults=True, **options)
    ep = resolve(opts)
    snap = api.collect(opts, endpoint=ep)
    api.attach_calibration(snap, ep, "full", budget_s=budget, write_probe=write_probe, probes=list(probes) or None)
    return json.loads(render_json(snap)), snap
