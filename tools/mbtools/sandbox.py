"""sandbox: run untrusted code (a student's allocator) apart and bounded.

    box = sandbox.make("auto", writable=[tree], readable=[shared], user="nobody")
    r = box.run(["make", "-s", "kernel"], cwd=tree, timeout_s=300, mem_mib=2048)
    r.rc, r.out, r.err, r.timed_out, r.seconds, box.method, box.warning

`lab grade --class` (tools/mbtools/lab_class.py) builds and runs every
student's code through one of these. Every command is bounded whatever the
method: a wall-clock limit (the whole process group is killed past it), and
prlimit's CPU time, address space (unless mem_mib is None: ASan's shadow
needs terabytes of it, and ASAN_OPTIONS bounds its memory instead), file
size, process count and no core files. Output is kept to its first and
last MAX_KEEP bytes. The methods, the first that works here is taken by
"auto":

  bwrap    bubblewrap: new user, PID, network, IPC and UTS namespaces; a
           filesystem of /usr and /etc read-only, fresh /proc, /dev and
           /tmp, the @writable directories and nothing else writable, the
           @readable ones read-only, nothing else (no /home, /root, /work);
           no network at all; killed with its parent
  unshare  util-linux's unshare: no network, own PID namespace; the whole
           filesystem stays visible with the user's rights (a warning says so)
  none     no namespace could be made: only the user and the limits apply
           (a warning says so)

As root, commands run as @user (default nobody) through setpriv, with no
supplementary groups; as anyone else, as themselves (already unprivileged).
"""
import copy
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
import time

METHODS = ("auto", "bwrap", "unshare", "none")
MAX_KEEP = 4 << 20          # bytes of each output stream kept, head and tail
NPROC = 4096                # processes of the user, every student's together
FSIZE_MIB = 1024            # largest file a command may write
TRUNCATED = "\n[... %d bytes left out ...]\n"


class SandboxError(Exception):
    """The sandbox asked for cannot be made (an unknown user, a method that
    does not work here): a usage error of the caller."""


class Result:
    def __init__(self, rc, out, err, timed_out, seconds):
        self.rc, self.out, self.err = rc, out, err
        self.timed_out, self.seconds = timed_out, seconds


