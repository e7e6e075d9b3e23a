"""memboot install / uninstall: memboot as a menu entry of a machine's own
GRUB (Debian/Ubuntu layout: /boot/grub/grub.cfg written by grub-mkconfig from
the scripts of /etc/grub.d), so that the next boot can be memboot's without a
stick or anyone at the console.

  install    copies the kernel to /boot/memboot/memboot.elf, writes the
             script /etc/grub.d/42_memboot (it prints memboot's menu entry),
             regenerates grub.cfg, and with --once sets grubenv's next_entry
             to the entry's id, as grub-reboot does: the grub.cfg header that
             grub-mkconfig writes boots next_entry once and clears it.
  uninstall  clears next_entry if it names memboot, removes the script and
             the kernel, and regenerates grub.cfg.

The entry is never the default: it sorts after 40_custom and 41_custom, so a
numeric GRUB_DEFAULT still counts the same entries, and nothing else in
grub.cfg changes.

With --root DIR every path is under DIR (a mounted image or a tree that
stands for one). grub-mkconfig cannot run there (it probes the running
machine's devices), so grub.cfg under DIR is edited instead: the entry goes
between the same "### BEGIN /etc/grub.d/42_memboot ###" / "### END ..."
lines grub-mkconfig puts around a script's output, at the end of the file,
and the script stays for the next update-grub run inside DIR. The entry
itself finds the kernel from GRUB's $prefix, so it needs no device probed
at install time.

Every file is written to a temporary name beside it and renamed; the new
grub.cfg is checked with grub-script-check before it replaces the old one.
A failure undoes what was done (status 69, EXIT_GRUB_FAILED); a refusal
before anything is touched exits 64. Standard library only.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

from mbtools import bootnext, facts, inputs, secureboot

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_ELF = os.path.join(REPO_ROOT, "build", "debug", "memboot.elf")
DEFAULT_LOADER = os.path.join(REPO_ROOT, "build", "debug", "efi", "BOOTX64.EFI")

ENTRY_ID = "memboot"
ENTRY_TITLE = "memboot: memory bring-up test"
SCRIPT_NAME = "42_memboot"
KERNEL_DIR = "boot/memboot"          # relative to the root
KERNEL_NAME = "memboot.elf"
GRUB_DIR = "boot/grub"
GRUB_D = "etc/grub.d"
DEFAULT_EXIT = "memboot.exit=reboot"
BLOCK_BEGIN = "### BEGIN /etc/grub.d/%s ###" % SCRIPT_NAME
BLOCK_END = "### END /etc/grub.d/%s ###" % SCRIPT_NAME
# Filesystems and device layers GRUB reads but never writes: its save_env
# would fail, next_entry would stay set and every boot would be memboot's
# (GRUB manual, "Environment block").
NO_SAVE_ENV_FS = ("btrfs", "zfs")
NO_SAVE_ENV_ABSTRACTION = ("lvm", "raid", "mdraid", "cryptodisk", "luks", "luks2", "geli")

EXIT_USAGE = facts.EXIT_USAGE
EXIT_GRUB_FAILED = facts.EXIT_GRUB_FAILED


class Refused(Exception):
    """The machine or the options are not what install can work on;
    nothing was changed (exit 64)."""


class Failed(Exception):
    """A step failed after work began; what was done is undone (exit 69)."""


# ---------------------------------------------------------------------------
# What is written
# ---------------------------------------------------------------------------

def grub_word(word):
    """@word quoted for GRUB's script lexer: single quotes keep everything
    literal, and a quote itself is closed, escaped and reopened."""
    if re.fullmatch(r"[A-Za-z0-9_./:=,+@%-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def menu_entry(words, kernel_dir="/memboot", more="", prologue=""):
    """memboot's menu entry as GRUB reads it. The kernel lies beside GRUB's
    own directory: $prefix is (DEVICE)DIR/grub with DIR /boot when /boot is
    part of the root filesystem, empty when /boot is a filesystem of its own
    (or a TFTP tree's boot/grub), so the entry needs no device named at
    install time. @kernel_dir is the kernel's directory relative to DIR;
    @more is GRUB script text put after the words as it is (netboot's
    $memboot_args, which GRUB splits into words); @prologue is GRUB script
    run first (secureboot.fallback_lines())."""
    args = " ".join([grub_word(w) for w in words] + ([more] if more else []))
    return "menuentry '%s' --id %s {\n" % (ENTRY_TITLE, ENTRY_ID) + prologue + (
        "\tinsmod all_video\n"
        "\tinsmod regexp\n"
        "\tif regexp --set 1:mb_dev --set 2:mb_dir '^\\((.*)\\)(.*)/grub$' \"$prefix\"; then\n"
        "\t\tset root=\"$mb_dev\"\n"
        "\telse\n"
        "\t\tset mb_dir=/boot\n"
        "\tfi\n"
        "\techo 'Loading memboot ...'\n"
        "\tmultiboot2 \"${mb_dir}%s/%s\"%s\n"
        "\tboot\n"
        "}\n" % (kernel_dir, KERNEL_NAME, " " + args if args else ""))


def grub_d_script(words, entry=None):
    """/etc/grub.d/42_memboot: prints the entry (@entry, or the multiboot2
    one of @words) for grub-mkconfig while the kernel is there."""
    return (
        "#!/bin/sh\n"
        "# Written by memboot's tools/memboot install; removed by tools/memboot uninstall.\n"
        "# Prints memboot's menu entry. It is never the default: install --once\n"
        "# picks it for one boot through grubenv's next_entry.\n"
        "set -e\n"
        "[ -f /%s/%s ] || exit 0\n"
        "cat <<'MEMBOOT_ENTRY'\n"
        "%s"
        "MEMBOOT_ENTRY\n" % (KERNEL_DIR, KERNEL_NAME, entry or menu_entry(words)))


def splice_block(cfg, entry):
    """grub.cfg text with memboot's block (the entry between BLOCK_BEGIN and
    BLOCK_END) replaced, or appended at the end; @entry None removes it."""
    # The block and the empty line before it, as grub-mkconfig writes them.
    pattern = re.compile(r"(?:^\n)?^%s\n.*?^%s\n?" % (re.escape(BLOCK_BEGIN),
                                                      re.escape(BLOCK_END)), re.M | re.S)
    cfg = pattern.sub("", cfg)
    if entry is None:
        return cfg
    if cfg and not cfg.endswith("\n"):
        cfg += "\n"
    return cfg + "\n%s\n%s%s\n" % (BLOCK_BEGIN, entry, BLOCK_END)


def parse_grubenv(text):
    """{name: value} of a grubenv block (grub-editenv list's lines, or the
    file itself: '# GRUB Environment Block' then NAME=VALUE lines, '#' fill)."""
    env = {}
    for line in text.splitlines():
        if line.startswith("#") or "=" not in line:
            continue
        name, value = line.split("=", 1)
        env[name] = value
    return env


# ---------------------------------------------------------------------------
# The machine
# ---------------------------------------------------------------------------

class Layout:
    """The paths of one root ('/' or --root DIR)."""

    def __init__(self, root):
        self.root = root
        self.host = root is None
        # MEMBOOT_HOST_ROOT: where '/' is for the running-machine path
        # (update-grub, grub-probe), so tests can run it on a tree.
        base = root or os.environ.get("MEMBOOT_HOST_ROOT") or "/"
        self.base = base
        self.boot = os.path.join(base, "boot")
        self.kernel_dir = os.path.join(base, KERNEL_DIR)
        self.kernel = os.path.join(self.kernel_dir, KERNEL_NAME)
        self.grub_dir = os.path.join(base, GRUB_DIR)
        self.grub_cfg = os.path.join(self.grub_dir, "grub.cfg")
        self.grubenv = os.path.join(self.grub_dir, "grubenv")
        self.grub_d = os.path.join(base, GRUB_D)
        self.script = os.path.join(self.grub_d, SCRIPT_NAME)


def which(name):
    """A GRUB program: $MEMBOOT_GRUB_BIN/NAME if set (tests), else PATH
    and the sbin directories (grub-mkconfig lives in /usr/sbin)."""
    override = os.environ.get("MEMBOOT_GRUB_BIN")
    if override:
        path = os.path.join(override, name)
        return path if os.access(path, os.X_OK) else None
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


def writable_problem(folder):
    """None if a file can be created in @folder (tried, not guessed: root
    ignores permission bits, not a read-only mount or an immutable dir)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".memboot-probe-", dir=folder)
    except OSError as e:
        return "cannot write in %s: %s" % (folder, e.strerror)
    os.close(fd)
    os.unlink(probe)
    return None


