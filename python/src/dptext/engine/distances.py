"""Arrays of doubles computed once per machine (or shipped in the wheel: ``SHIPPED``): the exact distance of every
entry of a neighbour table, a sampler's envelope rows for one epsilon and cap (``ExponentialNeighbourSampler``),
CusText's groups and rows for one K and epsilon (``mechanisms._custext_tables``), BRR's floors (``brr.Codes``).

SanText's and TEM's envelope rows need d(x, y) for each of a table's entries (8.9 M on the default model),
in the JVM's summation order, then the exponentials of epsilon: the bulk of a Python worker's first batch.
The distances depend on the model's vectors and the table only, the rows also on epsilon and the cap; so the
first process that needs them computes them all and writes them to the machine's cache, and every later worker
and run maps the file.

A file is keyed by the content it was computed from (a SHA-256 over the vectors, the table's arrays and this
format's version; for envelope rows also epsilon and the cap), written atomically (a temporary file, then
``os.replace``), and checked before use: its size, its header, a SHA-256 of its values, and a sample of entries
recomputed here bit for bit. A file that fails any check is ignored and rewritten. Where no cache directory can
be written everything stays in memory and is computed for the words met only, as without a cache; so it is
where the directory or the file could be written by another user (as the JVM's model cache, docs/models.md).
Envelope files, one per epsilon and cap, are pruned to the ones used last (``prune``).

Where: ``DPTEXT_MODEL_CACHE`` (the directory the JVM's launcher caches the default model in; ``off``, ``0``,
``false`` or ``none`` turn it off), else ``$XDG_CACHE_HOME/dptext/models``, else ``~/.cache/dptext/models``,
else a per-user directory in the system's temporary directory. Directories are created ``0700``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import tempfile
from pathlib import Path

import numpy as np

ENV = "DPTEXT_MODEL_CACHE"
# Files the wheel ships beside the default model, in this format and with these keys (``engine.prebuilt``): read
# first, never written at run time.
SHIPPED = Path(__file__).resolve().parent.parent / "models" / "prebuilt"
_MAGIC = b"DPTEXT-DIST\x00"
_VERSION = 1
_HEADER = 128  # magic, version, entries, key, payload SHA-256; padded so the payload is 8-byte aligned
_LAYOUT = "<12sIQ32s32s"
_SAMPLES = 64


def cache_dir(env: dict[str, str] | None = None) -> Path | None:
    """The directory of the machine's cache, or ``None`` when it is turned off."""
    env = os.environ if env is None else env
    value = (env.get(ENV) or "").strip()
    if value:
        if value.lower() in ("off", "0", "false", "none"):
            return None
        return Path(value).absolute()
    xdg = (env.get("XDG_CACHE_HOME") or "").strip()
    if xdg and Path(xdg).is_absolute():  # XDG: a relative XDG_CACHE_HOME is invalid and ignored
        return Path(xdg, "dptext", "models")
    home = (env.get("HOME") or env.get("USERPROFILE") or "").strip()
    if home and home != "/" and Path(home).is_absolute():
        return Path(home, ".cache", "dptext", "models")
    uid = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir(), f"dptext-{uid}", "models")


def key(vectors: np.ndarray, offsets: np.ndarray, neighbours: np.ndarray, target_start: int) -> bytes:
    """What the distances depend on: the vectors, the table and how they are computed (this format's version)."""
    h = hashlib.sha256(f"dptext-distances/{_VERSION}/{target_start}/{vectors.shape}/".encode())
    for a in (vectors, offsets, neighbours):
        h.update(str(a.dtype).encode())
        h.update(np.ascontiguousarray(a).data)
    return h.digest()


def path_for(directory: Path, digest: bytes, kind: str) -> Path:
    """The file of one ``kind`` of array (``distances``, ``envelopes``) with key ``digest``."""
    return directory / f"{kind}-{digest.hex()[:40]}.f64"


def read(path: Path, digest: bytes, entries: int, check, shipped: bool = False) -> np.ndarray | None:
    """The values in ``path``, mapped read-only, or ``None`` when the file is missing or fails a check
    (``check(d)``: whether a sample of ``d`` matches a fresh computation). A ``shipped`` file (``SHIPPED``) is the
    installed package's, as trusted as its code: whoever owns it."""
    if not shipped and not _private(path.parent):
        return None
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            if not shipped and not _owned_alone(st):
                return None
            if st.st_size != _HEADER + 8 * entries:
                return None
            magic, version, n, file_key, payload_sha = struct.unpack(_LAYOUT, f.read(struct.calcsize(_LAYOUT)))
        if magic != _MAGIC or version != _VERSION or n != entries or file_key != digest:
            return None
        d = np.memmap(path, dtype="<f8", mode="r", offset=_HEADER, shape=(entries,))
    except (OSError, ValueError, struct.error):
        return None
    if hashlib.sha256(d.data).digest() != payload_sha or not check(d):
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # (read recently: ``prune`` keeps it)
    return d


