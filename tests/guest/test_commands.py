"""Every command the project documents works, as a new user would type it.

The commands come from the documents themselves: every `make TARGET` and
`make VAR=value` in a code span or block of README.md, docs/tools.md and
docs/benchmarks.md and every line of `make help`, and every
`tools/memboot SUBCOMMAND` there. Each runs in a scratch copy of the tree
(the build included, so nothing is rebuilt that is not out of date), with
SMOKE=1 in the environment: the benchmark targets then do their least work
(bench/bench.mk says what each does), so the whole list takes minutes. A
command fails on a non-zero status or a Python traceback in its output. No
command but `make results` may change a tracked file.

What is not run: `make test` (this suite is it). The tool's subcommands need
arguments a user would give (a log, a results store): QUICK below gives each
its smallest real use, and a documented subcommand without one fails, so a
new subcommand gets its line here when its documentation is written (one
registered but not documented yet is not run, and breaks nothing).
"""
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from guest import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))

DOCS = ("README.md", "docs/tools.md", "docs/benchmarks.md")
NOT_RUN = {"test": "the suite this test is part of",
           "test-spare": "the slow guest tests the suite's CI run includes"}
# Make targets run after every other command: they remove what the others
# use (`make results` rewrites docs/results.md's benchmark figures).
LAST = ("results", "clean", "distclean")
# The one command allowed to change a tracked file, and the file.
WRITES = {"results": {"docs/results.md"}}
TIMEOUT_S = 600

# The smallest real use of each subcommand, in order: later ones read what
# earlier ones wrote ({tmp} is a scratch directory).
QUICK = [
    ("run", ["run", "--nodes", "2", "--cpus-per-node", "1", "--mem-per-node", "512M",
             "--log", "{tmp}/boot.log"]),
    ("run", ["run", "--firmware", "uefi", "--mem-per-node", "512M",
             "--vars", "{tmp}/vars.fd"]),
    ("efivars", ["efivars", "{tmp}/vars.fd"]),
    ("topo", ["topo", "tests/host/fixtures/acpi/q35-numa2-slit.acpidump"]),
    ("trace", ["trace", "{tmp}/boot.log", "-o", "{tmp}/trace.json"]),
    ("plot", ["plot", "{tmp}/boot.log", "-o", "{tmp}/boot.png"]),
    ("bench", ["bench", "--quick", "--boots", "1", "--axis", "topo=1x1x512M",
               "--axis", "init=deferred", "--axis", "threads=1", "--json", "{tmp}/bench.json"]),
    ("bench-plot", ["bench-plot", "{tmp}/bench.json", "--out", "{tmp}/bench"]),
    ("compare-linux", ["compare-linux", "--nodes", "1", "--cpus-per-node", "1",
                       "--mem-per-node", "1G"]),
    ("lab", ["lab", "--quick", "--no-plot", "--out", "{tmp}/lab"]),
    # A tree that stands for a Debian machine's root (grub_root() makes it).
    ("install", ["install", "--root", "{tmp}/root", "--once"]),
    ("uninstall", ["uninstall", "--root", "{tmp}/root"]),
    ("netboot", ["netboot", "{tmp}/tftp"]),
    # The simulated server, its packages from ~/.cache (about a minute).
    ("rehearse", ["rehearse", "--keep", "{tmp}/server"]),
]
# The same for the other ports, for each "yes" of docs/tools.md's table "On
# each architecture" (arch_table()): the port's forms of the commands, or the
# guest test that runs the command with that --arch already.
QUICK_ARCH = {
    "arm64": [
        ("run", ["run", "--arch", "arm64", "--nodes", "2", "--cpus-per-node", "1",
                 "--mem-per-node", "512M", "--log", "{tmp}/arm64.log"]),
        ("run", ["run", "--arch", "arm64", "--boot", "efi", "--mem-per-node", "512M",
                 "--vars", "{tmp}/arm64-vars.fd"]),
        ("efivars", ["efivars", "{tmp}/arm64-vars.fd"]),
        # The arm64 tree (GRUB arm64-efi and the loader with the kernel
        # inside), then its network boot under AAVMF (about 15 s).
        ("netboot", ["netboot", "{tmp}/arm64-tftp", "--arch", "arm64"]),
        ("run", ["run", "--arch", "arm64", "--netboot", "{tmp}/arm64-tftp",
                 "--mem-per-node", "512M"]),
        ("topo", ["topo", "tests/host/fixtures/dt/virt-4n.dtb"]),
        ("topo", ["topo", "tests/host/fixtures/acpi/virt-aavmf-numa2.acpidump"]),
        ("trace", ["trace", "{tmp}/arm64.log", "-o", "{tmp}/arm64-trace.json"]),
        ("plot", ["plot", "{tmp}/arm64.log", "-o", "{tmp}/arm64.png"]),
        ("bench", ["bench", "--arch", "arm64", "--quick", "--boots", "1", "--axis",
                   "topo=1x1x512M", "--axis", "init=deferred", "--axis", "threads=1",
                   "--json", "{tmp}/arm64-bench.json"]),
        ("bench-plot", ["bench-plot", "{tmp}/arm64-bench.json", "--out", "{tmp}/arm64-bench"]),
        # Booting Debian's Linux is a test of its own (the same command).
        ("compare-linux", "tests/guest/test_arm64_linux.py"),
        # The spare-server loop on a root tree and on a simulated arm64 server.
        ("install", "tests/tools/test_install_arm64.py"),
        ("uninstall", "tests/tools/test_install_arm64.py"),
        ("rehearse", "tests/guest/test_spare_roundtrip_arm64.py"),
        ("lab", ["lab", "--allocators", "buddy", "--workloads", "trace", "--trace",
                 "{tmp}/small.trace", "--guest", "--arch", "arm64", "--no-plot",
                 "--out", "{tmp}/arm64-lab"]),
    ],
    "ppc64le": [
        ("run", ["run", "--arch", "ppc64le", "--nodes", "2", "--cpus-per-node", "1",
                 "--mem-per-node", "512M", "--log", "{tmp}/ppc64le.log"]),
        ("topo", ["topo", "tests/host/fixtures/dt/pseries-2n.dtb"]),
        ("trace", ["trace", "{tmp}/ppc64le.log", "-o", "{tmp}/ppc64le-trace.json"]),
        ("plot", ["plot", "{tmp}/ppc64le.log", "-o", "{tmp}/ppc64le.png"]),
        ("bench", ["bench", "--arch", "ppc64le", "--quick", "--boots", "1", "--axis",
                   "topo=1x1x512M", "--axis", "init=deferred", "--axis", "threads=1",
                   "--json", "{tmp}/ppc64le-bench.json"]),
        ("bench-plot", ["bench-plot", "{tmp}/ppc64le-bench.json",
                        "--out", "{tmp}/ppc64le-bench"]),
        ("compare-linux", "tests/guest/test_ppc64le_linux.py"),
    ],
}
TRACE_FIXTURE = os.path.join(ROOT, "tests", "tools", "fixtures", "kmem", "kbuild.trace.xz")
GRUB_CFG_FIXTURE = os.path.join(ROOT, "tests", "tools", "fixtures", "grub-mkconfig.cfg")