def check_layout(lay, need_tools):
    """Refuse (Refused) a root that is not a Debian-style GRUB layout."""
    if not os.path.isdir(lay.base):
        raise Refused("--root %s is not a directory" % lay.base)
    if not os.path.isdir(lay.boot):
        raise Refused("no %s: not a Linux root filesystem" % lay.boot)
    if not os.path.isdir(lay.grub_dir):
        if os.path.isdir(os.path.join(lay.boot, "grub2")):
            raise Refused("%s/grub2 is a GRUB layout (Fedora, RHEL, SUSE) install does not "
                          "know; only Debian/Ubuntu's /boot/grub with /etc/grub.d is supported"
                          % lay.boot)
        raise Refused("GRUB is missing: no %s" % lay.grub_dir)
    if not os.path.isfile(lay.grub_cfg):
        raise Refused("GRUB is missing: no %s (GRUB not installed or never configured)"
                      % lay.grub_cfg)
    if not os.path.isdir(lay.grub_d):
        raise Refused("no %s: grub.cfg is not generated by grub-mkconfig here, a layout "
                      "install does not know" % lay.grub_d)
    missing = [t for t in need_tools if which(t) is None]
    if missing:
        raise Refused("GRUB's tools are missing: %s not found (Debian package grub-common)"
                      % ", ".join(missing))
    if lay.host and which("update-grub") is None and which("grub-mkconfig") is None:
        raise Refused("neither update-grub nor grub-mkconfig found: cannot regenerate %s"
                      % lay.grub_cfg)


