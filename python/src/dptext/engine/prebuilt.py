"""What the wheel ships beside the default model so that no machine computes it: BRR's floors at the default
number of bits (each word's Hamming distance to its nearest other word, capped; ~2 s of scanning for a machine's
first Python worker, 200 KB, a few KB in the wheel).

The files are in the machine cache's format and keys (``engine.distances``) and live in ``distances.SHIPPED``;
``distances.once_per_machine`` reads them before the machine's cache and checks them the same way, so a file that
does not match the model or the code in use is ignored. The build writes them into the staged package
(build_support/maven.py):

    python -m dptext.engine.prebuilt DIRECTORY

SanText's, SanText+'s and TEM's tables are not shipped: their envelope rows are 72 MB per table and epsilon, and
their distances keep ~0.65 of their 72 MB compressed (docs/python-and-connect.md, "The Python engine").
"""

from __future__ import annotations

import sys
from pathlib import Path

from dptext.engine import distances, model
from dptext.engine.brr import Brr
from dptext.engine.sanitizer import EngineSettings


def write(directory: Path) -> list[Path]:
    """Writes the shipped files for the default model and the registry's defaults into ``directory``."""
    settings = EngineSettings.resolve({"mechanism": "brr"})
    brr = settings.build_mechanism(model.load(settings.model))
    if not isinstance(brr, Brr):
        raise AssertionError(type(brr))
    codes = brr.codes
    written = distances.store(directory, "floors", codes.floors_key(), codes.all_floors())
    if written is None:  # (the build's own step: it stops with this line, no user meets it)
        raise SystemExit(f"prebuilt: cannot write BRR's floors in {directory}")
    return [written]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m dptext.engine.prebuilt DIRECTORY", file=sys.stderr)
        return 2
    for path in write(Path(argv[1])):
        print(f"prebuilt: {path.name} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
