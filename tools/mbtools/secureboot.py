"""Secure Boot for memboot install: what the machine's firmware enforces,
what will happen to memboot's entry, and the ways through.

  state()      the UEFI global variables SecureBoot and SetupMode (UEFI 2.10,
               3.3: one byte each, 1 = on) from efivarfs, and `mokutil
               --sb-state` where efivarfs does not have them
  notice()     the lines install prints: BIOS (results on the console only),
               Secure Boot off, setup mode, or on: what GRUB does with an
               unsigned memboot (refuses it; the entry falls back) and the
               ways through (a machine owner key, or Secure Boot off)
  sign()       sbsign of memboot's UEFI loader with the user's key and
               certificate (sbsigntool), for GRUB's chainloader through shim
               or for the firmware itself (BootNext, key in db)
  fallback_lines()  what memboot's GRUB entry sets first, so that a refused
               entry never leaves the machine at a menu: `fallback` and
               `default` to the machine's own default entry, and a timeout
               for the menu GRUB shows after a failed entry

Standard library only; sbsign and mokutil are run when present.
"""

import os
import re
import subprocess

EFIVARFS = "sys/firmware/efi/efivars"      # relative to the host root
GLOBAL_GUID = "8be4df61-93ca-11d2-aa0d-00e098032b8c"
# After a failed entry GRUB shows its menu again; with this timeout it boots
# the default entry by itself (GRUB unsets `timeout` when its countdown ends).
MENU_TIMEOUT_S = 5


def read_var(efivarfs, name, guid=GLOBAL_GUID):
    """The data of efivarfs variable NAME-GUID (without its 4 bytes of
    attributes), or None when it is not there or unreadable. Read with one
    read(): efivarfs files cannot seek."""
    path = os.path.join(efivarfs, "%s-%s" % (name, guid))
    try:
        with open(path, "rb", buffering=0) as f:
            raw = f.read(65536)
    except OSError:
        return None
    return raw[4:] if len(raw) >= 4 else None


def _flag(data):
    if data is None or len(data) < 1:
        return None
    return data[0] == 1


def mokutil_state(which):
    """True/False from `mokutil --sb-state`, None without mokutil or an answer."""
    tool = which("mokutil")
    if tool is None:
        return None
    try:
        out = subprocess.run([tool, "--sb-state"], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout + out.stderr
    if re.search(r"SecureBoot enabled", text):
        return True
    if re.search(r"SecureBoot disabled", text):
        return False
    return None


def state(host_root, which):
    """{"uefi", "secure_boot", "setup_mode", "source"} of the running machine
    (@host_root: '/' or the tree that stands for it)."""
    efi = os.path.join(host_root, "sys", "firmware", "efi")
    efivarfs = os.path.join(host_root, EFIVARFS)
    out = {"uefi": os.path.isdir(efi), "secure_boot": None, "setup_mode": None,
           "source": None}
    if not out["uefi"]:
        return out
    out["secure_boot"] = _flag(read_var(efivarfs, "SecureBoot"))
    out["setup_mode"] = _flag(read_var(efivarfs, "SetupMode"))
    if out["secure_boot"] is not None:
        out["source"] = "efivarfs"
    else:
        out["secure_boot"] = mokutil_state(which)
        out["source"] = "mokutil" if out["secure_boot"] is not None else None
    return out


def enforcing(st):
    return bool(st["uefi"] and st["secure_boot"] and not st["setup_mode"])


def notice(st, signed, bootnext):
    """The lines install prints about the firmware, for state @st; @signed:
    the loader is signed by the user's key (--sign-key); @bootnext: the
    firmware boots it itself."""
    if not st["uefi"]:
        return ["this machine booted through BIOS (no /sys/firmware/efi): memboot keeps no "
                "results in UEFI variables here; they are on its console only (a serial "
                "line or the BMC's serial over LAN; docs/spare-metal.md, \"BIOS servers\")"]
    if st["secure_boot"] is None:
        return ["Secure Boot: unknown (no SecureBoot variable in efivarfs and no answer from "
                "mokutil); if it is on, GRUB refuses memboot and boots its default entry "
                "instead"]
    if not st["secure_boot"]:
        return ["Secure Boot is off (%s): memboot boots as it is" % st["source"]]
    if st["setup_mode"]:
        return ["Secure Boot is in setup mode (no platform key): not enforced, memboot boots "
                "as it is"]
    if signed:
        return ["Secure Boot is on: memboot's loader is signed with your key; %s" % (
            "the firmware checks it against its db (a machine owner key is shim's, not the "
            "firmware's)" if bootnext else
            "shim checks it against the machine owner keys (enrolled once with mokutil "
            "--import CERT.der and MokManager at the console) and the firmware's db")]
    return ["Secure Boot is on: GRUB will refuse memboot's unsigned kernel (\"prohibited by "
            "secure boot policy\" or \"bad shim signature\"); the entry then falls back to "
            "GRUB's default entry, so the next boot is this machine's own OS and memboot "
            "does not run",
            "ways through: sign memboot with a machine owner key (install --sign-key KEY "
            "--sign-cert CERT; the key enrolled once with mokutil --import), or turn Secure "
            "Boot off in the firmware for the test (docs/spare-metal.md, \"Secure Boot\")"]


def mok_enrolled(which, cert_der):
    """True/False from `mokutil --test-key`, None without mokutil."""
    tool = which("mokutil")
    if tool is None:
        return None
    try:
        out = subprocess.run([tool, "--test-key", cert_der], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = out.stdout + out.stderr
    if "is already enrolled" in text:
        return True
    if "is not enrolled" in text:
        return False
    return None


def sign_argv(which, key, cert, src, dst):
    """sbsign's command line, or None when sbsign is missing."""
    tool = which("sbsign")
    if tool is None:
        return None
    return [tool, "--key", key, "--cert", cert, "--output", dst, src]


def fallback_lines(default):
    """GRUB script memboot's entry runs first. @default: GRUB_DEFAULT as
    /etc/default/grub sets it (None: 0, grub-mkconfig's own default).
    `fallback` takes an entry number only (GRUB 2.06 reads no title there),
    so a numeric default gets it; every default is put back as `default`
    with a timeout, which is the menu GRUB shows after a refused entry."""
    value = "0" if default is None or default == "" else default
    lines = []
    if value == "saved":
        lines.append('\tif [ -n "${saved_entry}" ]; then set default="${saved_entry}"; '
                     'else set default=0; fi\n')
    else:
        lines.append("\tset default=%s\n" % _grub_quote(value))
    if value.isdigit():
        lines.append("\tset fallback=%s\n" % value)
    elif value == "saved":
        lines.append('\tif regexp \'^[0-9]+$\' "${default}"; then set fallback="${default}"; fi\n')
    lines.append("\tset timeout=%d\n" % MENU_TIMEOUT_S)
    return "".join(lines)


def _grub_quote(word):
    if re.fullmatch(r"[A-Za-z0-9_.:=,+@%-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"
