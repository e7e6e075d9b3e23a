"""tools/memboot lab grade --class DIR --csv FILE: a course's allocators, graded in one command.

    tools/memboot lab grade --class submissions/ --csv grades.csv --json grades.json

DIR holds one allocator file per student, STUDENT.c, as `lab new` wrote it
and the student filled it in; its ops may be named after any NAME (the
grader finds `const struct alloc_ops NAME_alloc_ops`). The tree is copied
and built once (the shared build: the host suite's library, the lab's three
harnesses, the kernel's objects, as the user who runs the command); then
each student gets a copy of that of their own, their file as
mm/alloc/NAME.c and X(NAME) in mm/alloc/table.h, and lab_kit.grade() runs
there, every command through a sandbox (tools/mbtools/sandbox.py: as an
unprivileged user, no network, bounded in time and memory). Students never
share a build: a file that does not compile, hangs or scribbles fails its
own row. Output: one CSV row per student (a column per check, the first
message, the times, the counted performance figures and index), the same
as JSON, and a report file per student with every check's whole output.
docs/teaching.md, "Running a course".
"""
import concurrent.futures
import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

from mbtools import facts, inputs, lab_kit, sandbox

STUDENT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}", re.ASCII)
MAX_SOURCE_BYTES = 1 << 20
STUDENT_BUDGET_S = 900
MODE = os.environ.get("MODE", "debug")
# What a student's grade needs of the shared build (everything else of
# build/ is left out of the copies).
BUILD_PARTS = ("host/obj", "host/libmemboot-host.a", "host/test_alloc", "bench/labobj",
               "bench/countobj", "bench/stressobj", "bench/host", "bench/lab",
               "bench/lab-counted", "bench/lab-stress", MODE, ".deps-ok", ".host-deps-ok")
CSV_CHECKS = ("todo", "build", "suite", "lab", "stress", "guest", "hidden")
CSV_FIGURES = ("ir_per_op", "d1_miss_per_op", "ll_miss_per_op", "locks_per_op",
               "est_cycles_per_op")


class ClassError(Exception):
    """A usage error of lab grade --class (exit 64): found before any grade."""


def tree_files(root):
    """The tree's files a copy needs: git's list (tracked, and untracked
    ones not ignored) where there is a repository, else every file but
    build/ and .git/."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], cwd=root, capture_output=True,
                             check=True).stdout
        files = [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for top, dirs, names in os.walk(root):
            dirs[:] = [d for d in dirs if not (top == root and d in ("build", ".git"))]
            files += [os.path.relpath(os.path.join(top, n), root) for n in names]
    return [f for f in files if os.path.isfile(os.path.join(root, f))
            and not f.startswith("build/")]


def copy_tree(src, dst, files):
    for rel in files:
        d = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(os.path.join(src, rel), d, follow_symlinks=False)


def copy_build(src_build, dst_build, parts=BUILD_PARTS):
    """The parts of @src_build a grade needs, with their times (so make
    rebuilds only what a student's file changes); the ISO and images not."""
    def images(folder, names):
        # The kernel's ISO, ESP image and UEFI loader: a grade boots the ELF.
        top = os.path.basename(folder) == MODE
        return [n for n in names if n.endswith((".iso", ".img")) or (top and n == "efi")]

    for part in parts:
        s, d = os.path.join(src_build, part), os.path.join(dst_build, part)
        if os.path.isdir(s) and not os.path.islink(s):
            shutil.copytree(s, d, symlinks=True, dirs_exist_ok=True, ignore=images)
        elif os.path.lexists(s):
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy2(s, d, follow_symlinks=False)


def world_readable(top):
    for folder, dirs, files in os.walk(top):
        os.chmod(folder, 0o755)
        for f in files:
            p = os.path.join(folder, f)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | 0o444)


