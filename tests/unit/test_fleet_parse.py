import pytest

from advisor.errors import UsageError
from advisor.fleet import parse_targets


def test_parse_targets():
    ts = parse_targets("# fleet\n db1\nbench@db2:3307  # comment\n[::1]:3310\n\n", "f")
    assert [(t.host, t.port, t.user, t.line) for t in ts] == [("db1", None, None, 2), ("db2", 3307, "bench", 3), ("::1", 3310, None, 4)]


@pytest.mark.parametrize("bad", ["db1:99999", "a b", "# only comments\n"])
def test_bad_targets(bad):
    with pytest.raises(UsageError):
        parse_targets(bad, "f")
