"""Pure helpers of the watch session: masking the command line, placing sysbench's report lines."""

from advisor.watch.model import CommandInfo, Interval, SysbenchReport, WatchRun, WatchSetup
from advisor.watch.session import Session, mask_command


def test_passwords_in_the_command_are_masked():
    shown, sb = mask_command(["sysbench", "oltp_read_only", "--mysql-password=s3cret", "--threads=4", "run"])
    assert "s3cret" not in shown and "--mysql-password=***" in shown and sb["test"] == "oltp_read_only"
    shown, sb = mask_command(["mysqlslap", "-uroot", "-ps3cret", "--password=s3cret", "--concurrency=8"])
    assert "s3cret" not in shown and "-p***" in shown and sb is None


def test_report_lines_go_to_the_interval_they_describe():
    run = WatchRun(advisor_version="x", started_at="t", setup=WatchSetup(
        interval_s=1.0, command=CommandInfo(display="sysbench", sysbench={"options": {"report-interval": 1}})))
    iv = lambda i: Interval(index=i, start_s=i, end_s=i + 1, at="t", seconds=1.0)  # noqa: E731
    run.intervals = [iv(0), iv(1)]
    cur = iv(2)
    late = SysbenchReport(t_s=2.0, received_s=2.02, threads=4, tps=100.0)   # second 1-2, arrived after the sample
    mine = SysbenchReport(t_s=2.9, received_s=2.97, threads=4, tps=200.0)
    Session._place_reports(None, run, cur, [late, mine])  # type: ignore[arg-type]
    assert run.intervals[1].sysbench == [late] and cur.sysbench == [mine]


def test_the_audits_statements_are_taken_out_of_the_rates():
    from advisor.watch.counters import server_interval
    from advisor.watch.server import counted

    assert counted("SELECT @@version") == ("Questions", "Queries", "Com_select")
    assert counted("SHOW GLOBAL STATUS") == ("Questions", "Queries", "Com_show_status")
    assert counted("show session status like 'Ssl%'")[-1] == "Com_show_status"
    assert counted("SHOW GLOBAL VARIABLES") == ("Questions", "Queries")
    prev = {"Questions": 100, "Queries": 100, "Com_select": 10, "Uptime": 5}
    cur = {"Questions": 132, "Queries": 132, "Com_select": 21, "Uptime": 6}  # the sampling's 2 and the audit's 30
    iv = Interval(index=0, start_s=0, end_s=1, at="t", seconds=1.0, server=server_interval(prev, cur, 1.0))
    Session._less_audit(iv, {"Questions": 4, "Queries": 4, "Com_select": 1},
                        {"Questions": 34, "Queries": 34, "Com_select": 11}, 1.0)
    assert iv.server.rates["Questions"] == 0 and iv.server.rates["Queries"] == 0
    assert "Com_select" not in iv.server.rates  # none of the workload's
