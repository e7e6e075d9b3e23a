"""optional: packages some tools and tests use when they are installed.

Debian's python3-matplotlib and python3-hypothesis (tools/setup-deps.sh
installs both) live in /usr/lib/python3/dist-packages, which a python3 that
is not Debian's own (pyenv, a venv) does not search: debian_import() looks
there too before it gives up.
"""

import importlib
import os
import sys

DEBIAN_DIST_PACKAGES = "/usr/lib/python3/dist-packages"


def debian_import(name):
    """The module @name, also from Debian's dist-packages; None if absent."""
    for attempt in range(2):
        try:
            return importlib.import_module(name)
        except ImportError:
            if attempt or not os.path.isdir(DEBIAN_DIST_PACKAGES) \
                    or DEBIAN_DIST_PACKAGES in sys.path:
                return None
            sys.path.append(DEBIAN_DIST_PACKAGES)
    return None
