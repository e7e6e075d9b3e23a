"""Linux's console switches: `quiet` and `loglevel=N` decide which lines
reach the consoles, `memboot.records=off` leaves the records off; the
summary and `done` are printed whatever they say. Lines made before the
command line was read (the first phases) have gone out already; these tests
look at what comes after."""
import re

from guest import boot

PHASE_LINE = re.compile(r"^\[ *\d+\.\d+\] phase acpi: ", re.M)
WARN_LINE = re.compile(r"^\[ *\d+\.\d+\] cmdline: .*memboot\.no_such_key", re.M)
SUMMARY_LINE = re.compile(r"^\[ *\d+\.\d+\] summary: phases total ", re.M)
DONE_LINE = re.compile(r"^\[ *\d+\.\d+\] memboot: boot done, status 0", re.M)


def _lines(b):
    return (bool(PHASE_LINE.search(b.console)), bool(WARN_LINE.search(b.console)),
            bool(SUMMARY_LINE.search(b.console)), bool(DONE_LINE.search(b.console)))


def test_default_shows_info_and_warnings():
    b = boot(boot_path="pvh", append="memboot.no_such_key=1")
    b.expect_status(0)
    assert _lines(b) == (True, True, True, True), b.tail()


def test_quiet_hides_info_and_warnings_not_the_summary():
    b = boot(boot_path="pvh", append="quiet memboot.no_such_key=1")
    done = b.expect_status(0)
    assert _lines(b) == (False, False, True, True), b.tail()
    # Records still reach the serial console, the warning's among them.
    assert [p["name"] for p in b.all("phase")][-1] == "selftest"
    # The unknown key's warning among them; a busy host may add a clock
    # warning of its own, so the count is checked against the records.
    warnings = b.all("warning")
    assert done["warnings"] == len(warnings) >= 1, (done, warnings)
    assert any("memboot.no_such_key" in w["msg"] for w in warnings), warnings


def test_loglevel_5_shows_warnings_hides_info():
    b = boot(boot_path="pvh", append="loglevel=5 memboot.no_such_key=1")
    b.expect_status(0)
    assert _lines(b) == (False, True, True, True), b.tail()


def test_loglevel_given_wins_over_quiet():
    b = boot(boot_path="pvh", append="loglevel=7 quiet memboot.no_such_key=1")
    b.expect_status(0)
    assert _lines(b) == (True, True, True, True), b.tail()


def test_records_off_keeps_summary_and_done_records():
    b = boot(boot_path="pvh", append="memboot.records=off")
    # Nothing went out before the command line was read: the log ring holds
    # every line until the clock's precise figure (docs/measuring.md), long
    # after memboot.records=off applies. The summary and done always go.
    names = [(r["event"], r.get("name")) for r in b.records]
    assert {e for e, _ in names} == {"summary", "done"}, names
    b.expect_status(0)
    assert _lines(b)[0] and _lines(b)[2:] == (True, True), b.tail()
