"""hostinfo: facts about the machine a benchmark ran on, named beside every
figure (the CPU changes between machines, and a figure says little without it)."""

import platform


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
