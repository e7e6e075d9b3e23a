"""The kernel's TSC clock against the host's: a busy-wait of a fixed length,
timed by the kernel (record `clock`) and by the host (arrival times of the
two records, from tools/memboot --host-times)."""
import os
import subprocess
import sys

from guest import ROOT, boot

sys.path.insert(0, os.path.join(ROOT, "tools"))
from mbtools import hostclock  # noqa: E402


def test_tsc_interval_matches_host_clock():
    ms = 3000
    b = boot(append=f"memboot.selftest=clock memboot.clock_ms={ms}", host_times=True)
    b.expect_ok()
    clock = b.one("clock")
    assert clock["requested_ns"] == ms * 1_000_000
    kernel_s = clock["ns"] / 1e9
    host_s = b.arrival("clock") - b.arrival("clock_start")
    assert kernel_s >= ms / 1000, clock
    # The host stamps each line on arrival; both lines pass the same serial
    # path, so the intervals agree to well under 2 % when the TSC is right.
    assert abs(kernel_s - host_s) / host_s < 0.02, (kernel_s, host_s)
    assert b.one("selftest") == {"event": "selftest", "name": "clock", "ok": True}


test_tsc_interval_matches_host_clock.serial = True


def final_clock(b):
    """The TSC rate in force after the ACPI phase: the early figure, or the
    reference that replaced it (clock_check.adopted), and its method."""
    tsc = b.one("tsc")
    hz, method = tsc["hz"], tsc["method"]
    for c in b.all("clock_check"):
        if c["adopted"]:
            hz, method = c["hz"], c["reference"]
    return hz, method


def _busy_loops(n):
    """@n shell loops that spin until killed: a host whose cores are taken."""
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(n)]


def test_tsc_calibration_under_host_load():
    """Three busy loops compete for the host's cores while the guest
    calibrates; boot.tsc_hz must still be within 2 % of the host's TSC rate
    (measured here against CLOCK_MONOTONIC_RAW; under TCG the guest's TSC
    is the host's), the uncertainty it claims must cover the error, and the
    PM timer and the HPET must agree."""
    host_hz = hostclock.host_tsc_hz()
    assert host_hz, "cannot read the host's TSC (not x86-64, or no executable mappings)"
    loops = _busy_loops(3)
    try:
        boots = [boot(nodes=1, cpus_per_node=2, boot_path="pvh") for _ in range(3)]
    finally:
        for p in loops:
            p.kill()
            p.wait()
    for b in boots:
        b.expect_ok()
        rec = b.one("boot")
        tsc = b.one("tsc")
        err = abs(rec["tsc_hz"] - host_hz) / host_hz
        assert err < 0.02, (rec["tsc_hz"], host_hz, tsc)
        assert rec["tsc_method"] in ("pit", "cpuid15", "cpuid16", "hypervisor"), rec
        # Under load the PIT figure may be poor and give way to the HPET's.
        final_hz, _ = final_clock(b)
        assert abs(final_hz - host_hz) / host_hz < 0.02, (final_hz, host_hz)
        assert 0 < rec["tsc_uncertainty_ppm"] < 20000, rec
        assert err * 1e6 <= rec["tsc_uncertainty_ppm"] + 1000, (err, rec)
        assert tsc["ns"] < 50_000_000, tsc
        # q35 has both a PM timer and an HPET: two independent references.
        checks = {c["reference"]: c for c in b.all("clock_check")}
        assert sorted(checks) == ["hpet", "pm_timer"], checks
        for check in checks.values():
            assert check["agree"], check
            assert abs(check["hz"] - host_hz) / host_hz < 0.02, (check, host_hz)


test_tsc_calibration_under_host_load.serial = True


def test_clock_holds_with_192_vcpus():
    """Issue 21: with 192 vCPU threads a PIT read costs about a millisecond
    under TCG, and a 3 ms window gave no figure ("assuming 1 GHz"). The
    window stretches, the HPET (a memory read, fast) takes over when the PIT
    figure is poor, the clock in force is within 2 % of the host's TSC,
    nothing is assumed, no cross-check of unknown uncertainty agrees, and
    every CPU comes up inside the (real-time) SMP timeout."""
    host_hz = hostclock.host_tsc_hz()
    assert host_hz, "cannot read the host's TSC"
    ms = 2000
    b = boot(nodes=2, cpus_per_node=96, mem_per_node="512M", boot_path="pvh", timeout=300,
             append=f"memboot.selftest=clock memboot.clock_ms={ms}", host_times=True)
    b.expect_ok()
    # The clock in force, in real time: a busy-wait timed by the kernel
    # and by the host's arrival times of its two lines.
    kernel_s = b.one("clock")["ns"] / 1e9
    host_s = b.arrival("clock") - b.arrival("clock_start")
    assert abs(kernel_s - host_s) / host_s < 0.02, (kernel_s, host_s)
    assert "assuming 1 GHz" not in b.console, b.tail()
    hz, method = final_clock(b)
    assert method in ("pit", "hpet", "pm_timer"), method
    assert abs(hz - host_hz) / host_hz < 0.02, (hz, method, host_hz)
    # The line of the clock in force names its reference.
    if method == "pit":
        assert "tsc: Detected" in b.console and "(pit," in b.console
    else:
        assert (f"using the {method} figure from here on" in b.console or
                f"Refined TSC calibration against the {method}" in b.console), b.tail()
    for c in b.all("clock_check"):
        if c["agree"]:
            assert c["allowed_ppm"] < 2**32 - 1, c
    smp = b.one("smp")
    assert smp["cpus"] == 192 and smp["failed"] == 0, smp


