"""The machine's cache of neighbour-table distances (engine/distances.py): used only when it is the file this
model and table give, written atomically, and never a reason for other rows."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import pytest

from dptext.engine import distances as cache
from dptext.engine import mechanisms
from dptext.engine.model import Model
from dptext.engine.xoshiro import RowStreams

from . import model_files


@pytest.fixture
def small_model(tmp_path) -> Model:
    words, vectors = model_files.synthetic(size=120, dim=10)
    return Model(str(model_files.write(tmp_path / "m.dptext-model", words, vectors, {0: 16})))


@pytest.fixture(autouse=True)
def _fresh_process_memo():
    mechanisms._TABLE_DISTANCES.clear()
    yield
    mechanisms._TABLE_DISTANCES.clear()


def _cache_file(directory: Path) -> Path:
    files = [p for p in directory.iterdir() if p.name.startswith("distances-")]
    assert len(files) == 1, files
    return files[0]


def _expected(model: Model) -> np.ndarray:
    t = model.table(0, "test")
    xs = np.repeat(np.arange(model.size), np.diff(t.offsets.astype(np.int64)))
    return mechanisms.distances(model.vectors64, xs, t.neighbours.astype(np.int64))


def _outputs(model: Model, epsilon: float = 2.0) -> np.ndarray:
    sampler = mechanisms.SanText(model, epsilon)
    rows = np.arange(400)
    words = rows % model.size
    return sampler.sample(RowStreams.from_seed(rows * 7919 + 1), rows, words)


def test_the_cache_directory_follows_the_jvm_launchers_setting(tmp_path):
    assert cache.cache_dir({"DPTEXT_MODEL_CACHE": "off"}) is None
    assert cache.cache_dir({"DPTEXT_MODEL_CACHE": " 0 "}) is None
    assert cache.cache_dir({"DPTEXT_MODEL_CACHE": str(tmp_path)}) == tmp_path
    assert cache.cache_dir({"XDG_CACHE_HOME": "/xdg", "HOME": "/home/u"}) == Path("/xdg/dptext/models")
    assert cache.cache_dir({"XDG_CACHE_HOME": "relative", "HOME": "/home/u"}) == Path("/home/u/.cache/dptext/models")
    assert cache.cache_dir({}).name == "models"  # no home: the temporary directory, per user


def test_distances_are_written_once_then_mapped_with_the_same_bits(small_model, tmp_path, monkeypatch):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path / "cache"))
    table = small_model.table(0, "test")
    computed = mechanisms.table_distances(small_model, table)
    assert np.array_equal(computed.view(np.int64), _expected(small_model).view(np.int64))
    f = _cache_file(tmp_path / "cache")
    assert stat.S_IMODE(os.stat(tmp_path / "cache").st_mode) == 0o700
    assert not [p for p in (tmp_path / "cache").iterdir() if p.suffix == ".tmp"]  # the temporary file was moved
    mechanisms._TABLE_DISTANCES.clear()  # another process
    mapped = mechanisms.table_distances(small_model, table)
    assert isinstance(mapped, np.memmap) and not mapped.flags.writeable
    assert np.array_equal(np.asarray(mapped).view(np.int64), computed.view(np.int64))
    assert _cache_file(tmp_path / "cache") == f


def test_outputs_are_the_same_with_the_cache_without_it_and_from_the_file(small_model, tmp_path, monkeypatch):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    without = _outputs(small_model)
    for _ in range(2):  # computed and written, then read
        mechanisms._TABLE_DISTANCES.clear()
        monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path / "cache"))
        assert np.array_equal(_outputs(small_model), without)


@pytest.mark.parametrize("damage", ["truncated", "flipped", "other-values", "other-key", "empty"])
def test_a_damaged_or_foreign_file_is_recomputed_and_replaced(small_model, tmp_path, monkeypatch, damage):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    table = small_model.table(0, "test")
    good = np.array(mechanisms.table_distances(small_model, table))
    f = _cache_file(tmp_path)
    raw = bytearray(f.read_bytes())
    if damage == "truncated":
        raw = raw[:-8]
    elif damage == "flipped":
        raw[-3] ^= 0x10
    elif damage == "empty":
        raw = bytearray()
    elif damage == "other-key":
        raw[24] ^= 0x01
    else:  # a file with a valid checksum whose distances are not this table's (another version's code)
        digest = cache.key(small_model.vectors, table.offsets, table.neighbours, 0)
        wrong = good.copy()
        wrong[:] = np.nextafter(wrong, np.inf)
        tmp = cache.writable(tmp_path, "distances")
        assert cache.write(tmp, f, digest, wrong)
        raw = bytearray(f.read_bytes())
    f.write_bytes(bytes(raw))
    mechanisms._TABLE_DISTANCES.clear()
    again = mechanisms.table_distances(small_model, table)
    assert not isinstance(again, np.memmap)  # recomputed, not read
    assert np.array_equal(again.view(np.int64), good.view(np.int64))
    mechanisms._TABLE_DISTANCES.clear()
    assert isinstance(mechanisms.table_distances(small_model, table), np.memmap)  # and rewritten whole


@pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() == 0, reason="root writes anywhere")
def test_an_unwritable_directory_falls_back_to_memory(small_model, tmp_path, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(locked / "cache"))
    assert mechanisms.table_distances(small_model, small_model.table(0, "test")) is None
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    without = _outputs(small_model)
    mechanisms._TABLE_DISTANCES.clear()
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(locked / "cache"))
    assert np.array_equal(_outputs(small_model), without)


def test_a_directory_that_is_a_file_falls_back_to_memory(small_model, tmp_path, monkeypatch):
    (tmp_path / "plain").write_text("not a directory")
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path / "plain"))
    assert mechanisms.table_distances(small_model, small_model.table(0, "test")) is None


def test_a_failed_write_leaves_no_file(tmp_path):
    tmp = cache.writable(tmp_path, "distances")
    os.unlink(tmp.name)  # the rename then fails
    assert not cache.write(tmp, tmp_path / "x" / "distances-0.f64", b"\x00" * 32, np.zeros(3))
    assert list(tmp_path.iterdir()) == []


def test_the_float32_screen_decides_as_the_exact_distance(tmp_path):
    """``squared_distance_below`` against the exact comparison, at limits on and around each d²: exactly
    equal, one ulp either side, inside and outside the screen's margin, 0, inf, NaN; and for vectors that
    are equal, differ by an underflowing amount, or are large."""
    words, vectors = model_files.synthetic(size=60, dim=10)
    vectors[1] = vectors[0]
    vectors[2] = vectors[0] + np.float32(1e-20)
    vectors[3] = vectors[0] * np.float32(1e15)
    vectors[4] = np.nextafter(vectors[0], np.float32(np.inf))
    model = Model(str(model_files.write(tmp_path / "m.dptext-model", words, vectors, {0: 8})))
    rng = np.random.default_rng(3)
    a = np.concatenate([np.zeros(8, np.int64), rng.integers(0, 60, 400)])
    b = np.concatenate([np.arange(8), rng.integers(0, 60, 400)])
    exact = mechanisms.squared_distances(model.vectors64, a, b)
    limits = [
        exact,
        np.nextafter(exact, np.inf),
        np.nextafter(exact, -np.inf),
        exact * (1 + 1e-7),
        exact * (1 - 1e-7),
        exact * (1 + 1e-3),
        exact * (1 - 1e-3),
        np.zeros_like(exact),
        np.full_like(exact, np.inf),
        np.full_like(exact, np.nan),
    ]
    for limit in limits:
        got = mechanisms.squared_distance_below(model, a, b, limit)
        assert np.array_equal(got, exact < limit)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_file_or_directory_others_can_write_is_not_used(small_model, tmp_path, monkeypatch):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path / "cache"))
    table = small_model.table(0, "test")
    mechanisms.table_distances(small_model, table)
    f = _cache_file(tmp_path / "cache")
    os.chmod(f, 0o666)
    mechanisms._TABLE_DISTANCES.clear()
    assert not isinstance(mechanisms.table_distances(small_model, table), np.memmap)  # recomputed, replaced
    assert stat.S_IMODE(os.stat(_cache_file(tmp_path / "cache")).st_mode) == 0o600
    os.chmod(tmp_path / "cache", 0o777)
    mechanisms._TABLE_DISTANCES.clear()
    assert mechanisms.table_distances(small_model, table) is None  # neither read nor written: in memory


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="fcntl locks")
def test_a_worker_that_waited_for_the_lock_reads_what_the_first_one_wrote(small_model, tmp_path, monkeypatch):
    import fcntl
    import threading

    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    table = small_model.table(0, "test")
    good = np.array(mechanisms.table_distances(small_model, table))
    f = _cache_file(tmp_path)
    saved = f.read_bytes()
    f.unlink()
    mechanisms._TABLE_DISTANCES.clear()
    computed = []
    monkeypatch.setattr(mechanisms, "_all_distances", lambda *a: computed.append(1) or good)
    with open(cache.lock_path(f), "ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # the first worker, computing
        got = []
        waiter = threading.Thread(target=lambda: got.append(mechanisms.table_distances(small_model, table)))
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive()  # waits for the lock
        f.write_bytes(saved)  # the first worker's file
        fcntl.flock(held.fileno(), fcntl.LOCK_UN)
    waiter.join(10)
    assert isinstance(got[0], np.memmap) and not computed
    assert np.array_equal(np.asarray(got[0]).view(np.int64), good.view(np.int64))


def _envelope_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.startswith("envelopes-"))


def test_envelope_rows_are_written_once_per_epsilon_then_mapped_with_the_same_bits(small_model, tmp_path, monkeypatch):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    computed = mechanisms.SanText(small_model, 2.0).sampler
    computed.prepare(np.arange(small_model.size))
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    first = mechanisms.SanText(small_model, 2.0).sampler
    first.prepare(np.array([3]))  # the first process computes every row and writes them
    assert first.ready.all() and first.cumulative.flags.writeable  # computed here
    (f,) = _envelope_files(tmp_path)
    mechanisms._TABLE_DISTANCES.clear()  # another process: maps them, computes no row
    monkeypatch.setattr(mechanisms.ExponentialNeighbourSampler, "_envelopes", lambda *a: pytest.fail("computed"))
    later = mechanisms.SanText(small_model, 2.0).sampler
    later.prepare(np.array([5]))
    assert not later.cumulative.flags.writeable and not later.p_uniform.flags.writeable  # the file's pages
    for got in (first, later):
        assert np.array_equal(np.asarray(got.cumulative).view(np.int64), computed.cumulative.view(np.int64))
        assert np.array_equal(np.asarray(got.p_uniform).view(np.int64), computed.p_uniform.view(np.int64))
    assert _envelope_files(tmp_path) == [f]


def test_envelope_files_are_kept_per_epsilon_and_cap_and_pruned_to_the_newest(small_model, tmp_path, monkeypatch):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    monkeypatch.setattr(mechanisms, "_ENVELOPE_FILES_KEPT", 2)
    for epsilon in (1.0, 2.0):
        mechanisms.SanText(small_model, epsilon).sampler.prepare(np.array([0]))
    assert len(_envelope_files(tmp_path)) == 2
    kept = set(_envelope_files(tmp_path))
    os.utime(sorted(kept)[0], ns=(1, 1))  # the older of the two, by its use
    older = sorted(kept)[0]
    mechanisms.ExponentialNeighbourSampler(small_model, small_model.table(0, "test"), 2.0, 0.5).prepare(np.array([0]))
    files = set(_envelope_files(tmp_path))
    assert len(files) == 2 and older not in files and (kept - {older}) <= files


@pytest.mark.parametrize("damage", ["flipped", "other-values", "truncated"])
def test_a_damaged_or_foreign_envelope_file_is_recomputed(small_model, tmp_path, monkeypatch, damage):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    without = _outputs(small_model)
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    _outputs(small_model)
    (f,) = _envelope_files(tmp_path)
    raw = bytearray(f.read_bytes())
    if damage == "flipped":
        raw[-100] ^= 0x10
    elif damage == "truncated":
        raw = raw[:-8]
    else:  # a valid checksum over rows that are not this epsilon's (another version's code)
        table = small_model.table(0, "test")
        digest = mechanisms._envelope_key(small_model, table, 2.0, np.inf)
        values = np.frombuffer(bytes(raw[cache._HEADER :]), dtype="<f8").copy()
        values[: len(table.neighbours)] = np.nextafter(values[: len(table.neighbours)], -np.inf)
        assert cache.write(cache.writable(tmp_path, "envelopes"), f, digest, values)
        raw = bytearray(f.read_bytes())
    f.write_bytes(bytes(raw))
    mechanisms._TABLE_DISTANCES.clear()
    sampler = mechanisms.SanText(small_model, 2.0).sampler
    sampler.prepare(np.array([0]))
    assert sampler.cumulative.flags.writeable  # recomputed, not read
    mechanisms._TABLE_DISTANCES.clear()
    assert np.array_equal(_outputs(small_model), without)  # from the rewritten file


def _custext_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.name.startswith("custext-"))


def _custext_outputs(model: Model, k: int = 4, epsilon: float = 2.0) -> np.ndarray:
    mechanism = mechanisms.CusText(model, epsilon, k, None, False)
    rows = np.arange(400)
    return mechanism.sample(RowStreams.from_seed(rows * 7919 + 1), rows, rows % model.size)


def test_custext_tables_are_written_once_per_k_and_epsilon_then_mapped_with_the_same_rows(
    small_model, tmp_path, monkeypatch
):
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    computed = mechanisms.CusText(small_model, 2.0, 4, None, False)
    without = _custext_outputs(small_model)
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    first = mechanisms.CusText(small_model, 2.0, 4, None, False)  # computes and writes
    (f,) = _custext_files(tmp_path)
    monkeypatch.setattr(mechanisms, "_groups", lambda *a: pytest.fail("groups computed again"))
    later = mechanisms.CusText(small_model, 2.0, 4, None, True)  # another process, CusText+: maps the file
    assert not later.cumulative.flags.writeable  # the file's pages
    for got in (first, later):
        assert np.array_equal(got.row_offset, computed.row_offset)
        assert np.array_equal(got.outputs, computed.outputs)
        assert np.array_equal(np.asarray(got.cumulative).view(np.int64), computed.cumulative.view(np.int64))
    assert np.array_equal(_custext_outputs(small_model), without)
    assert _custext_files(tmp_path) == [f]
    monkeypatch.undo()
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    for k, epsilon in ((4, 1.0), (5, 2.0)):  # one file per K and epsilon
        mechanisms.CusText(small_model, epsilon, k, None, False)
    assert len(_custext_files(tmp_path)) == 3


@pytest.mark.parametrize("damage", ["flipped", "other-group", "other-rows", "truncated"])
def test_a_damaged_or_foreign_custext_file_is_recomputed(small_model, tmp_path, monkeypatch, damage):
    """A file whose checksum holds but whose groups or rows are not what this code builds (another version's) fails
    the check: a group built from the ones before it differs, or a checked group's row differs bit for bit."""
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", "off")
    without = _custext_outputs(small_model)
    monkeypatch.setenv("DPTEXT_MODEL_CACHE", str(tmp_path))
    _custext_outputs(small_model)
    (f,) = _custext_files(tmp_path)
    raw = bytearray(f.read_bytes())
    if damage == "flipped":
        raw[-100] ^= 0x10
    elif damage == "truncated":
        raw = raw[:-8]
    else:
        values = np.frombuffer(bytes(raw[cache._HEADER :]), dtype="<f8").copy()
        n = small_model.size
        if damage == "other-group":  # the first group's last word and the second group's first other word swapped
            values[[3, 5]] = values[[5, 3]]
        else:  # word 0's row (its group is checked) moved by an ulp: after 120 members, 31 starts, 480 outputs
            assert n == 120
            values[631:635] = np.nextafter(values[631:635], -np.inf)
        digest = mechanisms._custext_key(small_model, small_model.table(0, "custext"), 4, 2.0)
        assert cache.write(cache.writable(tmp_path, "custext"), f, digest, values)
        raw = bytearray(f.read_bytes())
    f.write_bytes(bytes(raw))
    computed = []
    groups = mechanisms._groups
    monkeypatch.setattr(mechanisms, "_groups", lambda *a: computed.append(1) or groups(*a))
    assert np.array_equal(_custext_outputs(small_model), without)
    assert computed  # recomputed, not read
    computed.clear()
    assert np.array_equal(_custext_outputs(small_model), without)  # from the rewritten file
    assert not computed
