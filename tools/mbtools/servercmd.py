"""/usr/bin/memboot of the Debian package (tools/mbtools/package.py): the
server's commands, install, uninstall and efivars, with the package's own
kernel and loader as their defaults. Needs no kernel tree: facts come from
built_facts.json beside this module.
"""

import argparse
import os
import sys

from mbtools import efivars, facts, inputs, install

# /usr/lib/memboot: this file is /usr/lib/memboot/tools/mbtools/servercmd.py.
LIB = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Parser(argparse.ArgumentParser):
    """Usage errors exit 64, as tools/memboot's do."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(facts.EXIT_USAGE, "%s: error: %s\n" % (self.prog, message))


def use_package_files():
    """install's defaults: the package's kernel and loader."""
    elf = os.path.join(LIB, "memboot.elf")
    if os.path.isfile(elf):
        install.DEFAULT_ELF = elf
    loader = os.path.join(LIB, "memboot.efi")
    if os.path.isfile(loader):
        install.DEFAULT_LOADER = loader


def make_parser():
    p = Parser(prog="memboot", allow_abbrev=False,
               description="memboot on this machine: install it for the next boot, "
                           "read the results it kept, uninstall it (docs: "
                           "/usr/share/doc/memboot, and the project's docs/spare-metal.md).")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    install.add_parser(sub)
    efivars.add_parser(sub)
    return p


def main(argv=None):
    use_package_files()
    p = make_parser()
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    if not getattr(args, "func", None):
        p.print_help(sys.stderr)
        return facts.EXIT_USAGE
    if isinstance(getattr(args, "append", None), list):
        # As tools/memboot does: every --append counts, joined in order.
        args.append = " ".join(a for a in args.append if a)
        problem = inputs.cmdline_problem(args.append)
        if problem:
            p.error(problem)
    return args.func(args)
