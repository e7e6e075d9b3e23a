"""Load one of the tools' scripts (tools/memboot, tools/check-includes.py:
files Python cannot import by name) as a module, for the tool tests."""

import importlib.machinery
import importlib.util


def load_script(path, name):
    """The script at @path, run once as a fresh module called @name."""
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
