"""`advisor compare`: is a comparison of two or more servers fair? Every difference between their
snapshots that can change a benchmark result, grouped, judged (expected / harmless / confounding,
with the reason and the fix) and ranked.

  advisor.compare.model      the Comparison document (advisor.compare/1), pydantic
  advisor.compare.judge      compare(snapshots, sources, about, catalogue) -> Comparison   (pure)
  advisor.compare.items      version, TLS, buffer pool vs data, host, storage, network, TiDB config items
  advisor.compare.variables  server variables against each side's own defaults (the variable catalogue)
  advisor.compare.measured   calibration figures and their spread
  advisor.compare.run        reading the inputs (snapshots, dumps, live servers): the orchestration
"""
