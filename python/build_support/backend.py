"""The build backend of ``pip install ./python``: setuptools, once the Maven build has derived its files.

The package's version, its jar, its registry and its default model (``_version.py``, ``jars/``,
``registry.json``, ``models/default.dptext-model``) are written by the Maven build
(``build_support/maven.py``) into ``python/target/pkg``, never into the sources. Installing the sources
directly would give a package without them, so that is refused with
the commands that build and install the wheel.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools

WHEEL_COMMAND = "./mvnw -B -ntp -DskipTests -Ppython-wheel package"
INSTALL_COMMAND = "pip install python/target/dist/dptext-*.whl"

MESSAGE = (
    "dptext's Python package is built by Maven, around the jar of the same build: its version, jar, "
    "registry of mechanisms and default model are derived files that a source tree does not have. From the root of the "
    f"clone, run\n\n    {WHEEL_COMMAND}\n    {INSTALL_COMMAND}\n\n(Java 17+ and python3 >= 3.10; the first "
    "build downloads the pinned Python tools of python/requirements-dev.txt from PyPI)."
)


def missing() -> list[str]:
    """The derived files this source tree lacks (empty in the tree the Maven build staged)."""
    package = Path(__file__).resolve().parent.parent / "src" / "dptext"
    out = [
        name
        for name in ("_version.py", "registry.json", "models/default.dptext-model")
        if not (package / name).is_file()
    ]
    jars = package / "jars"
    if not (jars.is_dir() and any(jars.glob("dptext-udfs-*.jar"))):
        out.append("jars/dptext-udfs-<version>.jar")
    return out


def _require_build() -> None:
    if missing():
        raise SystemExit(MESSAGE)


def _checked(name: str) -> Any:
    hook = getattr(_setuptools, name)

    def checked(*args: Any, **kwargs: Any) -> Any:
        _require_build()
        return hook(*args, **kwargs)

    checked.__name__ = name
    return checked


get_requires_for_build_wheel = _checked("get_requires_for_build_wheel")
get_requires_for_build_sdist = _checked("get_requires_for_build_sdist")
get_requires_for_build_editable = _checked("get_requires_for_build_editable")
prepare_metadata_for_build_wheel = _checked("prepare_metadata_for_build_wheel")
prepare_metadata_for_build_editable = _checked("prepare_metadata_for_build_editable")
build_wheel = _checked("build_wheel")
build_sdist = _checked("build_sdist")
build_editable = _checked("build_editable")
