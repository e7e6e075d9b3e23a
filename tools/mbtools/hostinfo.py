"""hostinfo: facts about the machine a benchmark ran on, named beside every
figure (the CPU changes between machines, and a figure says little without it)."""

import glob
import os
import platform
import re


def cpu_model(cpuinfo="/proc/cpuinfo"):
    """The first "model name" of @cpuinfo; platform.processor() or
    "unknown CPU" where there is none (not Linux, or no such line)."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


# virtio-balloon's feature bit for free page reporting (virtio spec 5.5.3,
# VIRTIO_BALLOON_F_REPORTING).
BALLOON_F_REPORTING = 5


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read().strip()
    except OSError:
        return None


def memory_notes(sysfs="/sys"):
    """What the host's memory does that shows in emulated timings, as short
    sentences (docs/measuring.md, "Getting figures worth comparing"): the
    transparent huge page mode (QEMU asks for huge pages for guest RAM and
    for its translation buffer), and whether free memory goes back to a
    hypervisor (virtio-balloon free page reporting), after which its next
    first touch is slow. Empty where sysfs says nothing of either."""
    notes = []
    # The mode in force is the bracketed word: "always [madvise] never".
    mode = re.search(r"\[(\w+)\]", _read(os.path.join(
        sysfs, "kernel/mm/transparent_hugepage/enabled")) or "")
    if mode:
        notes.append("transparent huge pages: %s" % mode.group(1))
    order = _read(os.path.join(sysfs, "module/page_reporting/parameters/page_reporting_order"))
    for dev in sorted(glob.glob(os.path.join(sysfs, "bus/virtio/drivers/virtio_balloon/virtio*"))):
        bits = _read(os.path.join(dev, "features")) or ""
        if len(bits) > BALLOON_F_REPORTING and bits[BALLOON_F_REPORTING] == "1":
            notes.append("free memory is returned to the hypervisor (virtio-balloon free page "
                         "reporting%s): memory touched again after that faults in slowly"
                         % (", blocks of 2^%s pages" % order if order and order.isdigit() else ""))
            break
    return notes
