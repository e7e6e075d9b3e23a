"""One boot state, owned by kernel/init/main.c (docs/design.md, "The boot state").

What one phase builds and a later one reads (the boot information, physmem,
the parsed ACPI tables, the NUMA topology, the page descriptors, the huge
page pools) lives in main.c's struct boot_state and reaches each phase as a
pointer. These tests keep it so: no kernel source defines or declares a
file-scope instance of those types, main.c's boot_state holds each of them,
and every phase line that uses the state passes it through `&bs.`.

Beyond those types: no phase file (kernel/init/*.c) holds mutable state of
its own: no file-scope object that is not const, static or not, and no
static object in a function, but main.c's `bs` (docs/design.md, "Where
things go"). State that outlives a call is a member of struct boot_state;
a report made later works on console_defer_copy()'s copy. A counter one
phase sets and another reads would be state shared behind the boot state's
back, and a phase's own static the same sharing inside one file.

    python3 -m unittest tests/tools/test_boot_state.py -v
"""

import os
import re
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SOURCE_DIRS = ("arch", "boot", "kernel", "mm")
MAIN = "kernel/init/main.c"
PHASE_DIR = "kernel/init"

# A file-scope object (not a pointer) of one of the boot state's types,
# defined or declared extern: "struct physmem physmem;", "extern struct
# memmap mm;", "static struct numa_topology topo = {...};". The types are
# read from struct boot_state itself (STATE_TYPES, below): a part added
# there is guarded here with no list to edit.
INSTANCE_FORM = (r"^(?:extern\s+|static\s+)?(?:const\s+)?struct\s+(%s)\s+(\w+)\s*"
                 r"(?:\[[^\]]*\])?\s*[;=]")
# Parts every boot state has had since the start: a parse of main.c that
# finds fewer is a broken parse, not a smaller state.
CORE_PARTS = {"bootinfo": "bootinfo", "physmem": "physmem", "memmap": "memmap"}


def sources():
    for top in SOURCE_DIRS:
        for root, _, files in os.walk(os.path.join(REPO_ROOT, top)):
            for name in files:
                if name.endswith((".c", ".h")):
                    path = os.path.join(root, name)
                    yield os.path.relpath(path, REPO_ROOT)


def read(path):
    with open(os.path.join(REPO_ROOT, path), encoding="utf-8") as f:
        return f.read()


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def state_instances(text):
    """(type, name) of every file-scope instance of a boot-state type."""
    return re.findall(INSTANCE_FORM % "|".join(STATE_TYPES), strip_comments(text), re.M)