def grub_root(tmp):
    """{tmp}/root: boot/grub with a grub.cfg as grub-mkconfig writes it and
    an empty grubenv, and etc/grub.d, for install and uninstall --root."""
    root = os.path.join(tmp, "root")
    os.makedirs(os.path.join(root, "boot", "grub"))
    os.makedirs(os.path.join(root, "etc", "grub.d"))
    shutil.copyfile(GRUB_CFG_FIXTURE, os.path.join(root, "boot", "grub", "grub.cfg"))
    subprocess.run(["grub-editenv", os.path.join(root, "boot", "grub", "grubenv"), "create"],
                   check=True)


def arch_table(root):
    """docs/tools.md's table "On each architecture": {arch: {command: yes}},
    True where its cell starts with "yes", False with "no"; a cell that
    starts with neither is an error."""
    with open(os.path.join(root, "docs", "tools.md"), encoding="utf-8") as f:
        text = f.read()
    part = text.split("### On each architecture", 1)[1].split("\n\n|", 1)[1]
    rows = [line for line in ("|" + part).split("\n\n", 1)[0].splitlines()]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    arches = header[1:]
    table = {a: {} for a in arches}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        name = cells[0].strip("`")
        for arch, cell in zip(arches, cells[1:]):
            word = cell.split(":")[0].split()[0]
            assert word in ("yes", "no"), "docs/tools.md: %s on %s: %r" % (name, arch, cell)
            table[arch][name] = word == "yes"
    return table


def code_text(text):
    """What a document shows as code: fenced and indented blocks, inline
    spans. Prose is left out, so "make sure" is never a command."""
    parts = re.findall(r"```[^\n]*\n(.*?)```", text, re.S)
    rest = re.sub(r"```.*?```", "", text, flags=re.S)
    parts += re.findall(r"`([^`\n]+)`", rest)
    parts += [line for line in rest.splitlines() if line.startswith("    ")]
    return "\n".join(parts)