test_clock_holds_with_192_vcpus.serial = True


def _check_times_use_the_final_figure(b):
    """What holds whichever figure became final: memory init comes before
    the precise clock, a node's ns is its end less its start (both
    converted at one rate: at the quick estimate's it would be off by the
    two figures' ratio), and the phase records (made as each phase ended,
    most before the refinement) give the very nanoseconds of the closing
    summary (converted at the end)."""
    names = [p["name"] for p in b.all("phase")]
    assert names.index("meminit") < names.index("clockcheck") < names.index("tscsync"), names
    for init in b.all("node_init"):
        assert abs(init["end_ns"] - init["start_ns"] - init["ns"]) <= 2, init
    summ = b.one("summary")
    summary = {p["name"]: p["ns"] for p in summ["phases"]}
    # Those the record had no room for are counted (docs/records.md).
    assert len(summary) + summ.get("phases_omitted", 0) == len(b.all("phase")), summ
    for p in b.all("phase"):
        if p["name"] in summary:
            assert summary[p["name"]] == p["ns"], (p, summary[p["name"]])


def test_times_printed_before_the_refined_clock_use_it():
    """The boot runs on a quick estimate until an AP's HPET measurement
    gives the precise figure (phase clockcheck, after memory init); every
    line and record made before is held in the log ring and rendered with
    the precise figure. Whether a reference beats the quick estimate is the
    host's to decide (a tight PIT window wins on some hosts), so the
    estimate is made poor on purpose (memboot.tsc_coarse: 1 % off, claimed
    good to 2 %): a reference must replace it, and anything converted on the
    estimate would be 1 % off the summary's figures."""
    b = boot(nodes=2, cpus_per_node=2, boot_path="pvh", append="memboot.tsc_coarse")
    b.expect_ok()
    assert "memboot.tsc_coarse: the quick" in b.console, b.tail()
    refined = [c for c in b.all("clock_check") if c["adopted"]]
    assert len(refined) == 1, b.all("clock_check")
    # The figure replaced was the coarse one, about 1 % from the reference.
    assert refined[0]["diff_ppm"] > 5000, refined
    assert refined[0]["tsc_hz"] != b.one("tsc")["hz"], refined
    _check_times_use_the_final_figure(b)


def test_coarse_holds_for_a_first_figure_from_the_tables():
    """memboot.tsc_coarse makes the first figure poor whichever phase gave
    it. Without a PIT (as when a busy host leaves phase early's PIT window
    with no figure: the test above then failed now and then) the first
    figure is the HPET's, taken in phase acpi: it too is moved off, claimed
    good to 2 % only and replaced in phase clockcheck."""
    b = boot(nodes=2, cpus_per_node=2, boot_path="pvh", append="memboot.tsc_coarse",
             qemu_args=("-machine", "pit=off"))
    b.expect_ok()
    tsc = b.one("tsc")
    assert (tsc["phase"], tsc["method"]) == ("acpi", "hpet"), tsc
    assert "memboot.tsc_coarse: the quick hpet estimate" in b.console, b.tail()
    refined = [c for c in b.all("clock_check") if c["adopted"]]
    assert len(refined) == 1, b.all("clock_check")
    assert refined[0]["tsc_method"] == "hpet" and refined[0]["diff_ppm"] > 5000, refined
    assert refined[0]["tsc_hz"] != tsc["hz"], (refined, tsc)
    _check_times_use_the_final_figure(b)


def test_times_agree_whichever_figure_the_host_makes_final():
    """The same boot left to the host: the quick estimate may stay (no
    reference was tighter) or a reference may replace it; either way the
    figure in force at the end is the one every time was converted with."""
    b = boot(nodes=2, cpus_per_node=2, boot_path="pvh")
    b.expect_ok()
    refined = [c for c in b.all("clock_check") if c["adopted"]]
    assert len(refined) <= 1, b.all("clock_check")
    _check_times_use_the_final_figure(b)