def _owned_alone(st: os.stat_result) -> bool:
    """On POSIX: this user's, and nobody else can write it (a file another user could replace or edit would
    decide this user's outputs)."""
    return not hasattr(os, "getuid") or (st.st_uid == os.getuid() and not st.st_mode & 0o022)


def _private(directory: Path) -> bool:
    try:
        return _owned_alone(os.stat(directory))
    except OSError:
        return False


def lock_path(path: Path) -> Path:
    return path.with_name("." + path.name + ".lock")


@contextlib.contextmanager
def exclusive(path: Path):
    """Holds this machine's lock on computing ``path`` (an advisory lock on ``lock_path(path)``): Spark starts a
    machine's Python workers together, and the ones that wait then read the file the first one wrote instead of
    all computing it at once. Where locks are unavailable (no ``fcntl``, a file system without them, a directory
    that cannot be written) nothing is held and each process computes, as without the lock."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # A directory another user can write is not used (see writable): no lock either.
        f = open(lock_path(path), "ab") if _private(path.parent) else None  # noqa: SIM115 (held across the yield)
    except OSError:
        f = None
    if f is None:
        yield
        return
    with f:
        with contextlib.suppress(OSError):
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)  # released by the kernel if this process dies
        yield


def writable(directory: Path, kind: str):
    """An open temporary file in ``directory`` (created 0700), or ``None`` when it cannot be written."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(directory):
            return None
        return tempfile.NamedTemporaryFile(dir=directory, prefix=f".{kind}-", suffix=".tmp", delete=False)
    except OSError:
        return None


def write(tmp, path: Path, digest: bytes, d: np.ndarray) -> bool:
    """Writes ``d`` through the open temporary file ``tmp`` and moves it to ``path`` atomically: a reader sees
    the whole file or none. Returns whether it did; failures leave no file behind. No fsync (~0.1 s per 72 MB):
    a file the machine's crash left torn fails ``read``'s size or SHA-256 check and is computed again."""
    try:
        with tmp:
            payload = np.ascontiguousarray(d, dtype="<f8")
            header = struct.pack(_LAYOUT, _MAGIC, _VERSION, len(payload), digest, hashlib.sha256(payload.data).digest())
            tmp.write(header.ljust(_HEADER, b"\x00"))
            tmp.write(payload.data)
        os.replace(tmp.name, path)
        return True
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp.name)
        return False


def prune(directory: Path, kind: str, keep: int) -> None:
    """Removes the files of ``kind`` but the ``keep`` most recently written or read. A process that has mapped a
    removed file keeps its pages; one about to open it finds none and computes the rows again."""
    with contextlib.suppress(OSError):
        files = []
        for p in directory.glob(f"{kind}-*.f64"):
            with contextlib.suppress(OSError):
                files.append((p.stat().st_mtime_ns, p))
        for _, p in sorted(files, reverse=True)[keep:]:
            with contextlib.suppress(OSError):
                p.unlink()


def store(directory: Path, kind: str, digest: bytes, values: np.ndarray) -> Path | None:
    """Writes ``values`` as the file of ``kind`` with key ``digest`` in ``directory``, readable by all (the build
    ships it: ``SHIPPED``); ``None`` when it cannot."""
    tmp = writable(directory, kind)
    path = path_for(directory, digest, kind)
    if tmp is None or not write(tmp, path, digest, values):
        return None
    path.chmod(0o644)
    return path


def once_per_machine(kind: str, digest: bytes, entries: int, check, compute, keep: int | None = None):
    """The ``entries`` values of ``kind`` with key ``digest``: mapped read-only from the files the package ships
    (``SHIPPED``), else from the machine's cache (``read``, ``check`` as there), else ``compute()``d and written
    there by the one process holding the machine's lock (the others then read its file); ``None`` where no cache
    directory can be used (the caller computes what it needs in memory). After a write, the files of ``kind`` are
    pruned to the ``keep`` used last, if given."""
    found = read(path_for(SHIPPED, digest, kind), digest, entries, check, shipped=True)
    if found is not None:
        return found
    directory = cache_dir()
    if directory is None:
        return None
    path = path_for(directory, digest, kind)
    found = read(path, digest, entries, check)
    if found is not None:
        return found
    with exclusive(path):
        found = read(path, digest, entries, check)  # another worker may have written it while this one waited
        if found is not None:
            return found
        tmp = writable(directory, kind)
        if tmp is None:
            return None
        values = compute()
        if write(tmp, path, digest, values) and keep is not None:
            prune(directory, kind, keep)
        return values
