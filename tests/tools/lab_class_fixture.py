#!/usr/bin/env python3
"""The example class of docs/teaching.md ("Running a course"): one
allocator file per student, as `tools/memboot lab new` writes it and the
student filled it in, each with the verdict `lab grade --class` must give.

    python3 tests/tools/lab_class_fixture.py DIR      # writes DIR/STUDENT.c

Two reference designs are the students' starting points: the skeleton with
its TODO(lab) ops filled by first fit (tests/tools/fixtures/lab/firstfit.ops)
and a buddy allocator (tests/tools/fixtures/lab/buddy.c.in). Every other
submission is one of them with one bug, made by a text edit that must
apply (a changed reference fails here, not as a wrong verdict later).
Several students chose the same allocator name (`myalloc`, as the docs
suggest): the grader builds each alone.
"""
import os
import re
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKELETON = os.path.join(REPO_ROOT, "tools", "mbtools", "lab_skeleton.c.in")
FIXTURES = os.path.join(REPO_ROOT, "tests", "tools", "fixtures", "lab")
FIRSTFIT_OPS = os.path.join(FIXTURES, "firstfit.ops")
BUDDY = os.path.join(FIXTURES, "buddy.c.in")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def fill_todos(text, name, ops_file=FIRSTFIT_OPS):
    """@text (a skeleton) with each TODO(lab) region replaced by the body of
    that op in @ops_file: what a student does by hand."""
    sections = re.split(r"^=== (\w+)\n", read(ops_file), flags=re.M)[1:]
    bodies = dict(zip(sections[0::2], sections[1::2]))
    for op, body in bodies.items():
        text, n = re.subn(r"\t/\* TODO\(lab\) %s:.*?/\* END TODO\(lab\) %s \*/\n" % (op, op),
                          lambda m: body.replace("@NAME@", name), text, flags=re.S)
        assert n == 1, "no TODO(lab) %s region in the skeleton" % op
    return text


def firstfit(name):
    return fill_todos(read(SKELETON).replace("@NAME@", name), name)


def buddy(name):
    return read(BUDDY).replace("@NAME@", name)


# The first-fit search of firstfit.ops, and the same search done twice (the
# slow student: the same blocks, about twice the instructions per alloc).
FF_SEARCH = """\t\tzlock(z);
\t\t/* First fit: the lowest naturally aligned run of n free bits. */
\t\tfor (uint64_t i = find_bit(z->bits, z->lo, z->hi, true); i < z->hi;) {
\t\t\tuint64_t a = ((base + i + n - 1) & ~(n - 1)) - base;
\t\t\tif (a + n > z->hi)
\t\t\t\tbreak;
\t\t\tuint64_t used = find_bit(z->bits, a, a + n, false);
\t\t\tif (used == a + n) {
\t\t\t\tfound = a;
\t\t\t\tbreak;
\t\t\t}
\t\t\ti = find_bit(z->bits, used + 1, z->hi, true);
\t\t}
"""
FF_SEARCH_TWICE = ("\t\tzlock(z);\n\t\tfor (int pass = 0; pass < 2; pass++) {   "
                   "/* the search twice, to be sure */\n\t\tuint64_t first = found;\n"
                   "\t\tfound = z->hi;\n" + FF_SEARCH[len("\t\tzlock(z);\n"):] +
                   "\t\tASSERT(pass == 0 || found == first, \"@NAME@: the searches differ\");\n"
                   "\t\t}\n")