def strip_literals(text):
    """@text without comments, preprocessor lines, string and char literals."""
    text = strip_comments(text)
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", "", text, flags=re.M)
    return re.sub(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', '""', text)


def split_file_scope(text):
    """(declarations, bodies): the text of each declaration at file scope
    (ending in ';', brace initialisers kept) and of each function body, of
    @text without comments and literals."""
    text = strip_literals(text)
    decls, bodies, cur, depth, i = [], [], [], 0, 0
    while i < len(text):
        c = text[i]
        if c == "{" and depth == 0 and re.search(r"\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)?$",
                                                  "".join(cur), re.S):
            # A function body: to its closing brace.
            start, depth, i = i + 1, 1, i + 1
            while depth and i < len(text):
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            bodies.append(text[start:i - 1])
            cur = []
            continue
        if c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
        if c == ";" and depth == 0:
            decls.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return decls, bodies


def file_scope_declarations(text):
    """The text of each declaration at file scope (ending in ';'), function
    bodies skipped, brace initialisers kept."""
    return split_file_scope(text)[0]


def function_bodies(text):
    """The text of each function body of @text (comments and literals out)."""
    return split_file_scope(text)[1]


def _flat(decl):
    """@decl with every (...), {...} and [...] emptied, depth by depth."""
    prev = None
    while prev != decl:
        prev = decl
        decl = re.sub(r"\{[^{}]*\}|\[[^\[\]]*\]", "", decl)
    return decl


def mutable_globals(text):
    """Names of the file-scope objects of a C file that are neither static
    nor const (nor extern declarations, typedefs or functions)."""
    names = []
    for decl in file_scope_declarations(text):
        head = _flat(decl.split("=", 1)[0]).strip()
        if not head or re.match(r"(?:static|extern|typedef)\b", head):
            continue
        if "(" in head:
            continue            # a prototype or a macro's invocation
        if re.fullmatch(r"(?:struct|union|enum)\s+\w+\s*", head):
            continue            # a type's definition only
        for part in head.split(","):
            words = re.findall(r"\*|\bconst\b|\w+", part)
            if not words:
                continue
            # const after the last '*' (or with no '*'): a const object.
            after_star = words[len(words) - words[::-1].index("*"):] if "*" in words else words
            if "const" in after_star:
                continue
            names.append(words[-1])
    return names


def _mutable_objects(decl):
    """Names of the objects @decl (a declaration without its ';') defines
    that are not const: none for a function, a prototype, a type or a
    typedef."""
    head = re.sub(r"=[^,]*", "", _flat(decl)).strip()
    head = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", head)
    if not head or re.match(r"(?:extern|typedef)\b", head):
        return []
    if "(" in head:
        return []               # a prototype or a macro's invocation
    if re.fullmatch(r"(?:static\s+)?(?:struct|union|enum)\s+\w+\s*", head):
        return []               # a type's definition only
    names = []
    for part in head.split(","):
        words = re.findall(r"\*|\bconst\b|\w+", part)
        if not words:
            continue
        after_star = words[len(words) - words[::-1].index("*"):] if "*" in words else words
        if "const" not in after_star:
            names.append(words[-1])
    return names


def own_state(text):
    """Names of the mutable objects a C file keeps for itself: file-scope
    objects that are not const (static or not), and static objects in its
    functions that are not const."""
    names = []
    for decl in file_scope_declarations(text):
        names += _mutable_objects(decl)
    for body in function_bodies(text):
        for m in re.finditer(r"\bstatic\b([^;{}]*)", body):
            names += _mutable_objects("static" + m.group(1))
    return names


# The phase files that may name the settings: main.c hands them out, and
# phase cmdline's table list fills them.
SETTINGS_READERS = (MAIN, f"{PHASE_DIR}/cmdline.c")


def settings_objects():
    """The objects the command-line keys fill: every `.ptr = &NAME` of a
    key table in the kernel's sources."""
    names = set()
    for path in sources():
        names.update(re.findall(r"\.ptr\s*=\s*&\s*([A-Za-z_]\w*)", strip_comments(read(path))))
    return names


def settings_read(text, settings):
    """The settings objects (@settings) that @text names, sorted (a type of
    the same name, `struct smp_settings`, is not the object)."""
    text = re.sub(r"\b(?:struct|union|enum)\s+\w+", "", strip_literals(text))
    words = set(re.findall(r"\b[A-Za-z_]\w*\b", text))
    return sorted(words & settings)


def shared_phase_state(files):
    """[(defining file, name, using file)]: the mutable file-scope objects of
    @files ({path: text}, the phase files) that another of them uses."""
    found = []
    for path, text in sorted(files.items()):
        for name in mutable_globals(text):
            for other, other_text in sorted(files.items()):
                if other != path and re.search(r"\b%s\b" % re.escape(name),
                                               strip_literals(other_text)):
                    found.append((path, name, other))
    return found


def phase_files():
    """{path: text} of the phase files, kernel/init/*.c."""
    d = os.path.join(REPO_ROOT, PHASE_DIR)
    return {f"{PHASE_DIR}/{n}": read(f"{PHASE_DIR}/{n}")
            for n in sorted(os.listdir(d)) if n.endswith(".c")}


def boot_state_members(main_text):
    """{type: member} of struct boot_state in main.c's text."""
    m = re.search(r"struct\s+boot_state\s*\{(.*?)\};", strip_comments(main_text), re.S)
    if not m:
        return {}
    return dict(re.findall(r"struct\s+(\w+)\s+(\w+)\s*;", m.group(1)))


def phase_calls(main_text):
    """The text of every PHASE(name, ...) in main.c, by name."""
    text = strip_comments(main_text)
    calls = {}
    for m in re.finditer(r'PHASE\((\w+),', text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        calls[m.group(1)] = text[m.end():i - 1]
    return calls


# The boot state's parts, {type: member}, from kernel/init/main.c.
STATE_TYPES = boot_state_members(read(MAIN))


# mm/ is pure: the state it works on is handed to it (the caller's storage:
# the boot state in the kernel, a test's own on the host), so two users of
# one engine never share it behind each other's backs. Only these files keep
# state of their own, each a one-per-kernel object by design; the list only
# shrinks (an entry whose file keeps no state any more is reported).
MM_OWN_STATE = {
    "mm/alloc/alloc.c": "the page allocator behind the seam, its counters and node order",
    "mm/alloc/alloc_pcp.c": "the allocator's per-CPU lists",
    "mm/alloc/buddy.c": "the page hooks the buddy allocator calls (buddy_set_page_hooks())",
    "mm/memtest.c": "the key parser's staging copy (keys are parsed once, on the boot CPU)",
    "mm/tiers.c": "best_initiator()'s scratch figures (read once, on the boot CPU)",
}


def mm_own_state():
    """{path: names} of the mm/ files that keep mutable state of their own
    (the objects the command-line keys fill aside: they are settings)."""
    settings = settings_objects()
    found = {}
    for path in sources():
        if path.startswith("mm/") and path.endswith(".c"):
            names = [n for n in own_state(read(path)) if n not in settings]
            if names:
                found[path] = names
    return found


class TestBootState(unittest.TestCase):
    def test_no_file_scope_instance_outside_the_boot_state(self):
        found = []
        for path in sources():
            for typ, name in state_instances(read(path)):
                found.append(f"{path}: struct {typ} {name}")
        self.assertEqual(found, [], "boot state kept outside kernel/init/main.c's struct "
                         "boot_state; hand it to the phases as a pointer instead")

    def test_no_file_scope_state_shared_between_phases(self):
        self.assertEqual(shared_phase_state(phase_files()), [],
                         "mutable file-scope objects of one phase file used by another: "
                         "put them in struct boot_state (kernel/init/main.c) and pass them, "
                         "or give them to the layer they belong to")

    def test_no_phase_keeps_state_of_its_own(self):
        found = {}
        for path, text in phase_files().items():
            names = [n for n in own_state(text) if not (path == MAIN and n == "bs")]
            if names:
                found[path] = names
        self.assertEqual(found, {}, "mutable state kept by a phase file: make it a member of "
                         "struct boot_state (kernel/init/main.c) passed as a pointer, or, for "
                         "a report made later, hand console_defer_copy() a copy")

    def test_mm_holds_no_state_of_its_own(self):
        found = mm_own_state()
        self.assertEqual({p: n for p, n in found.items() if p not in MM_OWN_STATE}, {},
                         "mm/ keeps state of its own: take it from the caller (a member of "
                         "the struct it works on, or storage the caller hands over)")
        self.assertEqual(sorted(set(MM_OWN_STATE) - set(found)), [],
                         "MM_OWN_STATE lists files that keep no state any more: remove them")

    def test_own_state_check_can_fail(self):
        text = ("static uint64_t phase_start_tsc;\n"
                "static struct mminit mi;\n"
                "static const char *last;\n"
                "uint32_t nr_pieces = 0, other;\n"
                "static struct piece pieces[8] __attribute__((aligned(64)));\n"
                "static const char *const names[] = { \"a;\", \"b\" };\n"
                "static const struct param params[] = { { .key = \"k\" } };\n"
                "static void f(void);\n"
                "struct counters { int a; };\n"
                "static struct boot_state bs;\n"
                "extern char __kernel_end[];\n"
                "PARAM_TABLE(t, \"x\", params);\n"
                "static void f(void)\n{\n\tstatic char buf[64];\n"
                "\tstatic const uint32_t table[2] = { 1, 2 };\n\tint local = 0;\n"
                "\tfor (;;) { static bool once; (void)once; }\n}\n"
                "/* static uint64_t in_a_comment; */\n")
        self.assertEqual(own_state(text), ["phase_start_tsc", "mi", "last", "nr_pieces", "other",
                                           "pieces", "bs", "buf", "once"])
        self.assertEqual(own_state("static const char *const x[] = { \"y\" };\n"
                                   "void g(void) { return; }\n"), [])

    def test_no_phase_reads_settings_itself(self):
        settings = settings_objects()
        self.assertIn("smp_settings", settings)        # the parse sees the key tables
        self.assertIn("console_cmdline", settings)
        found = {path: names for path, text in phase_files().items()
                 if path not in SETTINGS_READERS
                 and (names := settings_read(text, settings))}
        self.assertEqual(found, {}, "a phase reads a subsystem's settings itself: main.c "
                         "passes what it needs as an argument (docs/design.md, \"The boot state\")")
        self.assertEqual(settings_read("void f(const struct pcp_settings *s)\n"
                                       "{ g(smp_settings.nosmp, &bench_settings); }\n"
                                       "/* smp_settings. */\n", settings),
                         ["bench_settings", "smp_settings"])

    def test_main_owns_every_part(self):
        members = boot_state_members(read(MAIN))
        for typ, member in CORE_PARTS.items():
            self.assertEqual(members.get(typ), member,
                             f"struct boot_state in {MAIN} has no struct {typ} {member}")
        self.assertRegex(strip_comments(read(MAIN)), r"\bstatic\s+struct\s+boot_state\s+bs\s*;")

    def test_phases_get_the_state_as_pointers(self):
        calls = phase_calls(read(MAIN))
        # Each phase that builds a part of the state is handed that part.
        builds = {"bootinfo": "bootinfo", "physmem": "physmem", "acpi": "acpi",
                  "numa": "topo", "memmap": "memmap", "hugetlb1g": "hugetlb"}
        for phase, member in builds.items():
            self.assertIn(phase, calls, f"no PHASE({phase}, ...) in {MAIN}")
            self.assertIn(f"&bs.{member}", calls[phase],
                          f"phase {phase} is not handed &bs.{member}")
        for phase in ("memprep", "census"):
            self.assertIn("&bs.topo", calls[phase], phase)
        for phase in ("memprep", "meminit", "census"):
            self.assertIn("&bs.memmap", calls[phase], phase)
        for phase in ("memprep", "census"):
            self.assertIn("&bs.census", calls[phase], phase)
        # The self-tests get the state through their context, built of it.
        m = re.search(r"struct\s+selftest_ctx\s+(\w+)\s*=\s*\{(.*?)\};",
                      strip_comments(read(MAIN)), re.S)
        self.assertIsNotNone(m, f"no struct selftest_ctx in {MAIN}")
        for member in ("&bs.topo", "&bs.memmap", "&bs.hugetlb"):
            self.assertIn(member, m.group(2))
        self.assertIn(f"init_selftest(&{m.group(1)})", calls["selftest"])

    def test_the_checks_can_fail(self):
        self.assertEqual(state_instances("struct numa_topology numa_topo;\n"),
                         [("numa_topology", "numa_topo")])
        self.assertEqual(state_instances("extern struct memmap memmap;\n"),
                         [("memmap", "memmap")])
        self.assertEqual(state_instances("static struct physmem pm[2] = { 0 };\n"),
                         [("physmem", "pm")])
        # Pointers, parameters, members and comments are not instances.
        self.assertEqual(state_instances(
            "static struct memmap *vm_memmap;\n"
            "void f(struct physmem *pm);\n"
            "\tstruct numa_topology topo;\n"
            "/*\nstruct memmap memmap;\n*/\n"), [])
        self.assertEqual(boot_state_members("struct boot_state {\n\tstruct memmap mm;\n};"),
                         {"memmap": "mm"})
        calls = phase_calls('PHASE(numa, discover_numa(&bs.bootinfo, &topo));')
        self.assertEqual(calls, {"numa": " discover_numa(&bs.bootinfo, &topo)"})

    def test_shared_state_check_can_fail(self):
        memory = ("#include \"x.h\"\n"
                  "static bool retired;\n"
                  "uint64_t retired_pages, other = 1;\n"
                  "const char *const names[] = { \"a;\", \"b\" };\n"
                  "const char *last_name;\n"
                  "struct counters { int a; };\n"
                  "struct counters counts = { .a = 1 };\n"
                  "extern char __kernel_end[];\n"
                  "void f(uint64_t x);\n"
                  "PARAM_TABLE(t, \"x\", params);\n"
                  "uint64_t memory_pages(void)\n{\n\tuint64_t local = 0;\n"
                  "\treturn local + retired_pages;\n}\n"
                  "/* uint64_t in_a_comment; */\n")
        self.assertEqual(mutable_globals(memory),
                         ["retired_pages", "other", "last_name", "counts"])
        meminit = ("uint64_t f(void) { return retired_pages + memory_pages() + counts.a; }\n"
                   "static const char *s = \"other\";\n")
        self.assertEqual(shared_phase_state({"kernel/init/memory.c": memory,
                                             "kernel/init/meminit.c": meminit}),
                         [("kernel/init/memory.c", "retired_pages", "kernel/init/meminit.c"),
                          ("kernel/init/memory.c", "counts", "kernel/init/meminit.c")])


if __name__ == "__main__":
    unittest.main()
