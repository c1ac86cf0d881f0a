"""The model file (docs/model-format.md, version 2), read without a JVM.

The file is mapped, not read: every array is a NumPy view over the mapping (zero-copy), and each one is
checked against the SHA-256 its header records before it is used. A process keeps the models it opened,
so a Python worker that Spark reuses across tasks maps and checks a model once.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
import threading
from dataclasses import dataclass
from functools import cached_property
from importlib import resources
from pathlib import Path

import numpy as np

from dptext.errors import DpTextError

MAGIC = b"DPTEXT-MODEL"
VERSION = 2
DEFAULT_NAME = "default"
DEFAULT_FILE = "default.dptext-model"


class ModelError(DpTextError):
    """A model that cannot be used: missing, not a dptext model, of another version, or corrupted (a
    ``DpTextError`` of the catalogue, e.g. ``MODEL_FILE_NOT_FOUND``)."""


@dataclass(frozen=True)
class NeighbourTable:
    """One neighbour table: word x's nearest targets are ``neighbours[offsets[x]:offsets[x + 1]]``, nearest
    first, and every target outside that row lies at least ``outside_bounds[x]`` from x."""

    target_start: int
    offsets: np.ndarray
    neighbours: np.ndarray
    outside_bounds: np.ndarray


class Model:
    """A dptext model: the vocabulary in rank order, its vectors and its neighbour tables."""

    def __init__(self, path: str, name: str | None = None) -> None:
        self.name = name or path
        try:
            with open(path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except FileNotFoundError:
            raise ModelError.of("MODEL_FILE_NOT_FOUND", model=self.name) from None
        except (OSError, ValueError) as e:
            raise ModelError.of("MODEL_FILE_UNREADABLE", model=self.name, kind=type(e).__name__) from None
        header = self._header()
        self.metadata: dict[str, str] = dict(header.get("metadata", {}))
        self.embeddings_sha256: str = header["embeddingsSha256"]
        self.size: int = int(header["vocabularySize"])
        self.dim: int = int(header["dimension"])
        self._arrays: dict = header["arrays"]
        self._data_start = 24 + self._header_length
        self._checked: set[str] = set()
        self._lock = threading.Lock()
        self._table_names = {int(t["targetStart"]): t for t in header.get("tables", [])}
        self._tables: dict[int, NeighbourTable] = {}
        self._covariance: str | None = header.get("covariance")

    def _header(self) -> dict:
        m = self._map
        if len(m) < 24 or m[:12] != MAGIC:
            raise ModelError.of("MODEL_NOT_A_DPTEXT_MODEL", model=self.name)
        if m[12:16] == b"\x00\x00\x00\x01":
            raise ModelError.of("MODEL_VERSION_JVM_ONLY", model=self.name)
        (version,) = struct.unpack_from("<I", m, 12)
        if version != VERSION:
            raise ModelError.of(
                "MODEL_VERSION_UNSUPPORTED", model=self.name, version=version, supported=f"version {VERSION}"
            )
        (length,) = struct.unpack_from("<Q", m, 16)
        if 24 + length > len(m):
            raise ModelError.of("MODEL_TRUNCATED", model=self.name, what="")
        self._header_length = length
        try:
            header = json.loads(bytes(m[24 : 24 + length]).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ModelError.of("MODEL_CORRUPTED", model=self.name, what="its header is not JSON") from None
        if header.get("format") != "dptext-model" or header.get("version") != VERSION:
            raise ModelError.of("MODEL_CORRUPTED", model=self.name, what="its header names another format")
        return header

    def array(self, name: str) -> np.ndarray:
        """The array ``name`` as a read-only view over the file, checked against its SHA-256 once."""
        spec = self._arrays.get(name)
        if spec is None:
            raise ModelError.of("MODEL_CORRUPTED", model=self.name, what=f"it has no array {name}")
        dtype = np.dtype(spec["dtype"])
        shape = tuple(int(s) for s in spec["shape"])
        start = self._data_start + int(spec["offset"])
        length = int(spec["bytes"])
        if length != int(np.prod(shape, dtype=np.int64)) * dtype.itemsize or start + length > len(self._map):
            raise ModelError.of("MODEL_TRUNCATED", model=self.name, what=f" or corrupted (array {name})")
        view = memoryview(self._map)[start : start + length]
        with self._lock:
            if name not in self._checked:
                if hashlib.sha256(view).hexdigest() != spec["sha256"]:
                    raise ModelError.of(
                        "MODEL_CORRUPTED", model=self.name, what=f"array {name} does not match its checksum"
                    )
                self._checked.add(name)
        return np.frombuffer(view, dtype=dtype).reshape(shape)

    @cached_property
    def words(self) -> list[str]:
        """The words in rank order, most frequent first."""
        offsets = self.array("words.offsets")
        raw = self.array("words.utf8").tobytes()
        bounds = offsets.tolist()
        return [raw[bounds[i] : bounds[i + 1]].decode("utf-8") for i in range(self.size)]

    @cached_property
    def vectors(self) -> np.ndarray:
        """The embeddings, float32, one row per word (a view over the file)."""
        return self.array("vectors")

    @cached_property
    def vectors64(self) -> np.ndarray:
        """The embeddings widened to float64, as the JVM widens each component before subtracting."""
        return self.vectors.astype(np.float64)

    def covariance(self) -> np.ndarray | None:
        """Σ, the embeddings' covariance scaled to trace m (m x m, float64), or ``None`` when the file has none."""
        return None if self._covariance is None else self.array(self._covariance)

    def table(self, target_start: int, needed_by: str) -> NeighbourTable:
        """The neighbour table over targets ``[target_start, size)``, which ``needed_by`` draws from."""
        with self._lock:
            table = self._tables.get(target_start)
        if table is not None:
            return table
        entry = self._table_names.get(target_start)
        if entry is None:
            have = sorted(self._table_names)
            raise ModelError.of(
                "MODEL_TABLE_MISSING",
                model=self.name,
                targetStart=target_start,
                size=self.size,
                neededBy=needed_by,
                have=have,
            )
        table = NeighbourTable(
            target_start,
            self.array(entry["offsets"]),
            self.array(entry["neighbours"]),
            self.array(entry["outsideBounds"]),
        )
        with self._lock:
            self._tables[target_start] = table
        return table