# name: (file maker, allocator name, [(old, new)], the verdict, what is wrong)
STUDENTS = {
    "ada": (firstfit, "myalloc", [], "PASS", "first fit, right"),
    "bob": (buddy, "mybuddy", [], "PASS", "buddy, right"),
    "cyd": (firstfit, "myalloc", [
        ("\tset_bits(z->bits, i, n, true);\n\tz->free_pages += n;",
         "\tset_bits(z->bits, i, 1, true);   /* the bug: only the first page back */\n"
         "\tz->free_pages += 1;")], "FAIL", "leaks: a free gives back one page of the block"),
    "dot": (buddy, "mybuddy", [
        ("\t\tuint64_t b = pfn ^ size;", "\t\tuint64_t b = pfn + size;   /* the bug */")],
        "FAIL", "wrong merge: the buddy taken as the next block"),
    "eli": (firstfit, "myalloc", [
        ("\t\tzlock(z);\n\t\t/* First fit", "\t\t/* the bug: no lock */\n\t\t/* First fit"),
        ("\t\t\tz->free_pages -= n;\n\t\t}\n\t\tspin_unlock(&z->lock);\n",
         "\t\t\tz->free_pages -= n;\n\t\t}\n")],
        "FAIL", "racy: alloc takes no lock"),
    "fay": (buddy, "mybuddy", [
        ("\t\tif (pfn != ALLOC_NO_PFN)   /* its head says \"not free\" before anyone can look */\n"
         "\t\t\tmemmap_write_head(desc(z, pfn), PAGE_ALLOCATED, order, z->zone, 0, 1);\n", "")],
        "FAIL", "late descriptor: the head written after the lock is dropped"),
    "gil": (firstfit, "myalloc", [
        ("\t\t\ti = find_bit(z->bits, used + 1, z->hi, true);",
         "\t\t\ti = order == ALLOC_MAX_ORDER ? z->lo   /* the bug: starts over */\n"
         "\t\t\t\t: find_bit(z->bits, used + 1, z->hi, true);")],
        "FAIL", "hangs: the order-10 search starts over for ever"),
    "hap": (firstfit, "myalloc", [
        ("\tint top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;\n",
         "\tint top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;\n"
         "\t/* the bug: a node with no memory below 4 GiB has no such zone */\n"
         "\tzone_of(self, node, PAGE_ZONE_DMA32)->cursor++;\n")],
        "FAIL", "crashes: a NULL zone dereferenced"),
    "ivo": (firstfit, "myalloc", [
        ("static uint64_t @NAME@_alloc(", "static uint64_t search(uint64_t i)   /* never used */\n"
         "{\n\treturn i;\n}\n\nstatic uint64_t @NAME@_alloc(")],
        "FAIL", "does not compile: 'search' defined but not used"),
    "jan": (firstfit, "myalloc", [
        ("\tint top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;\n",
         "\treturn ALLOC_NO_PFN;   /* the bug: never hands anything out */\n"
         "\tint top = flags & ALLOC_DMA32 ? PAGE_ZONE_DMA32 : PAGE_NR_ZONES - 1;\n")],
        "FAIL", "hands out nothing: alloc always says no memory"),
    "kit": (firstfit, "slowfit", [(FF_SEARCH, FF_SEARCH_TWICE)], "PASS",
            "first fit searching twice: right, slower"),
}


def submission(student, name=None):
    """The text of @student's file (its allocator named @name if given)."""
    make, own, edits, _, _ = STUDENTS[student]
    name = name or own
    text = make(name)
    for old, new in edits:
        old, new = old.replace("@NAME@", name), new.replace("@NAME@", name)
        assert text.count(old) == 1, "%s: the edit does not apply once: %r" % (student, old)
        text = text.replace(old, new)
    return text


def make_class(directory, students=None):
    os.makedirs(directory, exist_ok=True)
    for s in students or STUDENTS:
        with open(os.path.join(directory, s + ".c"), "w", encoding="utf-8") as f:
            f.write(submission(s))
    return directory


def main(argv):
    if len(argv) != 2:
        print("usage: %s DIR" % argv[0], file=sys.stderr)
        return 64
    make_class(argv[1])
    print("wrote %d submissions to %s: %s" % (len(STUDENTS), argv[1], ", ".join(
        "%s (%s)" % (s, STUDENTS[s][4]) for s in STUDENTS)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
