"""docs/spare-metal.md section 1.1 works as written: each `$ tools/memboot
rehearse ...` command of its code blocks runs as it is written there, and
the lines the document shows under it come out of it, in order (numbers,
paths and the package's version aside; "..." stands for lines left out).

Wall time under TCG on the busy 2-core development host: about 8 minutes
for the three commands (the two under Secure Boot are the slow ones). Runs
in `make test-spare` and in CI (.ci/run), not in a plain `make test`."""

import os
import re
import shlex
import subprocess

from guest import ROOT, spare_tests_only

DOC = os.path.join(ROOT, "docs", "spare-metal.md")
SECTION = "### 1.1 "


def normal(line):
    """A line with what changes from run to run masked."""
    line = re.sub(r"/tmp/\S+?(?=[/ ,']|$)", "DIR", line.rstrip())
    line = re.sub(r"memboot_\S+_amd64\.deb", "PACKAGE", line)
    line = re.sub(r"vmlinuz-\S+-cloud-amd64", "VMLINUZ", line)
    return re.sub(r"\d+", "#", line)


def documented_commands(text):
    """[(argv, [shown lines])] of section 1.1's code blocks."""
    part = text.split(SECTION, 1)[1].split("\n### ", 1)[0]
    out = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", part, re.S):
        for line in block.splitlines():
            if line.startswith("$ tools/memboot "):
                out.append((shlex.split(line[2:]), []))
            elif out and line.strip() and line.strip() != "...":
                out[-1][1].append(line)
    return out


def missing_in_order(shown, printed):
    """The shown lines that do not come out, in order, of the printed ones."""
    printed = [normal(l) for l in printed]
    at, missing = 0, []
    for line in shown:
        want = normal(line)
        try:
            at = printed.index(want, at) + 1
        except ValueError:
            missing.append(line)
    return missing


def test_the_checks_can_fail():
    shown = ["rehearse: boot 1: GRUB boots next_entry (memboot) once",
             "  memboot: status 0 (ok); node 0: 95580 pages in 0.786 ms"]
    printed = ["rehearse: boot 1: GRUB boots next_entry (memboot) once",
               "  memboot: status 0 (ok); node 0: 1 pages in 2.5 ms"]
    assert missing_in_order(shown, printed) == []
    assert missing_in_order(shown, printed[1:]) == shown[:1]
    assert missing_in_order(shown[::-1], printed) == shown[:1]
    with open(DOC) as f:
        commands = documented_commands(f.read())
    assert [argv[1:] for argv, _ in commands] == [
        ["rehearse"], ["rehearse", "--secure-boot"], ["rehearse", "--secure-boot", "--sign"]]
    assert all(len(shown) >= 3 for _, shown in commands)


def test_section_1_1_runs_as_written():
    spare_tests_only()
    with open(DOC) as f:
        commands = documented_commands(f.read())
    for argv, shown in commands:
        proc = subprocess.run([os.path.join(ROOT, argv[0])] + argv[1:], cwd=ROOT,
                              capture_output=True, text=True, timeout=2400)
        assert proc.returncode == 0, (argv, proc.stdout[-3000:], proc.stderr[-3000:])
        assert "Traceback" not in proc.stderr
        missing = missing_in_order(shown, proc.stdout.splitlines())
        assert not missing, (argv, missing, proc.stdout[-4000:])