def _read_kept(f):
    """A stream's text: all of it, or its first and last MAX_KEEP / 2
    bytes with what was left out counted."""
    f.seek(0, os.SEEK_END)
    size = f.tell()
    f.seek(0)
    if size <= MAX_KEEP:
        data = f.read()
    else:
        head = f.read(MAX_KEEP // 2)
        f.seek(size - MAX_KEEP // 2)
        data = head + (TRUNCATED % (size - MAX_KEEP)).encode() + f.read()
    return data.decode("utf-8", errors="replace")


_live = set()          # process groups running now (kill_all())
_live_lock = threading.Lock()
_stopping = False


def kill_all():
    """End every command run_bounded() is running, and any it would start
    (the grader was told to stop)."""
    global _stopping
    with _live_lock:
        _stopping = True
        for pgid in list(_live):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass


def run_bounded(argv, cwd, timeout_s, env=None, prefix=()):
    """@argv (after @prefix, the sandbox's own words) in its own session,
    killed with its whole process group after @timeout_s: a Result."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.monotonic()
        with _live_lock:
            if _stopping:
                return Result(None, "", "not run: the grader is stopping", True, 0.0)
            try:
                p = subprocess.Popen(list(prefix) + list(argv), cwd=cwd, env=env,
                                     stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                     start_new_session=True)
            except OSError as e:
                return Result(127, "", "cannot run %s: %s" % (argv[0], e.strerror or e), False,
                              0.0)
            _live.add(p.pid)
        timed_out = False
        try:
            rc = p.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            rc = p.wait()
        # What it started and left behind in its group goes too.
        with _live_lock:
            _live.discard(p.pid)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        return Result(rc, _read_kept(out), _read_kept(err), timed_out, time.monotonic() - t0)


def _limits(timeout_s, mem_mib, cpus):
    words = ["prlimit", "--core=0", "--fsize=%d" % (FSIZE_MIB << 20), "--nproc=%d" % NPROC,
             "--cpu=%d" % max(1, int(timeout_s * cpus + 1))]
    if mem_mib is not None:
        words.append("--as=%d" % (mem_mib << 20))
    return words + ["--"]


class Sandbox:
    def __init__(self, method, writable, readable, user):
        self.method = method
        self.writable = [os.path.abspath(d) for d in writable]
        self.readable = [os.path.abspath(d) for d in readable]
        self.warning = None
        self.tmp = None
        self.cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
        self.as_user = []
        self.uid = self.gid = None
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam(user)
            except KeyError:
                raise SandboxError("sandbox user %r: no such user (useradd --system %s, or "
                                   "--user NAME)" % (user, user)) from None
            if pw.pw_uid == 0:
                raise SandboxError("sandbox user %r is root: name an unprivileged one" % user)
            self.uid, self.gid, self.user = pw.pw_uid, pw.pw_gid, user
            self.as_user = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                            "--clear-groups", "--"]
        else:
            self.user = pwd.getpwuid(os.geteuid()).pw_name

    def for_student(self, tree, readable=()):
        """This sandbox for one student: @tree writable (its /tmp there too
        unless bwrap makes a private one), @readable read-only."""
        box = copy.copy(self)
        box.writable = [os.path.abspath(tree)]
        box.readable = [os.path.abspath(d) for d in readable]
        box.tmp = os.path.join(box.writable[0], ".tmp")
        os.makedirs(box.tmp, exist_ok=True)
        return box

    def give(self, path):
        """@path (a tree made for one student) owned by the sandbox's user,
        so that its commands may write there and nowhere else."""
        if self.uid is None:
            return
        for top, dirs, files in os.walk(path):
            os.lchown(top, self.uid, self.gid)
            for name in dirs + files:
                os.lchown(os.path.join(top, name), self.uid, self.gid)

    def _words(self, cwd):
        if self.method == "bwrap":
            words = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
                     "--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"]
            for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
                if os.path.islink(top):
                    words += ["--symlink", os.readlink(top), top]
                elif os.path.isdir(top):
                    words += ["--ro-bind", top, top]
            words += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
            for d in self.readable:
                words += ["--ro-bind", d, d]
            for d in self.writable:
                words += ["--bind", d, d]
            return self.as_user + words + ["--chdir", cwd, "--"]
        if self.method == "unshare":
            if self.uid is None:     # not root: a user namespace of one's own
                return ["unshare", "--user", "--map-current-user", "--net", "--pid",
                        "--fork", "--kill-child", "--"]
            return ["unshare", "--net", "--pid", "--fork", "--kill-child", "--"] + self.as_user
        return self.as_user

    def env(self, extra=None):
        """The environment a sandboxed command gets: nothing of the grader's
        but a plain PATH, locale and a private /tmp (bwrap's)."""
        tmp = "/tmp" if self.method == "bwrap" else (self.tmp or tempfile.gettempdir())
        e = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmp,
             "TMPDIR": tmp}
        e.update(extra or {})
        return e

    def run(self, argv, cwd, timeout_s, mem_mib=2048, env=None):
        prefix = _limits(timeout_s, mem_mib, self.cpus) + self._words(cwd)
        return run_bounded(argv, cwd, timeout_s, env=self.env(env), prefix=prefix)


def _works(box):
    """None if @box runs a command here, else what it said."""
    with tempfile.TemporaryDirectory(prefix="memboot-sandbox-probe-") as d:
        os.chmod(d, 0o755)
        box.give(d)
        box.writable = [d]
        r = box.run(["sh", "-c", "echo ok > probe && cat probe"], cwd=d, timeout_s=30,
                    mem_mib=512)
        box.writable = []
        if r.rc == 0 and r.out.strip() == "ok":
            return None
        return (r.err.strip().splitlines() or ["status %s" % r.rc])[-1]


def make(method, writable=(), readable=(), user="nobody"):
    """A Sandbox of @method ("auto": the first of bwrap, unshare that works
    here, else none) with its .warning set when it is weaker than bwrap."""
    if method not in METHODS:
        raise SandboxError("sandbox %r: one of %s" % (method, ", ".join(METHODS)))
    tried = []
    for m in (("bwrap", "unshare", "none") if method == "auto" else (method,)):
        if m != "none" and not shutil.which(m.split()[0]):
            tried.append("%s: not installed (tools/setup-deps.sh)" % m)
            continue
        box = Sandbox(m, (), (), user)
        problem = None if m == "none" else _works(box)
        if problem and method != "auto":
            raise SandboxError("sandbox %s does not work here: %s" % (m, problem))
        if problem:
            tried.append("%s: %s" % (m, problem))
            continue
        box.writable = [os.path.abspath(d) for d in writable]
        box.readable = [os.path.abspath(d) for d in readable]
        why = "; ".join(tried) or "--sandbox %s" % m
        if m == "unshare":
            box.warning = ("no bubblewrap sandbox (%s): student code runs with no network and "
                           "in its own PID namespace as %s, but sees the whole filesystem "
                           "with that user's rights" % (why, box.user))
        elif m == "none":
            box.warning = ("no namespace could be made (%s): student code runs as %s with the "
                           "host's network and filesystem; only the time and memory limits "
                           "apply" % (why, box.user))
        return box
    raise SandboxError("no sandbox works here: " + "; ".join(tried))
