"""Generic code holds no inline asm and names no x86 mechanism.

Every C, header and assembly file of the kernel outside arch/ and the boot
protocols (the directories of boot/: mb2, pvh, efi) is read, comments
included, for:

- inline asm: an `asm`, `__asm` or `__asm__` statement, or a
  `__builtin_ia32_*` builtin. The interface's own headers
  (arch/include/arch/) hold none either: what must be inline is each
  architecture's arch/NAME/include/asm/.
- an x86 word, whole and case-sensitive where case tells the word from
  English (X86_WORDS below: the TSC and RDTSC, the APIC and its modes, CPUID
  and MSRs, the PIT, HPET and PM timer, port I/O, COM ports and VGA text,
  INVLPG and the control registers, descriptor tables, x86's store and
  cache instructions, and x86's predefined macros: code that asks which
  architecture it is built for belongs in arch/). Identifiers are split at
  underscores, so `rec_tsc_stamp` names the TSC and `pitch` names no PIT.
  The architectures' names themselves (x86_64, arm64, POWER) are no
  mechanism: a comment cites each one's rule by them.

What keeps an x86 name on purpose is allowed by a rule, never by a list of
files:
- record event names (kernel/services/report/events.h), the record keys and
  values docs/records.md lists under "Names from x86", and the command-line
  keys docs/cmdline.md documents, where they are names: inside a string
  literal, in `backquotes` in a comment, written out whole
  (`cpu_up.apic_id`, `memboot.tsc_skew`) or as a word's value
  (`console=vga`), so `rec_u64(&r, "tsc_hz", hz)` passes and a variable
  `tsc_hz` does not; a settings member named for its command-line key
  (`smp_settings.tsc_skew`, the key table's `.ptr` and default, its
  declaration with the key named on its line); a record's name in a
  comment's prose;
- what the firmware parsers declare (kernel/firmware/'s headers: functions,
  tags, macros such as `acpi_hpet_parse()`) and the ACPI table signatures
  they check ("APIC", "HPET") or name their messages by ("ACPI: SPCR: "),
  wherever the parsers are called;
- in the firmware parsers (kernel/firmware/), the firmware formats' own
  names of what they describe (FIRMWARE_WORDS: ACPI's local APIC
  structures, HPET table, PM timer and I/O port blocks, VGA and dual-8259
  flags; the device tree header's boot_cpuid_phys), and the same words
  anywhere on a line that names the ACPI table they belong to (SRAT, MADT:
  the signatures the parsers check and the tables' names beside them, but
  the x86 words themselves); instructions and mechanisms stay out there
  too.

    python3 -m unittest tests/tools/test_arch_words.py -v
"""

import bisect
import os
import re
import shutil
import sys
import tempfile
import unittest

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "tools"))
from script_module import load_script  # noqa: E402

check_includes = load_script(os.path.join(REPO_ROOT, "tools", "check-includes.py"),
                             "check_includes_for_words")

