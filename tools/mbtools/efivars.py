"""memboot efivars: the summary records a UEFI boot kept in UEFI variables
(kernel/services/report/efivars.c), read back from

  - an efivarfs directory (/sys/firmware/efi/efivars on Linux booted later
    on that machine): one file per variable, named NAME-GUID, holding four
    bytes of attributes then the data;
  - an OVMF variable-store file (OVMF_VARS_4M.fd, kept by
    `memboot run --vars FILE`): a firmware volume (PI spec vol. 3, 3.2.1:
    EFI_FIRMWARE_VOLUME_HEADER, signature "_FVH") whose first bytes after
    the header are a variable store (EDK II VARIABLE_STORE_HEADER, formatted
    0x5a, healthy 0xfe) of variable headers (StartId 0x55aa; the
    authenticated form when the store's GUID says so), each followed by its
    UTF-16 name and data, 4-byte aligned.

The variables are MembootResults00, 01, ... under the memboot GUID; their
data are compact JSON records, one a line, which are printed as a boot log
would print them, after a few summary lines.
"""
import os
import re
import struct
import sys
import uuid

from mbtools import facts, inputs, records

RECORD_PREFIX = "MEMBOOT "
GUID = "4d454d42-4f4f-5452-9e53-756c74730001"
PREFIX = "MembootResults"
CHUNK_RE = re.compile(PREFIX + r"([0-9]+)", re.ASCII)
RESULTS_H = os.path.join(facts.REPO_ROOT, "kernel", "services", "report", "efivars.h")
RESULTS_C = os.path.join(facts.REPO_ROOT, "kernel", "services", "report", "efivars.c")


def _kernel_define(path, name):
    """`#define NAME number` of a kernel source: what the kernel writes."""
    return facts.kernel_define(path, name)


# The most chunks the kernel writes, and the attributes it gives each
# variable (NON_VOLATILE | BOOTSERVICE_ACCESS | RUNTIME_ACCESS, UEFI 8.2).
MAX_CHUNKS = _kernel_define(RESULTS_H, "RESULTS_MAX_CHUNKS")
RESULTS_ATTRIBUTES = _kernel_define(RESULTS_C, "EFI_VARIABLE_NV_BS_RT")

FV_SIGNATURE = b"_FVH"
AUTH_VARIABLE_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
VARIABLE_GUID = uuid.UUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")
VARIABLE_START_ID = 0x55AA
VAR_ADDED = 0x3F
VAR_IN_DELETED_TRANSITION = 0xFE
EXIT_USAGE = 64
EXIT_DATA = 65


class ResultsError(Exception):
    """The input is readable but is not what memboot efivars reads."""


def chunk_name(i):
    return "%s%02u" % (PREFIX, i)


def _chunk_index(name):
    """The chunk number of variable @name (MembootResults07: 7), or None.
    Only the names the kernel writes (chunk_name(): two digits, more only
    past 99) count: MembootResults000 would be chunk 0 a second time."""
    m = CHUNK_RE.fullmatch(name)
    if not m or chunk_name(int(m.group(1), 10)) != name:
        return None
    return int(m.group(1), 10)


def _odd_name_note(where, name):
    """The note for a variable named like a chunk that memboot never names
    so (MembootResults000, MembootResults7), or None."""
    if CHUNK_RE.fullmatch(name) and _chunk_index(name) is None:
        return ("%s: %s is not a name memboot writes (two digits, %s to %s); left out"
                % (where, name, chunk_name(0), chunk_name(MAX_CHUNKS - 1)))
    return None