MAKE_RE = re.compile(r"(?<![\w/.-])make((?:\s+[A-Z_]+=(?:'[^']*'|\"[^\"]*\"|[^\s|]+))*)"
                     r"(\s+[a-z][a-z0-9-]*(?:\s*\|\s*[a-z][a-z0-9-]*)*)?")
VAR_RE = re.compile(r"([A-Z_]+)=('[^']*'|\"[^\"]*\"|[^\s|]+)")
TOOL_RE = re.compile(r"tools/memboot\s+([a-z][a-z-]*)")


def documented(root):
    """({target: source}, {VAR: value}, {subcommand: source}) named by the
    documents and `make help`."""
    texts = {}
    for name in DOCS:
        with open(os.path.join(root, name), encoding="utf-8") as f:
            texts[name] = code_text(f.read())
    texts["make help"] = subprocess.run(["make", "-s", "--no-print-directory", "help"], cwd=root,
                                        stdout=subprocess.PIPE, text=True, check=True).stdout
    targets, variables, subs = {}, {}, {}
    for source, text in texts.items():
        for m in MAKE_RE.finditer(text):
            for var, value in VAR_RE.findall(m.group(1)):
                if "|" not in value:
                    variables.setdefault(var, value.strip("'\""))
            for word in re.findall(r"[a-z][a-z0-9-]*", m.group(2) or ""):
                targets.setdefault(word, source)
        for m in TOOL_RE.finditer(text):
            subs.setdefault(m.group(1), source)
    return targets, variables, subs