# The x86 words, grouped by what they name.
X86_WORDS = {
    # the time-stamp counter
    "TSC", "TSCs", "tsc", "rdtsc", "rdtscp", "RDTSC", "RDTSCP",
    # the local APIC, its modes and its start-up IPIs
    "APIC", "APICs", "apic", "LAPIC", "lapic", "xAPIC", "xapic", "x2APIC", "x2apic",
    "IOAPIC", "ioapic", "ICR", "SIPI",
    # CPUID and model-specific registers
    "CPUID", "cpuid", "MSR", "MSRs", "msr", "rdmsr", "wrmsr", "IA32", "pdpe1gb",
    # the legacy timers (the PM timer: PATTERNS)
    "PIT", "pit", "HPET", "hpet", "8254",
    # port I/O
    "inb", "inw", "inl", "outb", "outw", "outl", "insb", "insw", "insl",
    "outsb", "outsw", "outsl",
    # legacy devices: COM ports, VGA text, the PIC
    "COM1", "COM2", "COM3", "COM4", "VGA", "vga", "8259",
    # paging: TLB instructions, control registers, table names
    "INVLPG", "invlpg", "INVPCID", "invpcid", "CR0", "CR2", "CR3", "CR4",
    "cr0", "cr2", "cr3", "cr4", "PML4", "PML5", "PDPT",
    # descriptor tables and interrupt instructions
    "GDT", "IDT", "TSS", "lidt", "lgdt", "int3",
    # x86's store, fence and cache instructions and its vector registers
    "clflush", "clflushopt", "clwb", "movnti", "movntdq", "movntq", "sfence",
    "lfence", "mfence", "wbinvd", "SSE", "SSE2",
}
# Words of more than one token, x86's vector registers and predefined macros,
# numbers that are x86 devices: (the name reported, or None for the text
# found; the pattern).
PATTERNS = (
    ("PM timer", re.compile(r"(?<![A-Za-z0-9])(?:PM|pm)[ _-]?(?:[Tt]imer|TIMER|tmr|TMR)"
                            r"(?![A-Za-z0-9])")),
    ("port I/O", re.compile(r"(?i)\bport[ -]I/O\b|\bI/O[ -]ports?\b")),
    ("isa-debug-exit", re.compile(r"isa-debug-exit")),
    (None, re.compile(r"\b__(?:x86_64|i386|amd64)__\b")),
    (None, re.compile(r"(?<![A-Za-z0-9])[xyz]mm[0-9]+(?![A-Za-z0-9])")),
    (None, re.compile(
        r"(?i)(?<![0-9a-z])0x0*(?:3f8|2f8|3e8|2e8|b8000|cf9)(?![0-9a-z])")),
)
# The firmware formats' own names the firmware parsers (kernel/firmware/)
# may use: ACPI's (the MADT's local APIC structures, the HPET table, the
# FADT's PM timer and I/O port blocks and VGA flag, the MADT's dual-8259
# flag) and the device tree's (its header's boot_cpuid_phys, Devicetree
# Specification 5.2).
FIRMWARE_DIR = "kernel/firmware/"
FIRMWARE_WORDS = {
    "APIC", "APICs", "apic", "LAPIC", "lapic", "xAPIC", "x2APIC", "x2apic",
    "IOAPIC", "ioapic", "HPET", "hpet", "VGA", "8259", "PM timer", "port I/O",
    "CPUID", "cpuid",
}
INLINE_ASM = re.compile(r"(?<![A-Za-z0-9_])(?:asm|__asm|__asm__)\s*"
                        r"(?:(?:volatile|__volatile__|goto|inline)\s*)*\(|__builtin_ia32_\w*")
TOKEN = re.compile(r"[A-Za-z0-9]+")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DOTTED = re.compile(r"\b[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*\b")
# A command-line word's value (console=vga) and a settings member named for
# its key (smp_settings.tsc_skew, .tsc_skew = 0, cs->tsc_skew).
WORD_VALUE = re.compile(r"\b[a-z][a-z0-9_.]*=([A-Za-z0-9_]+)")
MEMBER = re.compile(r"(?:\.|->)[ \t]*([A-Za-z_][A-Za-z0-9_]*)")
# What a header declares: a function, a struct, union or enum tag, a macro.
DECLARED = re.compile(r"\b(?:struct|union|enum)[ \t]+([A-Za-z_]\w*)|^[ \t]*#[ \t]*define[ \t]+"
                      r"([A-Za-z_]\w*)|\b([A-Za-z_]\w*)[ \t]*\(", re.M)
# A table signature the parsers check: a 4-character string handed to a
# table lookup or compared (acpi_table_check(table, len, "HPET", ...)).
SIGNATURE = re.compile(r'\b\w*(?:table|sig|memcmp)\w*[ \t]*\([^;]*?"([A-Z][A-Z0-9]{3})"')
# A settings member declared with its key named on its line
# (`bool tsc_sync;   /* memboot.tsc_sync: ... */`), and a family of keys
# (`memboot.tsc_*`).
KEY_ON_LINE = re.compile(r"\bmemboot\.([a-z0-9_]+)(\*?)")
EVENTS_H = "kernel/services/report/events.h"
EVENT_LINE = re.compile(r"^\s*X\((\w+)\)", re.M)

# file -> the words it may still use, ", " between them. Empty: generic code
# names no x86 mechanism. A word being moved behind the interface may be
# listed here while it lasts; an entry that no longer occurs fails the test,
# so the table only shrinks back to empty.
EXCEPTIONS = {}


def tracked(root):
    """The kernel's C, header and assembly files under @root, as
    tools/check-includes.py reads them (git's list, else a walk)."""
    return check_includes.sources(root)


def scope(path):
    """'generic' (every rule), 'interface' (arch/include/: no inline asm) or
    None (an architecture's own code or a boot protocol: no rule)."""
    if path.startswith("arch/include/"):
        return "interface"
    if path.startswith("arch/"):
        return None
    parts = path.split("/")
    if parts[0] == "boot" and len(parts) > 2:
        return None
    return "generic"