class Course:
    def __init__(self, args, out=sys.stdout, err=sys.stderr):
        self.args, self.out, self.err = args, out, err
        self.lock = threading.Lock()
        self.rows = []
        self.stopping = False

    def say(self, text):
        with self.lock:
            print(text, file=self.err, flush=True)

    # -- before anything runs: every input and output checked --

    def check_inputs(self):
        a = self.args
        if not os.path.isdir(a.klass):
            raise ClassError("--class %s: not a directory" % a.klass)
        if not a.csv:
            raise ClassError("--class needs --csv FILE (the table of verdicts)")
        for what, path in (("--csv", a.csv), ("--json", a.json)):
            if path:
                problem = inputs.output_problem(path)
                if problem:
                    raise ClassError("%s: %s" % (what, problem))
        self.reports = os.path.abspath(a.reports or os.path.splitext(a.csv)[0] + "-reports")
        if os.path.exists(self.reports) and not os.path.isdir(self.reports):
            raise ClassError("--reports %s: exists and is not a directory" % self.reports)
        entries = sorted(os.listdir(a.klass))
        self.students = [e for e in entries if e.endswith(".c")]
        self.ignored = [e for e in entries if not e.endswith(".c")]
        if not self.students:
            raise ClassError("--class %s: no STUDENT.c file in it" % a.klass)
        try:
            self.hidden = lab_kit.HiddenSet(a.hidden) if a.hidden else None
        except lab_kit.KitError as e:
            raise ClassError(str(e)) from None
        if a.jobs is not None and not 1 <= a.jobs <= 64:
            raise ClassError("--jobs %d: 1 to 64" % a.jobs)

    # -- the shared build --

    def shared_build(self):
        t0 = time.monotonic()
        self.tmp = tempfile.mkdtemp(prefix="memboot-class-")
        os.chmod(self.tmp, 0o711)   # the sandbox's user reaches its own tree, lists none
        self.base = os.path.join(self.tmp, "base")
        copy_tree(lab_kit.REPO_ROOT, self.base, tree_files(lab_kit.REPO_ROOT))
        here = os.path.join(lab_kit.REPO_ROOT, "build")
        self.newlib = os.path.join(self.tmp, "newlib")
        if os.path.isdir(here):
            # The reference designs' counted figures too, if the tree has
            # them for these objects (lab_kit.reference_figures() checks).
            copy_build(here, os.path.join(self.base, "build"),
                       BUILD_PARTS + ("lab/counted-references.json",))
            if os.path.isdir(os.path.join(here, "newlib", "x86_64-elf")):
                self.use_newlib(os.path.join(here, "newlib"))
        targets = ["build/host/test_alloc", "build/bench/lab", "build/bench/lab-stress",
                   "build/bench/lab-counted"] + ([] if self.args.no_guest else ["kernel"])
        r = sandbox.run_bounded(["make", "-s", "-j%d" % self.cpus] + targets, self.base,
                                lab_kit.BUILD_TIMEOUT_S * 3, env=dict(os.environ, MAKEFLAGS=""))
        if r.rc != 0:
            raise lab_kit.KitError("the shared build of the tree failed (no student's file "
                                   "in it yet):\n" + "\n".join(lab_kit.build_detail(r.out, r.err)))
        if not os.path.isdir(self.newlib):   # built just now, into the user's cache
            self.use_newlib(os.path.join(self.base, "build", "newlib"))
        world_readable(self.base)
        world_readable(self.newlib)
        self.shared_s = time.monotonic() - t0
        self.say("memboot lab grade: shared build %.0f s (%s)" % (self.shared_s, self.base))

    def use_newlib(self, built):
        """A copy of the kernel's libc (@built: a tree's build/newlib, a link
        into the user's cache the sandbox cannot read) for every tree of the
        class, which links build/newlib to it; its stamp made newer than
        tools/build-newlib.sh, so that no make sets out to build it again."""
        if not os.path.isdir(self.newlib):
            shutil.copytree(os.path.realpath(built), self.newlib, symlinks=False,
                            ignore=shutil.ignore_patterns("newlib-*"))
            os.utime(os.path.join(self.newlib, ".stamp"))
        link = os.path.join(self.base, "build", "newlib")
        if os.path.lexists(link) and os.path.realpath(link) != self.newlib:
            shutil.rmtree(link) if not os.path.islink(link) else os.unlink(link)
        if not os.path.lexists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(self.newlib, link)

    def references(self):
        if not self.counted:
            return None
        work = os.path.join(self.base, "build", "grade")
        os.makedirs(work, exist_ok=True)
        t0 = time.monotonic()
        refs = lab_kit.reference_figures(self.base, lab_kit.Here(self.base), work,
                                         self.args.seed)
        self.say("memboot lab grade: reference designs counted (%s) in %.0f s" % (
            ", ".join(lab_kit.REFERENCES), time.monotonic() - t0))
        return refs

    # -- one student --

    def student_tree(self, student, name, source):
        tree = os.path.join(self.tmp, "students", student)
        copy_tree(self.base, tree, tree_files_of_base(self.base))
        copy_build(os.path.join(self.base, "build"), os.path.join(tree, "build"))
        os.symlink(self.newlib, os.path.join(tree, "build", "newlib"))
        path = os.path.join(tree, "mm", "alloc", name + ".c")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        table = lab_kit.table_with(tree, name)
        with open(os.path.join(tree, "mm", "alloc", "table.h"), "w", encoding="utf-8") as f:
            f.write(table)
        os.makedirs(os.path.join(tree, "build", "grade"), exist_ok=True)
        return tree, path

    def grade_one(self, student_file):
        student = student_file[:-2]
        if self.stopping:
            return None
        t0 = time.monotonic()
        row = {"student": student, "file": os.path.join(self.args.klass, student_file),
               "allocator": "", "result": "FAIL", "checks": {}, "first_failure": "",
               "seconds": 0.0, "step_seconds": {}, "counted": None, "report": ""}
        tree = None
        try:
            if not STUDENT_RE.fullmatch(student):
                raise lab_kit.KitError("the file name %r: a student's name is letters, digits, "
                                       "_ . - (up to 64)" % student_file)
            try:
                source = inputs.read_input(row["file"], "submission",
                                           MAX_SOURCE_BYTES).decode("utf-8")
            except UnicodeDecodeError as e:
                raise lab_kit.KitError("%s is not UTF-8 text (byte %d)" % (row["file"], e.start))
            except inputs.InputError as e:
                raise lab_kit.KitError(str(e))
            name = lab_kit.ops_name(source)
            row["allocator"] = name
            if not lab_kit.NAME_RE.fullmatch(name):
                raise lab_kit.KitError("allocator name %r: a lower-case letter, then up to 14 "
                                       "letters, digits or _" % name)
            if name in self.tree_allocators:
                raise lab_kit.KitError("allocator name %r is the tree's own design: name it "
                                       "otherwise (`lab new` refuses it too)" % name)
            problem = lab_kit.identifier_problem(name, self.base)
            if problem:
                raise lab_kit.KitError(problem)
            tree, path = self.student_tree(student, name, source)
            box = self.box.for_student(tree, readable=[self.newlib])
            box.give(tree)
            g = lab_kit.grade(name, guest=not self.args.no_guest, root=tree,
                              runner=lab_kit.Boxed(tree, box), seed=self.args.seed,
                              hidden=self.hidden, counted=self.counted,
                              references=self.refs, jobs=1, budget_s=self.args.student_limit_s,
                              path=path, quiet=True, trace=self.trace)
            row.update(result="PASS" if g.passed else "FAIL", counted=g.counted)
            for c in g.checks:
                row["checks"][c.key] = c.verdict
                row["step_seconds"][c.key] = round(c.seconds, 1)
            first = next((c for c in g.checks if c.verdict == "FAIL"), None)
            row["first_failure"] = "%s: %s" % (first.key, first.first) if first else ""
            text = self.report_text(row, g)
        except lab_kit.KitError as e:
            row["checks"] = {k: "SKIP" for k in CSV_CHECKS}
            row["first_failure"] = "submission: %s" % e
            text = "memboot lab grade --class: %s\n  [FAIL] the submission: %s\nresult: FAIL\n" % (
                student, e)
        except Exception as e:   # noqa: BLE001 - one student's grade never ends the class's
            row["result"] = "ERROR"
            row["first_failure"] = "the grader failed on this submission: %s: %s" % (
                type(e).__name__, e)
            text = "memboot lab grade --class: %s\nERROR: %s\n" % (student, row["first_failure"])
        finally:
            if tree and not self.args.keep:
                shutil.rmtree(tree, ignore_errors=True)
        row["seconds"] = round(time.monotonic() - t0, 1)
        row["report"] = os.path.join(self.reports, student + ".txt")
        with open(row["report"], "w", encoding="utf-8") as f:
            f.write(text)
        with self.lock:
            self.rows.append(row)
            done = len(self.rows)
        self.say("[%d/%d] %s (%s): %s%s, %.0f s" % (
            done, len(self.students), student, row["allocator"] or "?", row["result"],
            " (%s)" % row["first_failure"][:120] if row["first_failure"] else "",
            row["seconds"]))
        return row

    def report_text(self, row, g):
        import io
        buf = io.StringIO()
        print("student %s, %s (allocator %s), graded in %.0f s; sandbox %s as %s%s" % (
            row["student"], row["file"], row["allocator"], g.seconds, self.box.method,
            self.box.user, ("; " + self.box.warning) if self.box.warning else ""), file=buf)
        lab_kit.report(g, buf, full=True)
        return buf.getvalue()

    # -- all of it --

    def run(self):
        a = self.args
        self.check_inputs()
        self.cpus = len(os.sched_getaffinity(0))
        jobs = a.jobs or min(self.cpus, 8)
        self.box = sandbox.make(a.sandbox, user=a.user)
        self.counted = shutil.which("valgrind") is not None
        if self.box.warning:
            self.say("memboot lab grade: warning: " + self.box.warning)
        if not self.counted:
            self.say("memboot lab grade: warning: valgrind is not installed (tools/setup-deps.sh):"
                     " no counted figures and no performance index")
        os.makedirs(self.reports, exist_ok=True)
        t0 = time.monotonic()

        def stop(signum, frame):
            # Every command running now is killed and none starts: the
            # students' grades end at once, and the scratch trees go.
            self.stopping = True
            sandbox.kill_all()
            raise SystemExit(128 + signum)
        old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.shared_build()
            self.tree_allocators = facts.parse_allocators(lab_kit._read(os.path.join(
                self.base, "mm", "alloc", "table.h")))
            if self.hidden:
                hidden_dir = os.path.join(self.base, "build", "hidden")
                os.makedirs(hidden_dir, exist_ok=True)
                self.hidden.prepare(hidden_dir)
            self.refs = self.references()
            work = os.path.join(self.base, "build", "grade")
            os.makedirs(work, exist_ok=True)
            self.trace = lab_kit.prepare_trace(work)
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                list(pool.map(self.grade_one, self.students))
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
            if getattr(self, "tmp", None) and not a.keep:
                shutil.rmtree(self.tmp, ignore_errors=True)
            elif getattr(self, "tmp", None):
                self.say("memboot lab grade: kept the scratch trees in %s" % self.tmp)
        wall = time.monotonic() - t0
        self.rows.sort(key=lambda r: r["student"])
        rank(self.rows)
        self.write(wall, jobs)
        self.print_table(wall, jobs)
        return 1 if any(r["result"] == "ERROR" for r in self.rows) else 0

    def write(self, wall, jobs):
        a = self.args
        header = (["student", "file", "allocator", "result", "passed", "checks"] +
                  list(CSV_CHECKS) + ["first_failure", "seconds"] +
                  ["%s_s" % k for k in CSV_CHECKS] + list(CSV_FIGURES) +
                  ["perf_index", "rank", "report"])
        tmp = a.csv + ".part"
        with open(tmp, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(header)
            for r in self.rows:
                checks = [r["checks"].get(k, "") for k in CSV_CHECKS]
                c = r["counted"] or {}
                w.writerow([r["student"], r["file"], r["allocator"], r["result"],
                            sum(v == "PASS" for v in checks),
                            sum(v in ("PASS", "FAIL", "SKIP") for v in checks)] + checks +
                           [r["first_failure"], r["seconds"]] +
                           [r["step_seconds"].get(k, "") for k in CSV_CHECKS] +
                           [("%.3f" % c[k]) if k in c else "" for k in CSV_FIGURES] +
                           [("%.1f" % c["index"]) if "index" in c else "", r.get("rank", ""),
                            r["report"]])
        os.replace(tmp, a.csv)
        if a.json:
            doc = {"class": a.klass, "seed": a.seed, "jobs": jobs, "wall_s": round(wall, 1),
                   "shared_build_s": round(getattr(self, "shared_s", 0.0), 1),
                   "sandbox": {"method": self.box.method, "user": self.box.user,
                               "warning": self.box.warning,
                               "student_limit_s": a.student_limit_s,
                               "step_limits_s": {"build": lab_kit.BUILD_TIMEOUT_S,
                                                 "suite": lab_kit.SUITE_TIMEOUT_S,
                                                 "lab_row": lab_kit.LAB_ROW_TIMEOUT_S,
                                                 "stress_row": lab_kit.STRESS_ROW_TIMEOUT_S,
                                                 "guest": lab_kit.BOOT_TIMEOUT_S},
                               "memory_mib": lab_kit.MEM_MIB},
                   "hidden": bool(self.hidden), "ignored_files": self.ignored,
                   "references": {k: v for k, v in (self.refs or {}).items()},
                   "students": [dict(r, counted={k: v for k, v in (r["counted"] or {}).items()
                                                 if k != "references"} or None)
                                for r in self.rows]}
            tmp = a.json + ".part"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(doc, f, indent=1)
            os.replace(tmp, a.json)

    def print_table(self, wall, jobs):
        print("| student | allocator | result | first failure | index | rank | s |", file=self.out)
        print("|---|---|---|---|---|---|---|", file=self.out)
        for r in self.rows:
            c = r["counted"] or {}
            print("| %s | %s | %s | %s | %s | %s | %.0f |" % (
                r["student"], r["allocator"] or "-", r["result"],
                r["first_failure"].replace("|", "/") or "-",
                "%.0f" % c["index"] if "index" in c else "-", r.get("rank", "-"),
                r["seconds"]), file=self.out)
        print("%d students graded in %.0f s (%d at a time on %d CPUs; shared build %.0f s; "
              "sandbox %s); wrote %s%s and %d reports in %s" % (
                  len(self.rows), wall, jobs, self.cpus, getattr(self, "shared_s", 0.0),
                  self.box.method, self.args.csv, ", " + self.args.json if self.args.json else "",
                  len(self.rows), self.reports), file=self.out)
        if self.ignored:
            print("not graded (not a .c file): " + ", ".join(self.ignored), file=self.out)


def tree_files_of_base(base):
    files = []
    for top, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if not (top == base and d == "build")]
        files += [os.path.relpath(os.path.join(top, n), base) for n in names]
    return files


def rank(rows):
    """Each passing row's place by performance index (1: the highest)."""
    ranked = sorted((r for r in rows if r["result"] == "PASS" and (r["counted"] or {}).get(
        "index") is not None), key=lambda r: -r["counted"]["index"])
    for i, r in enumerate(ranked, 1):
        r["rank"] = i


def main(args):
    try:
        return Course(args).run()
    except (ClassError, sandbox.SandboxError) as e:
        print("memboot lab: %s" % e, file=sys.stderr)
        return facts.EXIT_USAGE
    except lab_kit.KitError as e:
        print("memboot lab: %s" % e, file=sys.stderr)
        return 1
