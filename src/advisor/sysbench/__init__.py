"""sysbench command lines as a typed model (pure).

    options.py   what sysbench accepts: options per era, tests, scripts, commands; the sbtest row size
    command.py   SysbenchCommand: a parsed command line, passwords masked
    parse.py     parse_command(text, config_text=...) -> SysbenchCommand, or UsageError (exit 2)
    local.py     LocalSysbench: what the sysbench on this machine is (read by advisor.collect.sysbench)

The checklist checks that judge a command against a server live in advisor.rules.checks.
"""

from advisor.sysbench.command import Option, SysbenchCommand, Unresolved, Value
from advisor.sysbench.local import LocalSysbench, era_of_version, parse_ldd, parse_version_output
from advisor.sysbench.options import (ALL_OPTIONS, LUA_SCRIPTS, MASK, SBTEST_K_INDEX_BYTES, SBTEST_ROW_BYTES,
                                      OptSpec, dataset_bytes, is_secret_name)
from advisor.sysbench.parse import is_shell_expression, mask_words, parse_command, quote_word

__all__ = ["ALL_OPTIONS", "LUA_SCRIPTS", "MASK", "SBTEST_K_INDEX_BYTES", "SBTEST_ROW_BYTES", "LocalSysbench", "OptSpec",
           "Option", "SysbenchCommand", "Unresolved", "Value", "dataset_bytes", "era_of_version", "is_secret_name",
           "is_shell_expression", "mask_words", "parse_command", "parse_ldd", "parse_version_output", "quote_word"]