def read_efivarfs(path, notes=None):
    """{name: data} of memboot's variables in an efivarfs directory. Each
    file is read under the tools' file rule (a FIFO or a link to a device is
    refused, not read) and must start with the attributes memboot writes.
    Names memboot never writes are left out, each named in @notes."""
    try:
        names = os.listdir(path)
    except OSError as e:
        raise ResultsError("cannot read directory %s: %s"
                           % (path, inputs.os_error_text(e))) from None
    found = {}
    suffix = "-" + GUID
    for entry in sorted(names):
        if not entry.endswith(suffix):
            continue
        note = _odd_name_note(path, entry[:-len(suffix)])
        if note and notes is not None:
            notes.append(note)
        if _chunk_index(entry[:-len(suffix)]) is None:
            continue
        f = os.path.join(path, entry)
        try:
            raw = inputs.read_input(f, "variable")
        except inputs.InputError as e:
            raise ResultsError(str(e)) from None
        if len(raw) < 4:
            raise ResultsError("%s: %d bytes, shorter than efivarfs's 4 bytes of attributes"
                               % (f, len(raw)))
        attributes, = struct.unpack_from("<I", raw)
        if attributes != RESULTS_ATTRIBUTES:
            raise ResultsError(
                "%s: attributes 0x%08x; memboot writes its variables with 0x%08x "
                "(non-volatile, boot service and runtime access), the only ones accepted"
                % (f, attributes, RESULTS_ATTRIBUTES))
        found[entry[:-len(suffix)]] = raw[4:]
    return found


