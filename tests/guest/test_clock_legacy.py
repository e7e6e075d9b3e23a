"""Clocks on legacy-free platforms: QEMU's q35 without a PIT (pit=off),
without an HPET (hpet=off) or without both, and a machine with no clock
reference at all. The clock calibrates from what exists, names it, assumes
no figure while a reference works, and never samples a PIT that does not
count; with nothing, every time is marked as a guess."""
import os
import re
import sys

from guest import ROOT, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import hostclock  # noqa: E402
from test_clock import final_clock  # noqa: E402  (the clock in force, as test_clock reads it)

# arch/x86_64/tsc.c: the probe's read limit. An absent PIT must be found by
# its rule (a counter unchanged over 50,000 TSC cycles), long before it.
PROBE_MAX_READS = 4096


def _legacy_free(opts, first_method, references, boot_path="pvh"):
    host_hz = hostclock.host_tsc_hz()
    assert host_hz, "cannot read the host's TSC (not x86-64, or no executable mappings)"
    b = boot(nodes=1, cpus_per_node=2, boot_path=boot_path, qemu_args=("-machine", opts))
    b.expect_ok()
    tsc, rec = b.one("tsc"), b.one("boot")
    no_pit = "pit=off" in opts
    # Never an assumed figure: not the first one, not the one any check
    # was compared with, not the one in force.
    assert tsc["method"] == first_method, tsc
    assert (rec["tsc_hz"], rec["tsc_method"]) == (tsc["hz"], tsc["method"]), (rec, tsc)
    # A measured claim, however wide the host made it (a vCPU descheduled
    # inside the HPET's 1 ms window gave 32,572 ppm once): it must cover
    # the first figure's real error, which is what a claim is for.
    assert 0 < tsc["uncertainty_ppm"] < 2**32 - 1, tsc
    first_err_ppm = abs(tsc["hz"] - host_hz) / host_hz * 1e6
    assert first_err_ppm <= tsc["uncertainty_ppm"] + 1000, (first_err_ppm, tsc)
    for c in b.all("clock_check"):
        assert c["tsc_method"] != "assumed", c
    assert "assuming" not in b.console and "no clock reference" not in b.console, b.tail()
    assert not any(r.get("clock_assumed") for r in b.records), b.tail()
    assert tsc["pit_present"] == (not no_pit), tsc
    missing = tsc["missing"].split(",") if tsc["missing"] else []
    assert ("pit" in missing) == no_pit, tsc
    if no_pit:
        # Found by the probe, in a few reads: not sampled at all (the old
        # sampler read an absent PIT 131,073 times before giving up).
        assert 1 <= tsc["pit_probe_reads"] < PROBE_MAX_READS, tsc
        assert tsc["pit_reads"] == 0 and tsc["pit_samples"] == 0, tsc
        assert tsc["phase"] == "acpi", tsc
        assert ("hpet" in missing) == ("hpet=off" in opts), tsc
    else:
        assert tsc["phase"] == "early" and tsc["pit_reads"] > 0, tsc
    # The references the machine has, each measured and named; none that
    # it lacks.
    assert sorted({c["reference"] for c in b.all("clock_check")}) == references, \
        b.all("clock_check")
    hz, method = final_clock(b)
    assert method in references + ["pit"], method
    # The clock in force at the end: within 2 % of the host's.
    assert abs(hz - host_hz) / host_hz < 0.02, (hz, method, host_hz)
    return b


def test_clock_without_pit():
    _legacy_free("pit=off", "hpet", ["hpet", "pm_timer"])


def test_clock_without_hpet():
    _legacy_free("hpet=off", "pit", ["pm_timer"])


def test_clock_without_pit_and_hpet():
    """Through GRUB under SeaBIOS, which runs without them too."""
    _legacy_free("pit=off,hpet=off", "pm_timer", ["pm_timer"], boot_path=None)


STAMP = re.compile(r"^\[ *\d+\.\d{6}(\??)\] ", re.M)


def test_clock_with_no_reference_is_marked_unreliable():
    """QEMU's pc machine without ACPI tables and without a PIT: no HPET or
    PM timer is named anywhere, TCG's CPUID gives no frequency. A figure
    is assumed for the timeouts, a warning names what is missing, and every
    time is marked: each line's stamp ends in '?', each record carries
    clock_assumed."""
    b = boot(nodes=1, cpus_per_node=2, boot_path="pvh", machine="pc",
             qemu_args=("-machine", "acpi=off,pit=off"))
    b.expect_ok()
    tsc = b.one("tsc")
    assert tsc["cpuid_hz"] == 0, f"this CPU model gives a CPUID frequency: {tsc}"
    assert tsc["method"] == "assumed" and tsc["uncertainty_ppm"] == 2**32 - 1, tsc
    assert tsc["missing"] == "cpuid,pit,hpet,pm_timer", tsc
    assert not tsc["pit_present"] and tsc["pit_reads"] == 0, tsc
    assert tsc["pit_probe_reads"] < PROBE_MAX_READS, tsc
    assert "tsc: no clock reference (missing: cpuid,pit,hpet,pm_timer)" in b.console, b.tail()
    assert b.all("clock_check") == [], b.all("clock_check")
    assert all(r.get("clock_assumed") is True for r in b.records), \
        [r for r in b.records if not r.get("clock_assumed")][:3]
    stamps = STAMP.findall(b.console)
    assert len(stamps) > 20 and all(mark == "?" for mark in stamps), stamps[:5]


# Timing checks against the host's clock: alone, not beside another QEMU.
for _t in (test_clock_without_pit, test_clock_without_hpet, test_clock_without_pit_and_hpet):
    _t.serial = True