def check_save_env(lay, layer_fs=None):
    """--once on the running machine: GRUB must be able to clear next_entry
    again, or memboot would boot (and reboot) forever."""
    probe = which("grub-probe")
    if probe is None:
        return
    found = []
    for target in ("fs", "abstraction"):
        try:
            out = subprocess.run([probe, "--target=" + target, lay.grub_dir],
                                 capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if out.returncode == 0:
            found += out.stdout.split()
    bad = [w for w in found if w in NO_SAVE_ENV_FS or w in NO_SAVE_ENV_ABSTRACTION]
    if bad:
        raise Refused("--once: %s is on %s, where GRUB cannot write grubenv; next_entry "
                      "would never be cleared and every boot would be memboot's"
                      % (lay.grub_dir, " and ".join(bad)))


def grub_default(lay):
    """GRUB_DEFAULT as /etc/default/grub and /etc/default/grub.d/*.cfg set
    it (the last assignment wins, as when grub-mkconfig sources them), or
    None."""
    files = [os.path.join(lay.base, "etc", "default", "grub")]
    d = os.path.join(lay.base, "etc", "default", "grub.d")
    if os.path.isdir(d):
        files += sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".cfg"))
    value = None
    for f in files:
        if not os.path.isfile(f):
            continue
        for line in read_text(f).splitlines():
            m = re.match(r"\s*GRUB_DEFAULT=(.*)$", line)
            if m:
                value = m.group(1).strip().strip("\"'")
    return value


def check_default_kept(lay):
    """A numeric GRUB_DEFAULT counts menu entries: memboot's entry must not
    come before the one it names. Only scripts sorting after 42_memboot can
    put entries after it."""
    value = grub_default(lay)
    if value is None or not value.isdigit() or int(value) == 0:
        return
    later = sorted(n for n in os.listdir(lay.grub_d)
                   if n > SCRIPT_NAME and n[:1].isdigit()
                   and os.access(os.path.join(lay.grub_d, n), os.X_OK))
    if later:
        raise Refused("GRUB_DEFAULT=%s counts menu entries, and %s come after memboot's "
                      "entry (%s): the default would become another entry; set GRUB_DEFAULT "
                      "to an entry's id or title, or to saved" % (
                          value, ", ".join("/etc/grub.d/" + n for n in later), SCRIPT_NAME))


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as e:
        raise Refused("cannot read %s: %s" % (path, e.strerror)) from None


def grubenv_entries(lay):
    """grubenv's variables, {} when there is no grubenv."""
    if not os.path.exists(lay.grubenv):
        return {}
    return parse_grubenv(read_text(lay.grubenv))


# ---------------------------------------------------------------------------
# Steps, each with its undo
# ---------------------------------------------------------------------------