def spans(text):
    """The C text cut into ('code' | 'comment' | 'string', start, end): string
    and character literals and both kinds of comment, so names are judged by
    where they stand."""
    out, i, n, start = [], 0, len(text), 0
    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if two in ("//", "/*") or c in "\"'":
            if i > start:
                out.append(("code", start, i))
            if two == "//":
                j = text.find("\n", i)
                j = n if j < 0 else j
                out.append(("comment", i, j))
            elif two == "/*":
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
                out.append(("comment", i, j))
            else:
                j = i + 1
                while j < n and text[j] != c and text[j] != "\n":
                    j += 2 if text[j] == "\\" else 1
                j = min(j + 1, n)
                out.append(("string" if c == '"' else "code", i, j))
            i = start = j
            continue
        i += 1
    if start < n:
        out.append(("code", start, n))
    return out


def record_names(root):
    """The names that keep x86 words on purpose: every record event
    (events.h), the keys and values of docs/records.md's "Names from x86",
    every command-line key docs/cmdline.md documents (bare and with its
    memboot. prefix). The keys are also returned apart: a settings member
    may be named for its key."""
    names = set()
    with open(os.path.join(root, EVENTS_H), encoding="utf-8") as f:
        names.update(EVENT_LINE.findall(f.read()))
    names.update(x86_names_documented(root))
    keys = set()
    path = os.path.join(root, "docs/cmdline.md")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            keys = set(re.findall(r"\bmemboot\.([a-z0-9_]+)", f.read()))
    for key in keys:
        names.update((key, "memboot." + key))
    firmware, signatures = firmware_names(root)
    return Names(names, keys, firmware, signatures)


class Names(set):
    """The allowed names; .keys: the command-line keys among them;
    .firmware: the firmware parsers' API; .signatures: the ACPI table
    signatures they check."""

    def __init__(self, names, keys, firmware=(), signatures=()):
        super().__init__(names)
        self.keys = set(keys)
        self.firmware = set(firmware)
        self.signatures = set(signatures)


