"""Run one fuzz input through the real CLI entry point (advisor.cli.main, in this process) and judge
the result: never exit 70, never hang, never a traceback; on exit 2 and above standard error begins
(after warning and prompt lines) with the one `advisor: error:` paragraph, which ends with a Tip and
stays under 2,000 characters.

A hang is detected with an interval timer (SIGALRM) that raises `Hang`, a BaseException the CLI's
catch-all cannot turn into an ordinary exit; the limit is a wall-clock ceiling for "stuck", far
above what any input takes, not a speed assertion.
"""

from __future__ import annotations

import signal
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Optional

from tests.support.cli import invoke

HANG_SECONDS = 60.0
MAX_MESSAGE = 2000


class Hang(BaseException):
    """An input ran past HANG_SECONDS."""


@dataclass
class Verdict:
    surface: str
    index: int
    code: Optional[int]  # None: hung
    problem: str = ""  # empty when the run met every property
    args: tuple[str, ...] = ()
    stderr: str = ""


@dataclass
class Tally:
    """Inputs and exit codes per surface, and every input that broke a property."""

    runs: Counter = field(default_factory=Counter)
    codes: dict[str, Counter] = field(default_factory=dict)
    failures: list[Verdict] = field(default_factory=list)

    def add(self, v: Verdict) -> None:
        self.runs[v.surface] += 1
        self.codes.setdefault(v.surface, Counter())["hang" if v.code is None else v.code] += 1
        if v.problem:
            self.failures.append(v)

    def summary(self) -> str:
        lines = []
        for s in sorted(self.runs):
            codes = ", ".join(f"{c}: {n}" for c, n in sorted(self.codes[s].items(), key=lambda kv: str(kv[0])))
            lines.append(f"{s:14} {self.runs[s]:6} inputs  exit codes {{{codes}}}")
        lines.append(f"{'total':14} {sum(self.runs.values()):6} inputs  {len(self.failures)} broke a property")
        return "\n".join(lines)


# lines README allows before the error paragraph: warnings, and the password prompt (getpass writes it
# to standard error when there is no terminal)
ALLOWED_BEFORE = ("advisor: warning: ", "Enter password for ")


def stderr_shape(code: int, stderr: str) -> str:
    """What is wrong with the shape of standard error for this exit status, or '' (README, "Output and
    exit codes"): exit 2 and above (but 130) begins, after warning and prompt lines, with one
    `advisor: error:` paragraph that ends with a Tip and stays under MAX_MESSAGE characters; exit 0
    and 1 carry warnings only."""
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    rest = [ln for ln in lines if not ln.startswith(ALLOWED_BEFORE)]
    if code in (0, 1):
        if any(ln.startswith("advisor: error:") for ln in rest):
            return f"exit {code} with an 'advisor: error:' paragraph"
        return ""
    if code == 130:
        return ""
    if not rest:
        return f"exit {code} with nothing on stderr but warnings"
    if not rest[0].startswith("advisor: error: "):
        return f"exit {code}: stderr does not begin with an 'advisor: error:' paragraph"
    if len(rest) > 1:
        return f"exit {code}: more than the one error paragraph on stderr"
    if len(rest[0]) > MAX_MESSAGE:
        return f"error message of {len(rest[0])} characters"
    if "Tip:" not in rest[0]:
        return "error without a Tip"
    return ""


def judge(code: int, stderr: str) -> str:
    """What is wrong with this result, or ''."""
    if code == 70:
        return "internal error (exit 70)"
    if "Traceback" in stderr:
        return "traceback on stderr"
    return stderr_shape(code, stderr)


def run_one(surface: str, index: int, args: tuple[str, ...], env: Optional[dict[str, str]] = None,
            hang_seconds: float = HANG_SECONDS) -> Verdict:
    def alarm(signum: int, frame: object) -> None:
        raise Hang()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, hang_seconds)
    try:
        p = invoke(*args, env=env)
    except Hang:
        return Verdict(surface, index, None, f"hung for {hang_seconds:.0f} s", args)
    except Exception as e:  # only with ADVISOR_DEBUG=1 (bench/fuzz.py --locate): where it broke
        return Verdict(surface, index, 70, f"internal error at {_site(e)}: {type(e).__name__}", args, str(e)[:300])
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    return Verdict(surface, index, p.returncode, judge(p.returncode, p.stderr), args, p.stderr[:3000])


def _site(e: BaseException) -> str:
    """The innermost advisor frame of a traceback: file:line (function)."""
    import traceback

    frames = [f for f in traceback.extract_tb(e.__traceback__) if "/advisor/" in f.filename]
    if not frames:
        return "?"
    f = frames[-1]
    return f"{f.filename.split('/advisor/')[-1]}:{f.lineno} ({f.name})"


def run_surface(surface: str, make: Callable[[int], tuple[tuple[str, ...], Optional[dict[str, str]]]],
                start: int, count: int, tally: Tally) -> None:
    for i in range(start, start + count):
        args, env = make(i)
        tally.add(run_one(surface, i, args, env))


def report(tally: Tally, limit: int = 10) -> str:
    out = [tally.summary()]
    sites = Counter((v.surface, v.problem) for v in tally.failures)
    for (surface, problem), n in sites.most_common():
        out.append(f"  {n:5}  {surface}: {problem}")
    for v in tally.failures[:limit]:
        shown = " ".join(a if len(a) < 120 else a[:117] + "..." for a in v.args)
        out.append(f"- {v.surface}#{v.index}: {v.problem}: advisor {shown}\n  {v.stderr[:600]}")
    return "\n".join(out)