class Plan:
    """Runs (or, with dry_run, prints) steps; undo() reverts those done."""

    def __init__(self, dry_run, out=sys.stdout):
        self.dry_run = dry_run
        self.out = out
        self.undo_steps = []

    def say(self, text):
        print(("memboot: would " if self.dry_run else "memboot: ") + text, file=self.out)

    def write_file(self, path, data, mode=0o644, show=True):
        """@data (bytes) to @path through a temporary file and a rename."""
        if self.dry_run:
            self.say("write %s (mode %04o, %d bytes)%s" % (path, mode, len(data),
                                                           ":" if show else ""))
            if show:
                for line in data.decode("utf-8", "replace").splitlines():
                    print("    " + line, file=self.out)
            return
        folder = os.path.dirname(path)
        old = None
        if os.path.exists(path):
            with open(path, "rb") as f:
                old = (f.read(), os.stat(path).st_mode & 0o7777)
        fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, mode)
            os.replace(tmp, path)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise Failed("cannot write %s: %s" % (path, e.strerror)) from None
        self.say("wrote %s" % path)
        self.undo_steps.append(lambda: self._restore(path, old))

    def _restore(self, path, old):
        if old is None:
            if os.path.exists(path):
                os.unlink(path)
        else:
            data, mode = old
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                                       dir=os.path.dirname(path))
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, mode)
            os.replace(tmp, path)

    def mkdir(self, path):
        if os.path.isdir(path):
            return
        if self.dry_run:
            self.say("create directory %s" % path)
            return
        try:
            os.mkdir(path, 0o755)
        except OSError as e:
            raise Failed("cannot create %s: %s" % (path, e.strerror)) from None
        self.undo_steps.append(lambda: os.rmdir(path) if os.path.isdir(path)
                               and not os.listdir(path) else None)

    def remove(self, path):
        if not os.path.lexists(path):
            return
        if self.dry_run:
            self.say("remove %s" % path)
            return
        with open(path, "rb") as f:
            old = (f.read(), os.stat(path).st_mode & 0o7777)
        try:
            os.unlink(path)
        except OSError as e:
            raise Failed("cannot remove %s: %s" % (path, e.strerror)) from None
        self.say("removed %s" % path)
        self.undo_steps.append(lambda: self._restore(path, old))

    def command(self, argv, undo_argv=None, what=None):
        """Run @argv; a non-zero status fails the plan with its output."""
        if self.dry_run:
            self.say("run: %s" % shlex.join(argv))
            return
        self.say("running %s" % shlex.join(argv))
        try:
            proc = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                                  text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise Failed("%s could not run: %s" % (argv[0], getattr(e, "strerror", None) or e)) \
                from None
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise Failed("%s failed (status %d)%s" % (
                what or shlex.join(argv), proc.returncode,
                ": " + " / ".join(tail) if tail else ""))
        if undo_argv:
            self.undo_steps.append(lambda: subprocess.run(undo_argv, capture_output=True))

    def undo(self):
        for step in reversed(self.undo_steps):
            try:
                step()
            except OSError as e:
                print("memboot: while undoing: %s" % e, file=sys.stderr)
        self.undo_steps = []