def firmware_names(root):
    """(identifiers, signatures): what the firmware parsers' headers declare
    (functions, struct, union and enum tags, macros: acpi_hpet_parse(),
    struct acpi_pm_timer) and the 4-character table signatures their
    sources check ("APIC", "HPET"): names of what a firmware table holds,
    which any layer calling the parsers uses."""
    idents, sigs = set(), set()
    top = os.path.join(root, FIRMWARE_DIR)
    for base, _, files in os.walk(top):
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(base, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            code = "".join(text[s:e] if what != "comment" else " " for what, s, e in spans(text))
            sigs.update(SIGNATURE.findall(code))
            # A table a parser names its messages by ("ACPI: SPCR: ").
            sigs.update(re.findall(r'"ACPI: ([A-Z][A-Z0-9]{3}): ', code))
            # A table's common name beside its signature: MADT ("APIC").
            sigs.update(re.findall(r'\b([A-Z][A-Z0-9]{3}) \("[A-Z][A-Z0-9]{3}"\)', text))
            if name.endswith(".h"):
                for m in DECLARED.finditer(code):
                    idents.update(g for g in m.groups() if g)
    return idents, sigs


def x86_names_documented(root):
    """The first column's `names` of the table under docs/records.md's
    "## Names from x86" (record.key forms give both)."""
    with open(os.path.join(root, "docs/records.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^## Names from x86\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if not m:
        return set()
    names = set()
    for row in re.findall(r"^\|([^|\n]*)\|", m.group(1), re.M):
        for name in re.findall(r"`([a-z0-9_.]+)`", row):
            names.add(name)
            names.add(name.rsplit(".", 1)[-1])
    return names


def x86ish(name):
    """Whether @name holds an x86 word (only such names need allowing: a
    plain word blanked could hide part of a longer one, isa-debug-exit)."""
    return any(t in X86_WORDS for t in TOKEN.findall(name))


def blank(text, cuts):
    """@text with each (start, end) of @cuts turned to spaces (lines kept)."""
    chars = list(text)
    for start, end in cuts:
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def findings(path, text, names):
    """[(line, word)] of @text, the file at repository path @path."""
    kind = scope(path)
    if kind is None:
        return []
    found = []

    starts = [m.end() for m in re.finditer(r"\n", text)]

    def line_of(pos):
        return bisect.bisect_right(starts, pos) + 1

    cut = spans(text)
    for what, s, e in cut:
        if what == "code":
            for m in INLINE_ASM.finditer(text, s, e):
                found.append((line_of(m.start()), "asm" if "builtin" not in m.group(0)
                              else m.group(0)))
    if kind == "interface":
        return found
    # Names that keep x86 words on purpose go blank before the words are read.
    names = {n for n in names if x86ish(n)} if not hasattr(names, "keys") else \
        Names({n for n in names if x86ish(n)}, {k for k in names.keys if x86ish(k)},
              names.firmware, names.signatures)
    cuts = []
    keys = getattr(names, "keys", set())
    signatures = getattr(names, "signatures", set())
    for what, s, e in cut:
        if what == "string":
            if text[s + 1:e - 1] in signatures:
                cuts.append((s, e))
            cuts += [m.span() for m in NAME.finditer(text, s, e) if m.group(0) in names]
        elif what == "comment":
            # A record's or key's name in prose, bare or `quoted`.
            cuts += [(s + m.start(), s + m.end()) for m in re.finditer(r"`([^`\n]+)`", text[s:e])
                     if m.group(1) in names]
            cuts += [m.span() for m in NAME.finditer(text, s, e) if m.group(0) in names]
        elif what == "code":
            cuts += [m.span() for m in NAME.finditer(text, s, e)
                     if m.group(0) in getattr(names, "firmware", ())]
    lines = text.split("\n")
    offset = 0
    for line in lines:
        for m in KEY_ON_LINE.finditer(line):
            key, family = m.group(1), m.group(2)
            if family and any(k.startswith(key) for k in keys):
                cuts.append((offset + m.start(), offset + m.end()))
            elif key in keys:
                cuts += [(offset + n.start(), offset + n.end())
                         for n in re.finditer(r"\b%s\b" % re.escape(key), line)]
        offset += len(line) + 1
    for m in DOTTED.finditer(text):
        event, key = m.group(0).split(".", 1)
        if m.group(0) in names or (key in names and (event in names or event == "memboot")):
            cuts.append(m.span())
    cuts += [m.span(1) for m in WORD_VALUE.finditer(text) if m.group(1) in names]
    cuts += [m.span(1) for m in MEMBER.finditer(text) if m.group(1) in keys]
    if path == EVENTS_H:
        # The event names' own table.
        cuts += [m.span(1) for m in EVENT_LINE.finditer(text)]
    judged = blank(text, cuts)
    firmware = path.startswith(FIRMWARE_DIR)
    # A line that names an ACPI table (its signature or its name: SRAT,
    # MADT) may use the table's own words for what it holds, as the
    # parsers do: "SRAT: PXM 0 -> APIC 0x00 -> Node 0", Linux's line.
    # (A signature that is itself an x86 word, "APIC", names no table here:
    # the MADT does.)
    tables = getattr(names, "signatures", set()) - X86_WORDS
    acpi_lines = {i + 1 for i, line in enumerate(text.split("\n"))
                  if tables.intersection(TOKEN.findall(line))}

    def allowed(word, pos):
        return word in FIRMWARE_WORDS and (firmware or line_of(pos) in acpi_lines)
    for m in TOKEN.finditer(judged):
        if m.group(0) in X86_WORDS and not allowed(m.group(0), m.start()):
            found.append((line_of(m.start()), m.group(0)))
    for word, pattern in PATTERNS:
        for m in pattern.finditer(judged):
            if not allowed(word, m.start()):
                found.append((line_of(m.start()), word or m.group(0)))
    return sorted(set(found))


def check(root, exceptions):
    """(violations, stale): violations are (path, line, word) not covered by
    @exceptions (path -> words); stale are (path, word) pairs of @exceptions
    that no longer occur."""
    names = record_names(root)
    violations, seen = [], set()
    for path in tracked(root):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for line, word in findings(path, text, names):
            if word in exceptions.get(path, "").split(", "):
                seen.add((path, word))
            else:
                violations.append((path, line, word))
    stale = sorted((path, word) for path, words in exceptions.items()
                   for word in words.split(", ") if (path, word) not in seen)
    return violations, stale


def report(violations):
    return "\n".join("%s:%d: %s: x86 outside arch/ (docs/design.md, \"The arch "
                     "interface\")" % v for v in violations)


class Repository(unittest.TestCase):

    def test_generic_code_names_no_x86_mechanism(self):
        violations, _ = check(REPO_ROOT, EXCEPTIONS)
        self.assertEqual(violations, [], "\n" + report(violations))

    def test_no_exception_is_stale(self):
        _, stale = check(REPO_ROOT, EXCEPTIONS)
        self.assertEqual(stale, [], "\n" + "\n".join(
            "%s no longer uses %r: remove it from EXCEPTIONS in "
            "tests/tools/test_arch_words.py" % s for s in stale))

    def test_the_x86_names_are_documented(self):
        # The rule reads its names from the docs: the section must be there,
        # and each name in it a record's (documented elsewhere on the page).
        documented = x86_names_documented(REPO_ROOT)
        self.assertIn("tsc_hz", documented)
        self.assertIn("apic_id", documented)
        with open(os.path.join(REPO_ROOT, "docs/records.md"), encoding="utf-8") as f:
            text = f.read()
        events = text[:text.index("## Names from x86")]
        for name in sorted(documented):
            self.assertIn("`%s`" % name.rsplit(".", 1)[-1], events, "docs/records.md's "
                          "\"Names from x86\" lists %s, which no event section names" % name)


class Scratch(unittest.TestCase):
    """A scratch copy of the tree with a word planted, checked with no
    exceptions of the repository's own."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="memboot-archwords-")
        self.root = self.tmp.name
        for rel in tracked(REPO_ROOT) + ["docs/records.md", "docs/cmdline.md"]:
            dst = os.path.join(self.root, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(os.path.join(REPO_ROOT, rel), dst)
        self.names = record_names(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def words(self, path, text):
        return findings(path, text, self.names)

    def test_a_planted_rdtsc_fails(self):
        # A file of the repository with no exception, and a line that reads
        # the TSC planted in it: the check names the file, the line, the word.
        path = "kernel/services/cmdline.c"
        self.assertNotIn(path, EXCEPTIONS)
        with open(os.path.join(self.root, path)) as f:
            text = f.read()
        lines = text.count("\n")
        # The copy passes as the repository does, with its exceptions.
        self.assertEqual(check(self.root, EXCEPTIONS), ([], []))
        with open(os.path.join(self.root, path), "a") as f:
            f.write("static inline unsigned long long cmdline_now(void)\n"
                    "{\n\treturn rdtsc();\n}\n")
        violations, _ = check(self.root, EXCEPTIONS)
        self.assertEqual(violations, [(path, lines + 3, "rdtsc")])
        self.assertIn("kernel/services/cmdline.c:%d: rdtsc: x86 outside arch/"
                      % (lines + 3), report(violations))

    def test_inline_asm_and_builtins(self):
        text = ('static void f(void)\n{\n\t__asm__ volatile("" ::: "memory");\n'
                '\tasm("nop");\n\tasm volatile goto("" :::: out);\nout:\n'
                '\t(void)__builtin_ia32_rdtsc();\n}\n')
        self.assertEqual(self.words("mm/x.c", text), [
            (3, "asm"), (4, "asm"), (5, "asm"), (7, "__builtin_ia32_rdtsc"), (7, "rdtsc")])
        # The word asm in prose is no statement; the interface's header may
        # hold prose of x86 but no asm.
        self.assertEqual(self.words("mm/x.c", "/* the asm/ headers (arch/NAME/include) */\n"), [])
        self.assertEqual(self.words("arch/include/arch/counter.h",
                                    "/* x86_64: RDTSC (SDM vol. 2B) */\n"), [])
        self.assertEqual(self.words("arch/include/arch/counter.h",
                                    "static inline void f(void) { asm volatile(\"isb\"); }\n"),
                         [(1, "asm")])
        # An architecture's own code and the boot protocols are theirs.
        self.assertEqual(self.words("arch/x86_64/tsc.c", "asm volatile(\"rdtsc\");\n"), [])
        self.assertEqual(self.words("boot/mb2/mb2.c", "/* the TSC */ asm(\"\");\n"), [])
        self.assertEqual(self.words("boot/x.c", "/* the TSC */\n"), [(1, "TSC")])

    def test_words_are_whole_and_split_at_underscores(self):
        text = ("uint64_t rec_tsc_stamp(void);\nint pitch, tscale, capital, inbox;\n"
                "/* The TSC, the xAPIC and the PM timer; COM1 at 0x3F8. */\n"
                "static int pm_tmr;\nstatic const int vga = 0xb8000;\n")
        self.assertEqual(self.words("kernel/services/x.c", text), [
            (1, "tsc"), (3, "0x3F8"), (3, "COM1"), (3, "PM timer"), (3, "TSC"), (3, "xAPIC"),
            (4, "PM timer"), (5, "0xb8000"), (5, "vga")])

    def test_record_names_are_allowed_as_names_only(self):
        # The record key in a string, a template, a backquoted comment and
        # written out whole: allowed. The same name as a C identifier, and
        # the word in prose: not.
        text = ('\trec_u64(&r, "tsc_hz", counter_hz);\n'
                '\trecord_report(&r, LOG_INFO, "tsc: {hz:MHz} MHz, {tsc_hz:MHz} in use");\n'
                '\t/* the `apic_id` key of cpu_up.apic_id; memboot.tsc_skew */\n'
                '\tuint64_t tsc_hz = 0;\n'
                '\tputs("Refined TSC calibration");\n')
        self.assertEqual(self.words("kernel/services/clock/x.c", text),
                         [(4, "tsc"), (5, "TSC")])
        # A name the docs do not list is a word like any other.
        self.assertEqual(self.words("kernel/x.c", 'rec_u64(&r, "tsc_wobble", 1);\n'),
                         [(1, "tsc")])
        # A command-line word's value, and a settings member named for its
        # key (memboot.tsc_skew): allowed; the same name as a variable, and
        # a member no key names, are not.
        text = ('/* console=vga: the text screen */\n'
                '\t.tsc_skew = 0,\n\tskew = smp_settings.tsc_skew + cs->tsc_skew;\n'
                '\tuint64_t tsc_skew = 1;\n\tcs->tsc_wobble = 2;\n')
        self.assertEqual(self.words("kernel/services/x.c", text), [(4, "tsc"), (5, "tsc")])

    def test_firmware_api_and_settings_declarations(self):
        # Calling the parsers by their names and signatures is allowed
        # anywhere; a settings member declared with its key on its line and a
        # key family too; a record's name in a comment's prose. A plain word
        # among the names (exit) never hides part of an x86 one.
        text = ('\tbytes = acpi_table_bytes(acpi, "HPET", &len);\n'
                '\tacpi_hpet_parse(bytes, len, &info);\n'
                '\tbool tsc_sync;   /* memboot.tsc_sync: check every AP */\n'
                '/* the counter keys (memboot.tsc_*) and the record key tsc_hz */\n'
                '/* QEMU\'s isa-debug-exit device; the PIT */\n')
        self.assertEqual(self.words("kernel/init/x.c", text),
                         [(5, "PIT"), (5, "isa-debug-exit")])

    def test_firmware_parsers_use_acpi_names_only(self):
        text = ("/* MADT: Processor Local x2APIC (ACPI 6.5, 5.2.12.12); HPET; PM timer */\n"
                "#define MADT_LOCAL_APIC 0\n\tuint64_t t = rdtsc();\n")
        self.assertEqual(self.words("kernel/firmware/acpi/madt.c", text), [(3, "rdtsc")])
        # Elsewhere the ACPI words pass only on a line that names their
        # table (Linux's "SRAT: PXM 0 -> APIC 0x00 -> Node 0").
        self.assertEqual(self.words("kernel/init/acpi.c", text), [(3, "rdtsc")])
        text = ('\tpr_info("SRAT: PXM %u -> APIC 0x%02x -> Node %u", p, a, n);\n'
                '/* the local APIC and the PM timer */\n')
        self.assertEqual(self.words("mm/numa_report.c", text), [(2, "APIC"), (2, "PM timer")])
        # SPCR: a table its parser names its messages by.
        text = ('\tspace = io ? "I/O port" : "MMIO";   /* SPCR\'s address space */\n'
                '\tspace = io ? "I/O port" : "MMIO";\n')
        self.assertEqual(self.words("kernel/init/acpi.c", text), [(2, "port I/O")])

    def test_a_stale_exception_is_reported(self):
        violations, stale = check(self.root, {"kernel/services/cmdline.c": "rdtsc",
                                              "kernel/gone.c": "TSC"})
        self.assertIn(("kernel/services/cmdline.c", "rdtsc"), stale)
        self.assertIn(("kernel/gone.c", "TSC"), stale)


if __name__ == "__main__":
    unittest.main()