def parse_var_store(blob):
    """{(name, guid text): data} of the valid variables of an OVMF
    variable-store file (the last valid copy of each wins)."""
    if len(blob) < 56 + 8:
        raise ResultsError("%d bytes: too short for a firmware volume header" % len(blob))
    if blob[40:44] != FV_SIGNATURE:
        raise ResultsError("no firmware volume signature \"_FVH\" at offset 40 "
                           "(not an OVMF variable-store file)")
    fv_length, = struct.unpack_from("<Q", blob, 32)
    header_len, = struct.unpack_from("<H", blob, 48)
    if header_len < 56 or header_len + 28 > len(blob) or fv_length > len(blob):
        raise ResultsError("firmware volume header length %d or volume length %d does not fit "
                           "the file's %d bytes" % (header_len, fv_length, len(blob)))
    # PI spec vol. 3, 3.2.1: the header's 16-bit words sum to 0.
    checksum = sum(struct.unpack_from("<%dH" % (header_len // 2), blob)) & 0xFFFF
    if checksum:
        raise ResultsError("firmware volume header checksum: its 16-bit words sum to 0x%04x, "
                           "not 0 (a damaged header)" % checksum)
    store = header_len
    sig = uuid.UUID(bytes_le=bytes(blob[store:store + 16]))
    if sig not in (AUTH_VARIABLE_GUID, VARIABLE_GUID):
        raise ResultsError("no variable store after the volume header (store GUID %s)" % sig)
    auth = sig == AUTH_VARIABLE_GUID
    size, fmt, state = struct.unpack_from("<IBB", blob, store + 16)
    if fmt != 0x5A:
        raise ResultsError("variable store not formatted (format byte 0x%02x, not 0x5a)" % fmt)
    end = min(store + size, len(blob))
    hdr_len = 60 if auth else 32
    off = store + 28
    found = {}
    while off + hdr_len <= end:
        start_id, vstate = struct.unpack_from("<HB", blob, off)
        if start_id != VARIABLE_START_ID:
            break
        if auth:
            name_size, data_size = struct.unpack_from("<II", blob, off + 36)
            guid_off = off + 44
        else:
            name_size, data_size = struct.unpack_from("<II", blob, off + 8)
            guid_off = off + 16
        name_off = off + hdr_len
        data_off = name_off + name_size
        if name_size > end - name_off or data_size > end - data_off:
            raise ResultsError("variable at offset 0x%x claims %d name and %d data bytes past "
                               "the store's end" % (off, name_size, data_size))
        if vstate in (VAR_ADDED, VAR_ADDED & VAR_IN_DELETED_TRANSITION):
            name = bytes(blob[name_off:data_off]).decode("utf-16-le", "replace").split("\0")[0]
            guid = str(uuid.UUID(bytes_le=bytes(blob[guid_off:guid_off + 16])))
            found[(name, guid)] = bytes(blob[data_off:data_off + data_size])
        off = (data_off + data_size + 3) & ~3
    return found


def _var_header(name, guid, data, auth, state=VAR_ADDED, attributes=7):
    name_b = (name + "\0").encode("utf-16-le")
    g = uuid.UUID(guid).bytes_le
    if auth:
        hdr = struct.pack("<HBBIQ16sIII16s", VARIABLE_START_ID, state, 0, attributes, 0,
                          bytes(16), 0, len(name_b), len(data), g)
    else:
        hdr = struct.pack("<HBBIII16s", VARIABLE_START_ID, state, 0, attributes,
                          len(name_b), len(data), g)
    body = hdr + name_b + data
    return body + b"\xff" * (-len(body) % 4)


def store_end(blob):
    """(offset after the last variable, end of the store, authenticated?)."""
    parse_var_store(blob)           # raises on what is not a store
    header_len, = struct.unpack_from("<H", blob, 48)
    auth = uuid.UUID(bytes_le=bytes(blob[header_len:header_len + 16])) == AUTH_VARIABLE_GUID
    size, = struct.unpack_from("<I", blob, header_len + 16)
    end = min(header_len + size, len(blob))
    off, hdr_len = header_len + 28, 60 if auth else 32
    while off + hdr_len <= end and struct.unpack_from("<H", blob, off)[0] == VARIABLE_START_ID:
        ns_off = off + (36 if auth else 8)
        name_size, data_size = struct.unpack_from("<II", blob, ns_off)
        off = (off + hdr_len + name_size + data_size + 3) & ~3
    return off, end, auth


def add_variables(blob, variables):
    """@blob (a variable-store file's bytes) with @variables, a list of
    (name, guid text, data[, state]), written after its last variable as
    the firmware would. Returns (new bytes, how many fitted)."""
    blob = bytearray(blob)
    off, end, auth = store_end(blob)
    n = 0
    for v in variables:
        body = _var_header(v[0], v[1], v[2], auth, *(v[3:] or ()))
        if off + len(body) > end:
            break
        blob[off:off + len(body)] = body
        off += len(body)
        n += 1
    return bytes(blob), n


def read_var_store_blob(path, what="variable store"):
    """The bytes of a variable-store file, under the tools' file rule."""
    try:
        return inputs.read_input(path, what)
    except inputs.InputError as e:
        raise ResultsError(str(e)) from None


def var_store_results(blob, where, notes=None):
    """{name: data} of memboot's variables in a variable-store file's bytes;
    names memboot never writes are left out, each named in @notes."""
    found = {}
    for (name, guid), data in parse_var_store(blob).items():
        if guid != GUID:
            continue
        note = _odd_name_note(where, name)
        if note and notes is not None:
            notes.append(note)
        if _chunk_index(name) is not None:
            found[name] = data
    return found


def read_var_store_file(path, notes=None):
    return var_store_results(read_var_store_blob(path), path, notes)


def chunks_in_order(found, where, notes=None):
    """(the chunks' text joined in index order, [(start, end, name)] of
    each chunk in it). A chunk missing before
    others is an error naming it (the records cannot be joined across it);
    chunks past the RESULTS_MAX_CHUNKS memboot writes are left out, each
    named in @notes (a list)."""
    indices = sorted(_chunk_index(name) for name in found)
    kept = [i for i in indices if i < MAX_CHUNKS]
    for i in indices:
        if i >= MAX_CHUNKS and notes is not None:
            notes.append("%s: %s is past the %d chunks memboot writes (RESULTS_MAX_CHUNKS, "
                         "kernel/services/report/efivars.h); left out" % (where, chunk_name(i), MAX_CHUNKS))
    if not kept:
        raise ResultsError("%s holds no memboot results (no variable %s-%s)"
                           % (where, chunk_name(0), GUID))
    missing = next(i for i in range(kept[-1] + 2) if i not in kept)
    if missing < kept[-1]:
        raise ResultsError("%s: chunk %s is missing (it holds %s): the records cannot be "
                           "joined without it" % (where, chunk_name(missing),
                                                  ", ".join("%02u" % i for i in kept)))
    names = {_chunk_index(name): name for name in found}
    spans, at = [], 0
    for i in kept:
        spans.append((at, at + len(found[names[i]]), names[i]))
        at += len(found[names[i]])
    try:
        return b"".join(found[names[i]] for i in kept).decode("ascii"), spans
    except UnicodeDecodeError:
        raise ResultsError("%s: the results are not ASCII text (not written by memboot?)"
                           % where) from None


def _names_of(spans, start, end):
    """The variables that bytes @start..@end of the joined text came from,
    in words: "MembootResults00 and MembootResults01"."""
    names = [name for s, e, name in spans if s < max(end, start + 1) and e > start]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def read_results(path, notes=None, blob=None):
    """The records memboot kept, from an efivarfs directory or a var-store
    file (@blob: its bytes, when read already): [(record text, record)];
    what was left out is named in @notes. A line that is not a record is
    named with the variables it came from."""
    if os.path.isdir(path):
        found = read_efivarfs(path, notes)
    elif blob is not None:
        found = var_store_results(blob, path, notes)
    else:
        found = read_var_store_file(path, notes)
    text, spans = chunks_in_order(found, path, notes)
    recs = []
    at = 0
    for n, line in enumerate(text.split("\n"), 1):
        start, at = at, at + len(line) + 1
        if not line.strip():
            continue
        where = "%d (in %s)" % (n, _names_of(spans, start, start + len(line)))
        try:
            rec_text = records.record_text(RECORD_PREFIX + line, strict=True)
            rec = records.parse_record(RECORD_PREFIX + line, strict=True)
        except records.RecordError as e:
            raise ResultsError("%s: kept record %s does not parse: %s"
                               % (path, where, terminal_safe(str(e)))) from None
        if rec is None:
            raise ResultsError("%s: kept line %s is not a record: %s"
                               % (path, where, terminal_safe(repr(line[:80]))))
        recs.append((rec_text, rec))
    if not recs:
        raise ResultsError("%s: the memboot variables hold no records" % path)
    return recs


def terminal_safe(text):
    """@text with each control character (ESC, BEL, ...; DEL; and the C1
    controls U+0080..U+009F, which a terminal may read as ESC [) written
    \\u00XX, as the kernel escapes control bytes in a record's strings
    (kernel/services/report/record.c), so a kept record cannot clear the screen or
    set a terminal's title."""
    return "".join("\\u%04x" % ord(c) if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F else c
                   for c in text)


def ms(ns):
    return "%.3f" % (ns / 1e6) if isinstance(ns, (int, float)) else "?"


def summary_lines(recs):
    """The lines a person reads first, from the records alone."""
    out = []
    boot = next((r for r in recs if r["event"] == "boot"), None)
    if boot:
        out.append("results: boot path %s, %s" % (boot.get("boot_path", "?"),
                                                 boot.get("cmdline", "") or "no command line"))
    for r in recs:
        if r["event"] == "node_init":
            out.append("node %s %s pages initialised in %s ms (%s pages)"
                       % (r.get("node"), r.get("policy", "?"), ms(r.get("ns")), r.get("pages")))
    summ = next((r for r in recs if r["event"] == "summary"), None)
    if summ:
        for p in summ.get("phases", []) if isinstance(summ.get("phases"), list) else []:
            if isinstance(p, dict):
                out.append("phase %-12s %10s ms" % (p.get("name"), ms(p.get("ns"))))
        if isinstance(summ.get("phases_omitted"), int) and summ["phases_omitted"] > 0:
            out.append("(%d shorter phases not in the summary record)" % summ["phases_omitted"])
        out.append("phases total %s ms, boot %s ms" % (ms(summ.get("phases_ns")),
                                                       ms(summ.get("total_ns"))))
    done = next((r for r in recs if r["event"] == "done"), None)
    if done:
        out.append("memboot: boot %s, status %s (%s), %s warnings, %s errors"
                   % ("done" if done.get("ok") else "FAILED", done.get("status"),
                      done.get("reason"), done.get("warnings"), done.get("errors")))
    else:
        out.append("results: no done record kept: the boot did not finish its summary")
    return out


def add_parser(sub):
    # `results`, its first name, stays as an alias; only `efivars` is
    # documented (docs/results.md and `make results` are benchmark figures).
    p = sub.add_parser(
        "efivars", aliases=["results"],
        help="print the summary a UEFI boot kept in UEFI variables",
        description="Read the records memboot kept in UEFI variables (MembootResults00.. "
                    "under GUID %s) from an efivarfs directory (/sys/firmware/efi/efivars "
                    "on Linux booted later on that machine) or an OVMF variable-store "
                    "file (memboot run --vars FILE), and print them as a boot log would."
                    % GUID)
    p.add_argument("path", metavar="PATH", nargs="*",
                   help="efivarfs directory or OVMF_VARS file (default: %s); with "
                        "--table also text files of MEMBOOT lines" % EFIVARFS)
    p.add_argument("--json", action="store_true",
                   help="print only the records, one JSON object a line (as run --json)")
    add_table_options(p)
    p.set_defaults(func=cmd_efivars)


def path_problem(path):
    """Why @path itself cannot be read as a results source (a usage error),
    or None: it must be a directory that can be listed or a regular file."""
    if not os.path.lexists(path):
        return "%s does not exist" % path
    if os.path.isdir(path):
        try:
            os.listdir(path)
        except OSError as e:
            return "cannot read directory %s: %s" % (path, inputs.os_error_text(e))
        return None
    problem = inputs.regular_file_problem(path, "variable store")
    if problem and not os.path.exists(path):
        return "%s is a dangling symbolic link" % path
    return problem and problem.replace("only regular files are read",
                                       "give an efivarfs directory or a variable-store file")


def cmd_efivars_one(args):
    path = args.path
    problem = path_problem(path)
    if problem:
        print("memboot efivars: %s" % problem, file=sys.stderr)
        return EXIT_USAGE
    notes = []
    try:
        recs = read_results(path, notes)
    except ResultsError as e:
        print("memboot efivars: %s" % terminal_safe(str(e)), file=sys.stderr)
        return EXIT_DATA
    for note in notes:
        print("memboot efivars: %s" % terminal_safe(note), file=sys.stderr)
    try:
        if not args.json:
            for line in summary_lines([r for _, r in recs]):
                print(terminal_safe(line))
        for line, _ in recs:
            # --json: bare JSON objects one a line, as `run --json` prints them.
            print(terminal_safe(line if args.json else RECORD_PREFIX + line))
        sys.stdout.flush()
    except BrokenPipeError:
        # `memboot efivars FILE | head`: the reader has what it wanted.
        sys.stdout = None
    return 0


# ---------------------------------------------------------------------------
# Where results land: the default efivarfs, --delete, one table of many
# ---------------------------------------------------------------------------

# MEMBOOT_EFIVARFS: another directory in its place (tests).
EFIVARFS = os.environ.get("MEMBOOT_EFIVARFS") or "/sys/firmware/efi/efivars"
# linux/fs.h: FS_IOC_GETFLAGS / FS_IOC_SETFLAGS (_IOR/_IOW('f', 1/2, long)),
# FS_IMMUTABLE_FL. efivarfs marks every variable that is not a standard one
# immutable, so it cannot be removed by accident; chattr -i clears it.
FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_IMMUTABLE_FL = 0x10
TABLE_FIELDS = ("source", "boot", "version", "boot_path", "loader", "cmdline", "nodes",
                "cpus", "pages", "init_ms", "node_init", "total_ms", "status", "reason",
                "warnings", "errors")


def default_paths_problem():
    """Why the default (no PATH) cannot be read, or None."""
    if os.path.isdir(EFIVARFS):
        return None
    return ("no %s: this Linux was not booted through UEFI, or efivarfs is not mounted "
            "(mount -t efivarfs efivarfs %s); name a variable-store file or a directory "
            "of variable files instead" % (EFIVARFS, EFIVARFS))


VARIABLE_FILE_RE = re.compile(re.escape(PREFIX) + r"[0-9]+-" + re.escape(GUID), re.ASCII)


def memboot_variable_files(path):
    """The MembootResultsNN-GUID files of an efivarfs directory, every index
    (also past a gap: all of them go with --delete)."""
    return [os.path.join(path, name) for name in sorted(os.listdir(path))
            if VARIABLE_FILE_RE.fullmatch(name)]


def clear_immutable(path):
    """chattr -i @path, through the ioctl chattr uses. A filesystem without
    the attribute (a copy of the variables on tmpfs) has nothing to clear."""
    import array
    import errno
    import fcntl
    try:
        # Not through a link: the attribute of what it points to stays.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return
        raise ResultsError("cannot open %s: %s" % (path, e.strerror)) from None
    try:
        flags = array.array("l", [0])
        try:
            fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        except OSError as e:
            if e.errno in (errno.ENOTTY, errno.EOPNOTSUPP, errno.EINVAL):
                return
            raise ResultsError("cannot read the attributes of %s: %s" % (path, e.strerror)) \
                from None
        if flags[0] & FS_IMMUTABLE_FL:
            flags[0] &= ~FS_IMMUTABLE_FL
            try:
                fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags)
            except OSError as e:
                raise ResultsError("cannot clear the immutable attribute of %s (chattr -i): "
                                   "%s%s" % (path, e.strerror, "; run as root"
                                             if e.errno == errno.EPERM else "")) from None
    finally:
        os.close(fd)


def delete_variables(path):
    """Remove memboot's variables from the efivarfs directory @path; the
    number removed."""
    if not os.path.isdir(path):
        raise ResultsError("--delete removes the variables from an efivarfs directory; %s is "
                           "a file (for a QEMU variable store, start from a fresh copy of "
                           "OVMF_VARS)" % path)
    files = memboot_variable_files(path)
    for f in files:
        clear_immutable(f)
        try:
            os.unlink(f)
        except OSError as e:
            raise ResultsError("cannot delete %s: %s" % (f, e.strerror)) from None
    return len(files)


def boots_of(path):
    """[[record, ...] per boot] kept under @path: an efivarfs directory or a
    variable store (one boot: every boot replaces the last), or a text file
    of records (a console log, a saved `memboot efivars` output with or
    without --json) with one boot per done record (split_boots())."""
    if os.path.isdir(path):
        return [[r for _, r in read_results(path)]]
    blob = read_var_store_blob(path, "file")
    if blob[40:44] == FV_SIGNATURE:
        return [[r for _, r in read_results(path, blob=blob)]]
    log = records.parse_log(records_text(blob), name=path)
    if not log.records:
        raise ResultsError("%s is neither an OVMF variable-store file (no firmware volume "
                           "signature \"_FVH\" at offset 40) nor a text file of memboot "
                           "records" % path)
    return split_boots(log.records)


def records_text(blob):
    """A text file's bytes with each bare JSON record line (`efivars
    --json`, `run --json`) given the MEMBOOT prefix of a console line."""
    return b"\n".join(RECORD_PREFIX.encode() + line
                      if line.lstrip().startswith(b'{"event"') else line
                      for line in blob.split(b"\n"))


def split_boots(recs):
    """Records of one or more boots, in the order they came, cut into boots:
    a boot ends with its done record, or where a second boot record starts
    (a boot that stopped before done). The kernel prints (and keeps) other
    records before its boot record: they are that boot's."""
    boots = []
    current = None
    for rec in recs:
        if current is None or (rec["event"] == "boot"
                               and any(r["event"] == "boot" for r in current)):
            current = []
            boots.append(current)
        current.append(rec)
        if rec["event"] == "done":
            current = None
    return boots


def table_row(source, index, recs):
    """One boot's figures, flat (CSV) with the per-node ones joined."""
    boot = next((r for r in recs if r["event"] == "boot"), {})
    numa = next((r for r in recs if r["event"] == "numa"), {})
    done = next((r for r in recs if r["event"] == "done"), {})
    nodes = [r for r in recs if r["event"] == "node_init"]
    ns = [r.get("ns") for r in nodes if isinstance(r.get("ns"), (int, float))]
    pages = [r.get("pages") for r in nodes if isinstance(r.get("pages"), int)]
    return {
        "source": source, "boot": index,
        "version": boot.get("version"), "boot_path": boot.get("boot_path"),
        "loader": boot.get("loader"), "cmdline": boot.get("cmdline"),
        "nodes": len(nodes) if nodes else numa.get("nodes"), "cpus": numa.get("cpus"),
        "pages": sum(pages) if pages else None,
        "init_ms": round(max(ns) / 1e6, 3) if ns else None,
        "node_init": [{"node": r.get("node"), "pages": r.get("pages"), "ns": r.get("ns"),
                       "policy": r.get("policy"), "threads": r.get("threads")}
                      for r in nodes],
        "total_ms": round(done["total_ns"] / 1e6, 3)
        if isinstance(done.get("total_ns"), (int, float)) else None,
        "status": done.get("status"), "reason": done.get("reason") if done else "no done record",
        "warnings": done.get("warnings"), "errors": done.get("errors"),
    }


def csv_cell(value):
    """A table value as CSV text, its control characters escaped as
    everywhere else the tool prints (terminal_safe())."""
    if value is None:
        return ""
    if isinstance(value, list):
        value = " ".join("%s:%s:%s" % (n["node"], n["pages"], n["ns"]) for n in value)
    return terminal_safe(value) if isinstance(value, str) else value


def print_table(rows, fmt, out):
    import csv
    import json
    if fmt == "json":
        # ensure_ascii: every control character (and DEL, C1) as \\u00XX.
        json.dump(rows, out, indent=1, ensure_ascii=True)
        out.write("\n")
        return
    w = csv.writer(out, lineterminator="\n")
    w.writerow(TABLE_FIELDS)
    for row in rows:
        w.writerow([csv_cell(row[f]) for f in TABLE_FIELDS])


def cmd_efivars(args):
    """efivars [PATH ...] [--delete] [--table csv|json]: no PATH is the
    machine's own efivarfs; one PATH without --table is cmd_efivars_one; many,
    or --table, one row per machine and boot."""
    paths = list(args.path) if args.path else []
    if not paths:
        problem = default_paths_problem()
        if problem:
            print("memboot efivars: %s" % problem, file=sys.stderr)
            return EXIT_USAGE
        paths = [EFIVARFS]
    if args.delete and (len(paths) != 1 or not os.path.isdir(paths[0])):
        print("memboot efivars: --delete takes one efivarfs directory (default %s)"
              % EFIVARFS, file=sys.stderr)
        return EXIT_USAGE
    if args.save:
        try:
            n = save_variables(paths, args.save)
        except SaveRefused as e:
            print("memboot efivars: --save: %s; nothing written" % e, file=sys.stderr)
            return EXIT_USAGE
        except ResultsError as e:
            print("memboot efivars: --save: %s; nothing written" % terminal_safe(str(e)),
                  file=sys.stderr)
            return EXIT_DATA
        print("memboot efivars: saved %d variable%s in %s (efivars %s reads them)"
              % (n, "" if n == 1 else "s", args.save, args.save), file=sys.stderr)
    if len(paths) == 1 and not args.table:
        args.path = paths[0]
        status = cmd_efivars_one(args)
    else:
        status = cmd_efivars_table(paths, args.table or "csv")
    if args.delete:
        try:
            n = delete_variables(paths[0])
        except ResultsError as e:
            print("memboot efivars: --delete: %s" % e, file=sys.stderr)
            return EXIT_USAGE
        print("memboot efivars: deleted %d variable%s from %s"
              % (n, "" if n == 1 else "s", paths[0]), file=sys.stderr)
    return status


class SaveRefused(Exception):
    """--save cannot write where it is asked to (a usage error)."""


def save_variables(paths, dest):
    """--save DEST: copies of memboot's variable files of the one efivarfs
    directory in @paths, as `efivars DEST` reads them back (attributes and
    data, byte for byte). Each is read with read() to its end under the
    file rule: efivarfs files cannot seek, so `cp` (which seeks to find
    holes) makes empty copies of them. DEST is created, or an existing
    directory without memboot variables; a failure leaves no copy."""
    if len(paths) != 1 or not os.path.isdir(paths[0]):
        raise SaveRefused("--save copies the files of an efivarfs directory (one PATH, "
                          "default %s); a variable-store file is copied with cp" % EFIVARFS)
    if os.path.lexists(dest) and not os.path.isdir(dest):
        raise SaveRefused("%s exists and is not a directory" % dest)
    if os.path.isdir(dest) and memboot_variable_files(dest):
        raise SaveRefused("%s already holds memboot variables (of another boot?); give a "
                          "new or empty directory" % dest)
    parent = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(dest) and not os.path.isdir(parent):
        raise SaveRefused("cannot create %s: %s does not exist" % (dest, parent))
    files = memboot_variable_files(paths[0])
    if not files:
        raise ResultsError("%s holds no memboot results (no variable %s-%s)"
                           % (paths[0], chunk_name(0), GUID))
    copies = []
    for f in files:
        try:
            copies.append((os.path.basename(f), inputs.read_input(f, "variable")))
        except inputs.InputError as e:
            raise ResultsError(str(e)) from None
    made = not os.path.isdir(dest)
    written = []
    try:
        if made:
            os.mkdir(dest)
        for name, data in copies:
            target = os.path.join(dest, name)
            tmp = target + ".part"
            with open(tmp, "xb") as out:
                out.write(data)
            os.rename(tmp, target)
            written.append(target)
    except OSError as e:
        for path in written + [os.path.join(dest, n + ".part") for n, _ in copies]:
            if os.path.lexists(path):
                os.unlink(path)
        if made and os.path.isdir(dest) and not os.listdir(dest):
            os.rmdir(dest)
        raise SaveRefused("cannot write in %s: %s" % (dest, inputs.os_error_text(e))) \
            from None
    return len(copies)


def cmd_efivars_table(paths, fmt):
    rows = []
    status = 0
    for path in paths:
        if not os.path.exists(path) or not os.access(path, os.R_OK) or not (
                os.path.isdir(path) or os.path.isfile(path)):
            print("memboot efivars: %s does not exist or cannot be read; no row" % path,
                  file=sys.stderr)
            status = EXIT_USAGE
            continue
        try:
            for i, recs in enumerate(boots_of(path), 1):
                rows.append(table_row(path, i, recs))
        except (ResultsError, records.LogError) as e:
            print("memboot efivars: %s; no row" % e, file=sys.stderr)
            status = status or EXIT_DATA
    try:
        print_table(rows, fmt, sys.stdout)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = None
    return status


def add_table_options(p):
    """The options of efivars beyond one PATH (add_parser calls this)."""
    p.add_argument("--delete", action="store_true",
                   help="after printing, remove memboot's variables from the efivarfs "
                        "directory (clearing the immutable attribute efivarfs puts on "
                        "them, as chattr -i does; needs root)")
    p.add_argument("--save", metavar="DIR",
                   help="first copy memboot's variable files of the efivarfs directory "
                        "into DIR (created; `efivars DIR` reads the copies; cp makes empty "
                        "copies of efivarfs files)")
    p.add_argument("--table", choices=("csv", "json"),
                   help="one row per machine and boot, from every PATH (the default with "
                        "more than one PATH: csv)")