def check_cfg_text(text, label):
    """grub-script-check on @text (a whole grub.cfg); Failed on a refusal."""
    checker = which("grub-script-check")
    fd, tmp = tempfile.mkstemp(prefix="memboot-grubcfg-", suffix=".cfg")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(text)
        proc = subprocess.run([checker, tmp], capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(tmp)
    if proc.returncode != 0:
        raise Failed("grub-script-check refuses %s: %s"
                     % (label, (proc.stderr or proc.stdout).strip().replace("\n", " / ")))


def regenerate(plan, lay, entry):
    """grub.cfg with (@entry) or without (None) memboot's block."""
    if lay.host:
        tool = which("update-grub")
        argv = [tool] if tool else [which("grub-mkconfig"), "-o", lay.grub_cfg]
        old = None if plan.dry_run else read_text(lay.grub_cfg)
        plan.command(argv, what="regenerating %s (%s)" % (lay.grub_cfg, os.path.basename(argv[0])))
        if old is not None:
            plan.undo_steps.append(lambda: plan._restore(lay.grub_cfg, (old.encode(
                "utf-8", "surrogateescape"), 0o644)))
        if not plan.dry_run:
            new = read_text(lay.grub_cfg)
            if entry is not None and ("--id %s " % ENTRY_ID) not in new:
                raise Failed("%s has no memboot entry after %s (is /etc/grub.d/%s executable?)"
                             % (lay.grub_cfg, argv[0], SCRIPT_NAME))
        return
    old = read_text(lay.grub_cfg)
    new = splice_block(old, entry)
    if new == old:
        return
    if not plan.dry_run:
        check_cfg_text(new, "the new " + lay.grub_cfg)
    else:
        plan.say("(--root: grub-mkconfig is not run, it would probe this machine's "
                 "devices; %s is edited)" % lay.grub_cfg)
    plan.write_file(lay.grub_cfg, new.encode("utf-8", "surrogateescape"), show=False)
    if plan.dry_run:
        if entry is not None:
            print("    %s\n%s    %s" % (BLOCK_BEGIN, "".join(
                "    " + line + "\n" for line in entry.splitlines()), BLOCK_END),
                file=plan.out)
        else:
            plan.say("(the lines from %s to %s are left out)" % (BLOCK_BEGIN, BLOCK_END))


def set_next_entry(plan, lay):
    env = grubenv_entries(lay) if os.path.exists(lay.grubenv) else None
    editenv = which("grub-editenv")
    if env is not None and env.get("next_entry"):
        old = env["next_entry"]
        undo = [editenv, lay.grubenv, "set", "next_entry=" + old]
    else:
        undo = [editenv, lay.grubenv, "unset", "next_entry"]
    plan.command([editenv, lay.grubenv, "set", "next_entry=" + ENTRY_ID], undo_argv=undo)


# ---------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------

def install_words(args):
    words = args.append.split() if args.append else []
    if not args.no_exit_reboot and not any(w.startswith("memboot.exit=") for w in words):
        words.append(DEFAULT_EXIT)
    return words


def run_plan(name, args, steps):
    """@steps(lay, plan) under the rule of both commands: a refusal changes
    nothing (exit 64); a step that fails after work began is undone (69)."""
    lay = Layout(args.root)
    plan = Plan(args.dry_run)
    try:
        return steps(lay, plan)
    except Refused as e:
        print("memboot %s: %s; nothing changed" % (name, e), file=sys.stderr)
        return EXIT_USAGE
    except Failed as e:
        plan.undo()
        print("memboot %s: %s; everything done so far is undone" % (name, e), file=sys.stderr)
        return EXIT_GRUB_FAILED


def cmd_install(args):
    return run_plan("install", args, lambda lay, plan: install_steps(args, lay, plan))


def install_steps(args, lay, plan):
    elf = args.elf or DEFAULT_ELF
    problem = inputs.elf_problem(elf)
    if problem:
        raise Refused(problem + ("; run 'make' first" if elf == DEFAULT_ELF
                                 and not os.path.exists(elf) else ""))
    words = install_words(args)
    if args.bootnext:
        return bootnext.install_steps(args, lay, plan, elf, words)
    bootnext.check_boot_manager(args, lay, plan)
    check_layout(lay, ["grub-script-check"] + (["grub-editenv"] if args.once else []))
    entry = bootnext.firmware_checks(args, lay, plan, elf, words, grub_default(lay))
    cfg = read_text(lay.grub_cfg)
    if args.once and not lay.host and "next_entry" not in cfg:
        raise Refused("--once: %s never reads grubenv's next_entry (it was not written "
                      "by grub-mkconfig), so the one-shot boot would not happen"
                      % lay.grub_cfg)
    if args.once and lay.host:
        check_save_env(lay)
    for folder in (lay.kernel_dir if os.path.isdir(lay.kernel_dir) else lay.boot,
                   lay.grub_d, lay.grub_dir):
        problem = writable_problem(folder)
        if problem:
            raise Refused(problem)
    if os.path.lexists(lay.kernel_dir) and not os.path.isdir(lay.kernel_dir):
        raise Refused("%s exists and is not a directory" % lay.kernel_dir)
    check_default_kept(lay)
    if lay.root and args.dry_run:
        plan.say("install under %s (not this machine's /)" % lay.root)
    bootnext.write_esp_files(args, lay, plan, elf, words)
    plan.mkdir(lay.kernel_dir)
    with open(elf, "rb") as f:
        plan.write_file(lay.kernel, f.read(), show=False)
    plan.write_file(lay.script, grub_d_script(words, entry).encode("utf-8"), mode=0o755)
    regenerate(plan, lay, entry)
    if args.once:
        set_next_entry(plan, lay)
    if args.dry_run:
        return 0
    print("memboot: installed: menu entry '%s' (id %s)%s" % (
        ENTRY_TITLE, ENTRY_ID,
        "; the next boot is memboot's, then GRUB's default again" if args.once
        else "; not the default (install --once, or grub-reboot %s, picks it for one boot)"
        % ENTRY_ID))
    return 0


def cmd_uninstall(args):
    return run_plan("uninstall", args, lambda lay, plan: uninstall_steps(args, lay, plan))


def uninstall_steps(args, lay, plan):
    uefi = bootnext.uninstall_steps(args, lay, plan)
    if uefi and not os.path.isdir(lay.grub_d):
        return 0
    check_layout(lay, ["grub-script-check", "grub-editenv"])
    env = grubenv_entries(lay)
    cfg = read_text(lay.grub_cfg)
    present = [p for p in (lay.script, lay.kernel) if os.path.lexists(p)]
    clear = env.get("next_entry") in (ENTRY_ID, ENTRY_TITLE)
    if not present and BLOCK_BEGIN not in cfg and not clear:
        if not uefi:
            print("memboot uninstall: memboot is not installed under %s; nothing to do"
                  % lay.base)
        return 0
    for folder in (lay.grub_d, lay.grub_dir, lay.kernel_dir if os.path.isdir(
            lay.kernel_dir) else lay.boot):
        problem = writable_problem(folder)
        if problem:
            raise Refused(problem)
    if clear:
        # First, so that no boot picks an entry that is going away.
        plan.command([which("grub-editenv"), lay.grubenv, "unset", "next_entry"],
                     undo_argv=[which("grub-editenv"), lay.grubenv, "set",
                                "next_entry=" + env["next_entry"]])
    plan.remove(lay.script)
    regenerate(plan, lay, None)
    plan.remove(lay.kernel)
    if not args.dry_run and os.path.isdir(lay.kernel_dir) and not os.listdir(lay.kernel_dir):
        os.rmdir(lay.kernel_dir)
    elif args.dry_run and os.path.isdir(lay.kernel_dir):
        plan.say("remove directory %s if empty" % lay.kernel_dir)
    if not args.dry_run:
        print("memboot: uninstalled from %s" % lay.base)
    return 0


def root_arg(text):
    """--root DIR: an existing directory."""
    if not os.path.isdir(text):
        raise argparse.ArgumentTypeError("%s is not a directory" % text)
    return os.path.abspath(text)


def add_parser(sub):
    p = sub.add_parser(
        "install", allow_abbrev=False,
        help="add memboot to this machine's GRUB menu (--once: for the next boot only)",
        description="Copy the kernel to /boot/memboot/, write /etc/grub.d/%s (a Multiboot2 "
                    "menu entry, never the default), regenerate /boot/grub/grub.cfg and, with "
                    "--once, make only the next boot memboot's (grubenv next_entry, as "
                    "grub-reboot does). Debian/Ubuntu GRUB layout only; anything else is "
                    "refused with nothing changed (exit 64). A failing step is undone "
                    "(exit %d)." % (SCRIPT_NAME, EXIT_GRUB_FAILED))
    p.add_argument("--elf", metavar="PATH",
                   help="kernel to install (default: build/debug/memboot.elf)")
    p.add_argument("--append", action="append", default=[], metavar="ARGS",
                   help="kernel command-line words for the entry; may be given more than "
                        "once (%s is added unless a memboot.exit= word is given or "
                        "--no-exit-reboot)" % DEFAULT_EXIT)
    p.add_argument("--no-exit-reboot", action="store_true",
                   help="do not add %s (the machine then halts with the result on its "
                        "screen)" % DEFAULT_EXIT)
    p.add_argument("--once", action="store_true",
                   help="the next boot only: grub-editenv grubenv set next_entry=%s" % ENTRY_ID)
    bootnext.add_options(p)
    _common(p)
    p.set_defaults(func=cmd_install, subparser=p)

    u = sub.add_parser(
        "uninstall", allow_abbrev=False,
        help="remove what install added (and a next_entry naming memboot)",
        description="Clear grubenv's next_entry if it names memboot, remove "
                    "/etc/grub.d/%s and /boot/memboot/%s, and regenerate grub.cfg."
                    % (SCRIPT_NAME, KERNEL_NAME))
    bootnext.add_uninstall_options(u)
    _common(u)
    u.set_defaults(func=cmd_uninstall, subparser=u)


def _common(p):
    p.add_argument("--root", type=root_arg, metavar="DIR",
                   help="work on the tree under DIR (a mounted image or chroot) instead "
                        "of /: grub.cfg under DIR is edited, not regenerated by "
                        "grub-mkconfig, which would probe this machine")
    p.add_argument("--dry-run", action="store_true",
                   help="print every file and command, change nothing")
