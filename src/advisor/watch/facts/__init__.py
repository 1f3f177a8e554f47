"""The numbers verdicts judge: named facts (`watch.*`) computed over a series, one module per topic.

Importing this package registers every fact, topic by topic in the order below (the order of
docs/watch/_reference.md); advisor.watch.facts.base holds the registry and the series view.
"""

from advisor.watch.facts import load  # noqa: F401  (each import registers its module's facts)
from advisor.watch.facts import cpu  # noqa: F401
from advisor.watch.facts import network  # noqa: F401
from advisor.watch.facts import storage  # noqa: F401
from advisor.watch.facts import sessions  # noqa: F401
from advisor.watch.facts import compare  # noqa: F401
from advisor.watch.facts import run  # noqa: F401
from advisor.watch.facts.base import FACTS, Series, SummaryFact, compute, interval_load, loaded_intervals, median

__all__ = ["FACTS", "Series", "SummaryFact", "compute", "interval_load", "loaded_intervals", "median"]