_MODELS: dict[tuple[str, float], Model] = {}
_MODELS_LOCK = threading.Lock()


def default_path() -> str:
    """The default model (what ``model=default`` means on the JVM), built by the JVM into this package."""
    path = resources.files("dptext").joinpath("models", DEFAULT_FILE)
    if not path.is_file():
        raise ModelError.of("MODEL_DEFAULT_NOT_BUNDLED")
    return str(path)


def resolve(model: str | None) -> str:
    """The file a ``model`` setting names for the Python engine: ``default`` → the bundled model."""
    if model is None or model.strip() == "" or model.strip().lower() == DEFAULT_NAME:
        return default_path()
    path = model.strip()
    if path.startswith("dbfs:/"):
        path = "/dbfs/" + path[len("dbfs:/") :].lstrip("/")
    elif path.startswith("file:"):
        path = path[len("file:") :]
        while path.startswith("//"):
            path = path[1:]
    if "://" in path:
        raise ModelError.of("MODEL_PATH_NOT_LOCAL", model=repr(model))
    if Path(path).is_dir():
        raise ModelError.of("MODEL_PATH_IS_A_DIRECTORY", model=repr(model))
    return path


def load(model: str | None) -> Model:
    """The model a ``model`` setting names, opened once per process (and again when its file changes)."""
    path = resolve(model)
    try:
        stamp = os.stat(path).st_mtime
    except OSError:
        stamp = -1.0
    key = (os.path.abspath(path), stamp)
    with _MODELS_LOCK:
        found = _MODELS.get(key)
        if found is None:
            found = Model(path, name=path if model and model.strip().lower() != DEFAULT_NAME else "default")
            _MODELS[key] = found
    return found
