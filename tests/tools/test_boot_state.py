"""One boot state, owned by kernel/init/main.c (docs/design.md, "The boot state").

What one phase builds and a later one reads (the boot information, physmem,
the parsed ACPI tables, the NUMA topology, the page descriptors, the huge
page pools) lives in main.c's struct boot_state and reaches each phase as a
pointer. These tests keep it so: no kernel source defines or declares a
file-scope instance of those types, main.c's boot_state holds each of them,
and every phase line that uses the state passes it through `&bs.`.

    python3 -m unittest tests/tools/test_boot_state.py -v
"""

import os
import re
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SOURCE_DIRS = ("arch", "boot", "kernel", "mm")
MAIN = "kernel/init/main.c"

# The boot state's parts: the type and the member of struct boot_state.
STATE_TYPES = {
    "bootinfo": "bootinfo",
    "physmem": "physmem",
    "discovered_acpi": "acpi",
    "numa_topology": "topo",
    "memmap": "memmap",
    "hugetlb_pools": "hugetlb",
}

# A file-scope object (not a pointer) of one of those types, defined or
# declared extern: "struct physmem physmem;", "extern struct memmap mm;",
# "static struct numa_topology topo = {...};".
INSTANCE = re.compile(
    r"^(?:extern\s+|static\s+)?(?:const\s+)?struct\s+(%s)\s+(\w+)\s*(?:\[[^\]]*\])?\s*[;=]"
    % "|".join(STATE_TYPES), re.M)


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
    return INSTANCE.findall(strip_comments(text))


def boot_state_members(main_text):
    """{type: member} of struct boot_state in main.c's text."""
    m = re.search(r"struct\s+boot_state\s*\{(.*?)\};", strip_comments(main_text), re.S)
    if not m:
        return {}
    return dict(re.findall(r"struct\s+(\w+)\s+(\w+)\s*;", m.group(1)))


def phase_calls(main_text):
    """The text of every PHASE("name", ...) in main.c, by name."""
    text = strip_comments(main_text)
    calls = {}
    for m in re.finditer(r'PHASE\("(\w+)",', text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        calls[m.group(1)] = text[m.end():i - 1]
    return calls


class TestBootState(unittest.TestCase):
    def test_no_file_scope_instance_outside_the_boot_state(self):
        found = []
        for path in sources():
            for typ, name in state_instances(read(path)):
                found.append(f"{path}: struct {typ} {name}")
        self.assertEqual(found, [], "boot state kept outside kernel/init/main.c's struct "
                         "boot_state; hand it to the phases as a pointer instead")

    def test_main_owns_every_part(self):
        members = boot_state_members(read(MAIN))
        for typ, member in STATE_TYPES.items():
            self.assertEqual(members.get(typ), member,
                             f"struct boot_state in {MAIN} has no struct {typ} {member}")
        self.assertRegex(strip_comments(read(MAIN)), r"\bstatic\s+struct\s+boot_state\s+bs\s*;")

    def test_phases_get_the_state_as_pointers(self):
        calls = phase_calls(read(MAIN))
        # Each phase that builds a part of the state is handed that part.
        builds = {"bootinfo": "bootinfo", "physmem": "physmem", "acpi": "acpi",
                  "numa": "topo", "memmap": "memmap", "hugetlb1g": "hugetlb"}
        for phase, member in builds.items():
            self.assertIn(phase, calls, f"no PHASE(\"{phase}\") in {MAIN}")
            self.assertIn(f"&bs.{member}", calls[phase],
                          f"phase {phase} is not handed &bs.{member}")
        for phase in ("meminit", "census", "selftest"):
            self.assertIn("&bs.topo", calls[phase], phase)
            self.assertIn("&bs.memmap", calls[phase], phase)

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
        calls = phase_calls('PHASE("numa", discover_numa(&bs.bootinfo, &topo));')
        self.assertEqual(calls, {"numa": " discover_numa(&bs.bootinfo, &topo)"})


if __name__ == "__main__":
    unittest.main()
