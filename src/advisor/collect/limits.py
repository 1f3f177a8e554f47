"""The bounds on reading a server's answers, in one place (issue 24 §5): every statement the
collector sends is read row by row (an unbuffered cursor) and stops at

- MAX_ROWS rows: the rest of the answer is read and dropped, not kept;
- MAX_VALUE_CHARS characters per value: a longer value is kept cut to this length;
- MAX_RESULT_CHARS characters kept for one statement, over all its values;
- the read timeout (--read-timeout, 30 s by default) for the whole answer, not only for each read:
  past it the connection is closed and the collection fails (exit 5), naming the statement.

Each cut is said: the snapshot's `missing` list names the statement and the limit (a fact read in
part), and so does the report's "Not collected" section. The limits sit far above what a server
answers the advisor's statements with (SHOW GLOBAL VARIABLES: about 1,000 rows of at most a few
kilobytes; the data-dictionary reads: one row per table or unique index).
"""

from __future__ import annotations

MAX_ROWS = 100_000
MAX_VALUE_CHARS = 65_536
MAX_RESULT_CHARS = 64 * 1024 * 1024
