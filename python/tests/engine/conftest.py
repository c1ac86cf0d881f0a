"""The engine's tests need no Spark session: they compare the Python engine with the JVM's classes directly
(``oracle/Oracle.java``, run once per test module).

The engine is imported from this source tree (python/src), also when an older dptext is installed in the
virtual environment: its folder goes first on the ``dptext`` package's path.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

_SRC_PACKAGE = Path(__file__).resolve().parents[2] / "src" / "dptext"

try:
    import dptext as _dptext
except ImportError:  # a source tree the build has not staged (no _version.py): the engine needs no more
    _dptext = types.ModuleType("dptext")
    _dptext.__path__ = []
    sys.modules["dptext"] = _dptext
if str(_SRC_PACKAGE) not in list(_dptext.__path__):
    _dptext.__path__.insert(0, str(_SRC_PACKAGE))
