"""`advisor watch`: sample a server, its host and the benchmark client while a benchmark runs, and say
what limits it.

Pure modules (no I/O, no clock): procfs (parsers of /proc files), counters (deltas to rates),
sysbench_out (sysbench's report lines), model (the saved series), facts (named facts over a
series), verdicts (the verdict catalogue under rules/watch/ and its evaluation), render (text,
Markdown, JSON). I/O modules: sampler (reads /proc; also shipped over ssh), hosts (local, ssh and
stream host sources), server (status and processlist), command (runs the benchmark), session (the
sampling loop that ties them together). docs/watch.md describes the command.
"""
