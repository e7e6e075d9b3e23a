"""memboot results: the summary records a UEFI boot kept in UEFI variables
(kernel/results.c), read back from

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
import struct
import sys
import uuid

from mbtools import records

RECORD_PREFIX = "MEMBOOT "
GUID = "4d454d42-4f4f-5452-9e53-756c74730001"
PREFIX = "MembootResults"
MAX_CHUNKS = 32

FV_SIGNATURE = b"_FVH"
AUTH_VARIABLE_GUID = uuid.UUID("aaf32c78-947b-439a-a180-2e144ec37792")
VARIABLE_GUID = uuid.UUID("ddcf3616-3275-4164-98b6-fe85707ffe7d")
VARIABLE_START_ID = 0x55AA
VAR_ADDED = 0x3F
VAR_IN_DELETED_TRANSITION = 0xFE
EXIT_USAGE = 64
EXIT_DATA = 65


class ResultsError(Exception):
    """The input is readable but is not what memboot results reads."""


def chunk_name(i):
    return "%s%02u" % (PREFIX, i)


def read_efivarfs(path):
    """{name: data} of memboot's variables in an efivarfs directory."""
    found = {}
    for i in range(MAX_CHUNKS):
        f = os.path.join(path, "%s-%s" % (chunk_name(i), GUID))
        if not os.path.exists(f):
            break
        try:
            with open(f, "rb") as fh:
                raw = fh.read()
        except OSError as e:
            raise ResultsError("cannot read %s: %s" % (f, e.strerror)) from None
        if len(raw) < 4:
            raise ResultsError("%s: %d bytes, shorter than efivarfs's 4 bytes of attributes"
                               % (f, len(raw)))
        found[chunk_name(i)] = raw[4:]
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


def read_var_store_file(path):
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise ResultsError("cannot read %s: %s" % (path, e.strerror)) from None
    all_vars = parse_var_store(blob)
    return {name: data for (name, guid), data in all_vars.items() if guid == GUID}


def chunks_in_order(found, where):
    """The chunks' text joined, in index order, up to the first missing."""
    if chunk_name(0) not in found:
        raise ResultsError("%s holds no memboot results (no variable %s-%s)"
                           % (where, chunk_name(0), GUID))
    parts = []
    for i in range(MAX_CHUNKS):
        data = found.get(chunk_name(i))
        if data is None:
            break
        parts.append(data)
    try:
        return b"".join(parts).decode("ascii")
    except UnicodeDecodeError:
        raise ResultsError("%s: the results are not ASCII text (not written by memboot?)"
                           % where) from None


def read_results(path):
    """The records memboot kept, from an efivarfs directory or a var-store file."""
    if os.path.isdir(path):
        text = chunks_in_order(read_efivarfs(path), path)
    else:
        text = chunks_in_order(read_var_store_file(path), path)
    recs = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = records.parse_record(RECORD_PREFIX + line, strict=True)
        except records.RecordError as e:
            raise ResultsError("%s: kept record %d does not parse: %s" % (path, n, e)) from None
        if rec is None:
            raise ResultsError("%s: kept line %d is not a record: %r" % (path, n, line[:80]))
        recs.append((line, rec))
    if not recs:
        raise ResultsError("%s: the memboot variables hold no records" % path)
    return recs


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
    p = sub.add_parser(
        "results", help="print the summary a UEFI boot kept in UEFI variables",
        description="Read the records memboot kept in UEFI variables (MembootResults00.. "
                    "under GUID %s) from an efivarfs directory (/sys/firmware/efi/efivars "
                    "on Linux booted later on that machine) or an OVMF variable-store "
                    "file (memboot run --vars FILE), and print them as a boot log would."
                    % GUID)
    p.add_argument("path", metavar="PATH", help="efivarfs directory or OVMF_VARS file")
    p.add_argument("--json", action="store_true", help="print only the records")
    p.set_defaults(func=cmd_results)


def cmd_results(args):
    path = args.path
    if not os.path.exists(path):
        print("memboot results: %s does not exist" % path, file=sys.stderr)
        return EXIT_USAGE
    if not os.path.isdir(path) and not os.path.isfile(path):
        print("memboot results: %s is neither a directory nor a file" % path, file=sys.stderr)
        return EXIT_USAGE
    if not os.access(path, os.R_OK):
        print("memboot results: %s cannot be read" % path, file=sys.stderr)
        return EXIT_USAGE
    try:
        recs = read_results(path)
    except ResultsError as e:
        print("memboot results: %s" % e, file=sys.stderr)
        return EXIT_DATA
    try:
        if not args.json:
            for line in summary_lines([r for _, r in recs]):
                print(line)
        for line, _ in recs:
            print(RECORD_PREFIX + line)
        sys.stdout.flush()
    except BrokenPipeError:
        # `memboot results FILE | head`: the reader has what it wanted.
        sys.stdout = None
    return 0
