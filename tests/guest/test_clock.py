"""The kernel's TSC clock against the host's: a busy-wait of a fixed length,
timed by the kernel (record `clock`) and by the host (arrival times of the
two records, from tools/memboot --host-times)."""
from guest import boot


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