def make_targets(root):
    """Every explicit target of the Makefile (make's own database)."""
    out = subprocess.run(["make", "-pRrq", "-f", "Makefile", ":"], cwd=root,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return {m.group(1) for m in re.finditer(r"^([a-z][a-z0-9-]*):", out, re.M)}


def help_targets(root):
    """The targets `make help` lists (its lines "  make A | B  text")."""
    out = subprocess.run(["make", "-s", "--no-print-directory", "help"], cwd=root,
                         stdout=subprocess.PIPE, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        m = re.match(r"\s+make ((?:[a-z][a-z0-9-]*(?: \| )?)+)", line)
        if m:
            found.update(w for w in m.group(1).split(" | ") if w)
    return found


def subcommands(canonical=False):
    """The subcommands tools/memboot registers (make_parser()), aliases too
    unless @canonical."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("memboot_cli", os.path.join(ROOT, "tools",
                                                                              "memboot"))
    spec = importlib.util.spec_from_loader("memboot_cli", loader)
    cli = importlib.util.module_from_spec(spec)
    loader.exec_module(cli)
    parser = cli.make_parser()
    for action in parser._subparsers._group_actions:
        if canonical:
            # An alias (efivars' results) shares its command's parser.
            first = {}
            for name, sub in action.choices.items():
                first.setdefault(id(sub), name)
            return set(first.values())
        return set(action.choices)
    return set()


def scratch_copy(dst):
    """The working tree as it is (uncommitted changes, the build, file
    times kept so make rebuilds nothing), with a git index of its own:
    the copy's commands can never touch this tree's repository."""
    tree = os.path.join(dst, "tree")
    shutil.copytree(ROOT, tree, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    subprocess.run(["git", "add", "-A"], cwd=tree, check=True)
    return tree


def changed_files(tree):
    """Tracked files whose content differs from the copy's index."""
    out = subprocess.run(["git", "diff", "--name-only"], cwd=tree, stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return set(out.split())


def run_one(argv, cwd, env, log):
    start = time.monotonic()
    try:
        p = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
                           errors="replace", timeout=TIMEOUT_S)
        rc, out = p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        rc, out = "timeout", (e.stdout or b"").decode("utf-8", "replace") \
            if isinstance(e.stdout, bytes) else (e.stdout or "")
    wall = time.monotonic() - start
    problem = None
    if rc != 0:
        problem = "exit %s" % rc
    elif "Traceback (most recent call last)" in out:
        problem = "a Python traceback"
    log.append("%-60s %6.1f s  %s" % (" ".join(argv)[:60], wall, problem or "ok"))
    return problem, out


def test_every_documented_command_runs():
    targets, variables, subs = documented(ROOT)
    real = make_targets(ROOT)
    # What `make help` lists must be a target; prose-like words in the other
    # documents' code (a path, a flag) are only run when they are targets.
    missing = sorted(help_targets(ROOT) - real)
    assert not missing, "make help lists targets the Makefile lacks: %s" % missing
    run_targets = sorted(t for t in targets if t in real and t not in NOT_RUN)
    registered = subcommands()
    subs = {s for s in subs if s in registered}
    assert subs, "no tools/memboot subcommand found in %s" % (DOCS,)
    quick_names = {name for name, _ in QUICK}
    assert not subs - quick_names, \
        "documented subcommands with no quick form in QUICK: %s" % sorted(subs - quick_names)
    assert not quick_names - registered, \
        "QUICK names subcommands tools/memboot lacks: %s" % sorted(quick_names - registered)

    failures, log = [], []
    with tempfile.TemporaryDirectory(prefix="memboot-commands-") as tmp:
        tree = scratch_copy(tmp)
        grub_root(tmp)
        env = dict(os.environ, SMOKE="1", MEMBOOT_HOST_NOTES="off")
        # A command of its own, not a sub-make of the `make test` running this.
        for var in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
            env.pop(var, None)

        def check(name, argv):
            # distclean removes the newlib cache: the copy's, which is empty
            # (the build's newlib is a link into the real one, kept).
            run_env = dict(env, NEWLIB_CACHE=os.path.join(tmp, "newlib-cache")) \
                if argv[-1] == "distclean" else env
            problem, out = run_one(argv, tree, run_env, log)
            if problem:
                failures.append("%s: %s\n%s" % (name, problem, out[-3000:]))

        for target in run_targets:
            if target not in LAST:
                check("make " + target, ["make", target])
        for var, value in sorted(variables.items()):
            check("make %s=%s" % (var, value), ["make", "%s=%s" % (var, value)])
        for name, argv in QUICK:
            if name in subs:
                check("tools/memboot " + name,
                      ["tools/memboot"] + [a.format(tmp=tmp) for a in argv])
        changed = changed_files(tree)
        for target in LAST:
            if target in run_targets:
                before = changed_files(tree)
                check("make " + target, ["make", target])
                if target in WRITES:
                    wrote = changed_files(tree) - before
                    if not wrote & WRITES[target]:
                        failures.append("make %s changed none of %s" % (target, WRITES[target]))
    print("\n".join(log))
    assert not changed, "commands other than make results changed tracked files: %s" % changed
    assert not failures, "\n\n".join(failures)
    # The documents name what the product is: the list must not shrink to
    # nothing through a change of the extraction.
    assert {"run", "test", "bench", "fuzz"} <= set(targets), sorted(targets)


test_every_documented_command_runs.serial = True


def test_the_architecture_table_covers_every_command():
    """Every subcommand has a row; every "yes" of another port has its forms
    in QUICK_ARCH, and no "no" has one."""
    table = arch_table(ROOT)
    registered = subcommands(canonical=True)
    assert set(table) >= {"x86_64", "arm64", "ppc64le"}, sorted(table)
    for arch, cells in table.items():
        assert set(cells) == registered, (arch, sorted(set(cells) ^ registered))
    for arch, forms in QUICK_ARCH.items():
        have = {name for name, _ in forms}
        yes = {name for name, ok in table[arch].items() if ok}
        assert have == yes, "%s: forms for %s, docs say yes for %s" % (
            arch, sorted(have - yes), sorted(yes - have))
        for name, argv in forms:
            if isinstance(argv, str):
                with open(os.path.join(ROOT, argv), encoding="utf-8") as f:
                    text = f.read()
                assert name in text and arch in text, (arch, name, argv)


def test_every_command_runs_on_the_other_ports():
    """docs/tools.md's "yes" cells of arm64 and ppc64le, each run in its
    smallest real form (QUICK_ARCH), in a scratch copy of the tree."""
    failures, log = [], []
    with tempfile.TemporaryDirectory(prefix="memboot-commands-arch-") as tmp:
        tree = scratch_copy(tmp)
        with lzma.open(TRACE_FIXTURE, "rt") as src, \
                open(os.path.join(tmp, "small.trace"), "w") as out:
            for i, line in enumerate(src):
                if i >= 20000:
                    break
                out.write(line)
        env = dict(os.environ, SMOKE="1", MEMBOOT_HOST_NOTES="off")
        for var in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS"):
            env.pop(var, None)
        for arch, forms in QUICK_ARCH.items():
            for name, argv in forms:
                if isinstance(argv, str):
                    continue   # its own test (test_the_architecture_table_...)
                problem, out = run_one(["tools/memboot"] + [a.format(tmp=tmp) for a in argv],
                                       tree, env, log)
                if problem:
                    failures.append("%s %s: %s\n%s" % (arch, name, problem, out[-3000:]))
        changed = changed_files(tree)
    print("\n".join(log))
    assert not changed, "commands changed tracked files: %s" % changed
    assert not failures, "\n\n".join(failures)


test_every_command_runs_on_the_other_ports.serial = True
