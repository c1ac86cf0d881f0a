"""The engine's randomness against the JVM's own classes: RandomStream, RowSeeder, SecretKey, Sanitizer.idBytes.

One JVM (``oracle/Oracle.java`` on the dptext jar, with pyspark's jars for Spark's type converters) answers
every question of this module; a JDK >= 19, when one is installed, also prints the random DOUBLE/FLOAT ids
(their toString changed in JDK 19, which the engine follows).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import os
import pickle
import struct
from decimal import Decimal

import numpy as np
import pytest

from dptext.engine import ids, keys
from dptext.engine.keys import RowSeeder, SecretKey
from dptext.engine.xoshiro import RowStreams
from dptext.errors import DpTextError
from tests.engine import jvm

ROWS = 1000
DRAWS = 200
# Every draw kind, each 20 times per row: nextLong, nextDouble, nextInt with fixed and per-row random bounds,
# nextUniform, nextLogUniform.
OPS = ["L", "D", "I1", "I2", "I3", "I7", "I2147483647", "R", "U", "G"]
# Bounds that reject often (about 1/3 and 1/4 of the draws), so the rejection loop runs for many rows.
HARD_BOUNDS = [1431655766, (1 << 30) + 1, (1 << 31) - 1, 1 << 30, 3]
# Crafted states start with the uniforms, whose first word has its top 12 bits zero for several of them.
CRAFTED_OPS = ["U", "G", "R", "L", "D"]
CRAFTED_DRAWS = 50
KEY_HEX = "00112233445566778899aabbccddeeff0f1e2d3c4b5a69788796a5b4c3d2e1f0"
PURPOSES = ["body_dp", "", "ünï cödé 😀"]


def _rng() -> np.random.Generator:
    return np.random.default_rng(77)


def seeds() -> np.ndarray:
    extremes = [0, 1, -1, 2**63 - 1, -(2**63), 42, 0x9E3779B97F4A7C15 - 2**64]
    rest = _rng().integers(-(2**63), 2**63 - 1, ROWS - len(extremes), dtype=np.int64, endpoint=True)
    return np.concatenate([np.array(extremes, dtype=np.int64), rest])


def bounds(n: int) -> np.ndarray:
    """Per-row bounds for the R draws, shape (n, DRAWS // len(OPS)): log-uniform in [1, 2**31-1] and hard ones."""
    rng = np.random.default_rng(5)
    b = np.exp(rng.uniform(0, np.log(2**31 - 1), (n, DRAWS // len(OPS)))).astype(np.int64).clip(1, 2**31 - 1)
    hard = rng.random(b.shape) < 0.3
    b[hard] = rng.choice(HARD_BOUNDS, hard.sum())
    return b


def row_ids() -> list[bytes]:
    rng = np.random.default_rng(9)
    out = [b"", b"0", b"1", b"-1", "ünicode ✓".encode(), b"\x00" * 5, bytes(range(256))]
    while len(out) < ROWS:
        out.append(rng.bytes(int(rng.integers(1, 40))))
    return out


def crafted_states() -> np.ndarray:
    """States whose first draws hit rare paths: all zero (replaced), leading zero bits (more words drawn)."""
    s = [
        [0, 0, 0, 0],
        [1, 0, 0, 0],  # first draw rotl(1, 23) + 1: top 12 bits zero, so nextUniform draws a second word
        [0, 5, 7, 0],
        [1 << 40, 0, 3, 0],
        [0, 0, 1, 0],
        [2**64 - 1, 2**64 - 1, 2**64 - 1, 2**64 - 1],
    ]
    rng = np.random.default_rng(3)
    for _ in range(44):
        s.append([int(rng.integers(0, 1 << 20)), int(rng.integers(0, 2**63)), int(rng.integers(0, 2**63)), 0])
    return np.array(s, dtype=np.uint64)


def _line(prefix: str, row_bounds: np.ndarray) -> str:
    return " ".join([prefix, *map(str, row_bounds.tolist())])


# ------------------------------------------------------------------------------------------ key files


def key_files(folder) -> list[tuple[str, bytes | None]]:
    """(name, content) of tricky key files; None: no such file; "dir": a directory."""
    hexkey = bytes.fromhex(KEY_HEX)
    b64 = __import__("base64").b64encode(hexkey).decode()
    raw = b"\xff" + bytes(range(1, 32))
    return [
        ("hex", (KEY_HEX + "\n").encode()),
        ("hex-crlf", (KEY_HEX + "\r\n").encode()),
        ("hex-bom", b"\xef\xbb\xbf" + KEY_HEX.encode() + b"\n"),
        ("hex-upper", KEY_HEX.upper().encode()),
        ("hex-spaces", f"  \t{KEY_HEX}\n\n".encode()),
        ("hex-short", KEY_HEX[:30].encode()),
        ("hex-odd", KEY_HEX[:33].encode()),
        ("hex-inner-space", (KEY_HEX[:32] + " " + KEY_HEX[32:]).encode()),
        ("hex-nbsp", ("\u00a0" + KEY_HEX).encode()),  # Java's strip keeps a no-break space
        ("hex-emspace", ("\u2003" + KEY_HEX + "\u2003").encode()),  # ... and removes an em space
        ("hex-file-separator", (KEY_HEX + "\x1c").encode()),  # a control character: raw bytes
        ("base64", f"base64:{b64}\n".encode()),
        ("base64-upper", f"BASE64:{b64}".encode()),
        ("base64-long-s", f"ba\u017fe64:{b64}".encode()),  # Java's case-insensitive match: long s is s
        ("base64-unpadded", f"base64:{b64.rstrip('=')}".encode()),
        ("base64-bad-padding", f"base64:{b64.rstrip('=')}=".encode()),
        ("base64-short", b"base64:AAECAwQFBgcICQoLDA0O"),
        ("base64-trailing-bits", b"base64:AAAAAAAAAAAAAAAAAAAAAB=="),
        ("base64-after-padding", f"base64:{b64}AAAA".encode()),
        ("base64-urlsafe", b"base64:-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_"),
        ("base64-wrapped", f"base64:{b64[:20]}\n{b64[20:]}".encode()),
        ("base64-empty", b"base64:"),
        ("base64-one-char", b"base64:A"),
        ("passphrase", b"correct horse battery staple"),
        ("passphrase-accents", "clé secrète très longue".encode()),
        ("passphrase-latin1", "clé secrète très longue".encode("latin-1")),  # not UTF-8: raw bytes
        ("passphrase-emoji", "🔑🔑🔑 secret".encode()),
        ("raw-32", raw),
        ("raw-100", b"\xfe" + bytes(range(99))),  # longer than SHA-256's block: HMAC hashes the key first
        ("raw-10", raw[:10]),
        ("raw-bom", b"\xef\xbb\xbf" + raw),
        ("raw-utf8-controls", bytes(range(1, 20))),
        ("empty", b""),
        ("blank", b"  \n\t\n"),
        ("missing", None),
        ("directory", "dir"),
    ]


ENV_KEYS = {
    "DPTEXT_TEST_KEY_HEX": KEY_HEX,
    "DPTEXT_TEST_KEY_B64": "base64:" + __import__("base64").b64encode(bytes(range(24))).decode(),
    "DPTEXT_TEST_KEY_SHORT": "abcd",
    "DPTEXT_TEST_KEY_JUNK": "not a key at all",
}
KEY_TEXTS = [
    None,
    "",
    KEY_HEX,
    "  " + KEY_HEX + "\u3000",
    "\u0085" + KEY_HEX,  # NEL: Python's strip removes it, Java's does not
    "base64:",
    "Base64:" + "A" * 22,
    "base64:" + "A" * 21,
    "0x" + KEY_HEX,
    "z" * 40,
]


# ----------------------------------------------------------------------------------------- id values

ID_CASES = {
    "bigint": [0, 1, -1, 5, 2**63 - 1, -(2**63), 1234567890123],
    "int": [0, -5, 2**31 - 1, -(2**31), 42],
    "smallint": [0, -32768, 32767, 7],
    "tinyint": [0, -128, 127, -1],
    "decimal(10,2)": ["5.00", "100.00", "0.00", "-5.50", "12345678.90", "0.01", "-0.10"],
    "decimal(38,18)": [
        "0.000000000000000000",
        "12345678901234567890.123456789012345678",
        "-1.500000000000000000",
        "100.000000000000000000",
    ],
    "decimal(5,0)": ["100", "0", "-99999", "12300"],
    "decimal(20,10)": ["0.0000000001", "1234567890.0000000000", "0.1000000000"],
    "string": ["", "1001", "ünïcödé", "😀 emoji", "tab\tnew\nline", "a" * 300, "\u0000nul"],
    "binary": [b"", b"\x00\xff", bytes(range(256)), b"abc"],
    "boolean": [True, False],
    "date": [
        dt.date(1970, 1, 1),
        dt.date(2024, 2, 29),
        dt.date(1, 1, 1),
        dt.date(9999, 12, 31),
        dt.date(1582, 10, 4),
        dt.date(1582, 10, 15),
        dt.date(1900, 3, 1),
        dt.date(1000, 2, 28),
        dt.date(1969, 12, 31),
        dt.date(999, 7, 14),
    ],
}
ORDINARY_DOUBLES = [
    5.0,
    1e20,
    1e-5,
    -0.0,
    0.0,
    0.1 + 0.2,
    0.1,
    1.0,
    -1.5,
    123456.789,
    1e7,
    9999999.0,
    0.001,
    0.0009999,
    1e-3,
    2.0**63,
    float("nan"),
    float("inf"),
    float("-inf"),
    1e22,
    1.7976931348623157e308,
    2.2250738585072014e-308,
    3.141592653589793,
    100.0,
    1234567.0,
    12345678.0,
]
ORDINARY_FLOATS = [
    5.0,
    1e20,
    1e-5,
    -0.0,
    0.1,
    1.0,
    -1.5,
    123456.79,
    1e7,
    0.001,
    3.4028235e38,
    float("nan"),
    float("inf"),
    16777216.0,
    0.3,
]


def _date_days(d: dt.date) -> int:
    return (d - dt.date(1970, 1, 1)).days


def _id_line(type_name: str, v) -> str:
    if type_name == "string":
        return v.encode().hex() or "-"
    if type_name == "binary":
        return v.hex() or "-"
    if type_name == "boolean":
        return "true" if v else "false"
    if type_name == "date":
        return str(_date_days(v))
    return str(v)


def random_doubles() -> np.ndarray:
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2**64, 16_000, dtype=np.uint64)
    subnormal = rng.integers(0, 1 << 52, 2_000, dtype=np.uint64)
    places = rng.integers(0, 7, 5_000)
    decimal_like = np.array([round(v, int(n)) for v, n in zip(rng.uniform(-1e6, 1e6, 5_000), places, strict=True)])
    return np.concatenate([bits.view(np.float64), subnormal.view(np.float64), decimal_like])


def random_floats() -> np.ndarray:
    rng = np.random.default_rng(12)
    return np.concatenate(
        [
            rng.integers(0, 2**32, 16_000, dtype=np.uint64).astype(np.uint32).view(np.float32),
            np.round(rng.uniform(-1e4, 1e4, 3_000), 2).astype(np.float32),
        ]
    )


def _double_lines(values) -> list[str]:
    return [struct.pack(">d", float(v)).hex() for v in values]


def _float_lines(values) -> list[str]:
    return [struct.pack(">f", float(v)).hex() for v in values]


# --------------------------------------------------------------------------------------- the one JVM


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keys")
    files = []
    for name, content in key_files(folder):
        path = folder / name
        if content == "dir":
            path.mkdir()
        elif content is not None:
            path.write_bytes(content)
        files.append((name, path, content))
    spec = f"{DRAWS}:{','.join(OPS)}"
    b = bounds(ROWS)
    crafted = crafted_states()
    crafted_bounds = bounds(len(crafted))
    requests = {
        "version": ("version", [], []),
        "seeded": ("stream-seed", [spec], [_line(str(s), b[i]) for i, s in enumerate(seeds().tolist())]),
        "crafted": (
            "stream-state",
            [f"{CRAFTED_DRAWS}:{','.join(CRAFTED_OPS)}"],
            [_line(" ".join(f"{int(w):016x}" for w in row), crafted_bounds[i]) for i, row in enumerate(crafted)],
        ),
        "keyed": (
            "stream-key",
            [KEY_HEX, PURPOSES[0].encode().hex(), spec],
            [_line(r.hex() or "-", b[i]) for i, r in enumerate(row_ids())],
        ),
        "key-files": ("key-file", [], [str(path) for _, path, _ in files]),
        "key-texts": (
            "key-text",
            [b"test source".hex()],
            ["-" if t is None else (t.encode().hex() or "") for t in KEY_TEXTS],
        ),
        "key-env": ("key-env", [], [*ENV_KEYS, "DPTEXT_TEST_KEY_UNSET"]),
        "double-ordinary": ("id-bytes", ["double"], _double_lines(ORDINARY_DOUBLES)),
        "float-ordinary": ("id-bytes", ["float"], _float_lines(ORDINARY_FLOATS)),
        "double-random": ("id-bytes", ["double"], _double_lines(random_doubles())),
        "float-random": ("id-bytes", ["float"], _float_lines(random_floats())),
    }
    for p, purpose in enumerate(PURPOSES[1:], start=1):
        requests[f"keyed-{p}"] = (
            "stream-key",
            [KEY_HEX, purpose.encode().hex() or "-", "10:L"],
            [(r.hex() or "-") for r in row_ids()[:100]],
        )
    for type_name, values in ID_CASES.items():
        requests[f"id-{type_name}"] = ("id-bytes", [type_name], [_id_line(type_name, v) for v in values])
    env = dict(os.environ)
    env.update(ENV_KEYS)
    env.pop("DPTEXT_TEST_KEY_UNSET", None)
    answers = dict(zip(requests, jvm.ask(list(requests.values()), env=env), strict=True))
    answers["files"] = files
    return answers


@pytest.fixture(scope="module")
def modern(oracle):
    """Double/Float.toString of a JDK >= 19 for the random ids, and its version (None without one)."""
    java = jvm.modern_java()
    if java is None:
        return None
    version, doubles, floats = jvm.ask(
        [
            ("version", [], []),
            ("id-bytes", ["double"], _double_lines(random_doubles())),
            ("id-bytes", ["float"], _float_lines(random_floats())),
        ],
        java=java,
        converters=False,
    )
    return {"jdk": _major(version[0]), "double": doubles, "float": floats}


def _major(version_line: str) -> int:
    """The Java feature version of the oracle's ``java.version`` ("17.0.15 spark=true" -> 17)."""
    return int(version_line.split()[0].split(".")[0])


# ------------------------------------------------------------------------------------------- streams


def _draw_all(
    streams: RowStreams, n: int, row_bounds: np.ndarray, chunked: bool, ops=OPS, draws=DRAWS
) -> list[list[str]]:
    """The OPS sequence for every row, as the oracle prints it; ``chunked`` draws for random halves of the
    rows in turn (the gather/scatter path), else for all rows at once (rows=None)."""
    rng = np.random.default_rng(1)
    out = [[] for _ in range(n)]
    r_index = 0
    for d in range(draws):
        op = ops[d % len(ops)]
        if chunked:
            perm = rng.permutation(n)
            groups = [perm[: n // 3], perm[n // 3 :]]
        else:
            groups = [None]
        values = np.empty(n, dtype=object)
        for rows in groups:
            idx = np.arange(n) if rows is None else rows
            if op == "L":
                v = streams.next_long(rows)
                assert v.dtype == np.uint64
                # Java's nextLong() < 0 is next_long >= 2**63 on the uint64
                assert np.array_equal(v >= np.uint64(1 << 63), v.view(np.int64) < 0)
                text = jvm.hex_lines(v)
            elif op == "D":
                text = jvm.hex_lines(streams.next_double(rows))
            elif op.startswith("I"):
                text = [str(x) for x in streams.next_int(rows, int(op[1:])).tolist()]
            elif op == "R":
                text = [str(x) for x in streams.next_int(rows, row_bounds[idx, r_index]).tolist()]
            elif op == "U":
                text = jvm.hex_lines(streams.next_uniform(rows))
            else:
                text = jvm.hex_lines(streams.next_log_uniform(rows))
            values[idx] = text
        if op == "R":
            r_index += 1
        for i in range(n):
            out[i].append(values[i])
    return out


def _expected(lines: list[str]) -> tuple[list[list[str]], np.ndarray]:
    draws, states = [], []
    for line in lines:
        head, _, state = line.partition("|")
        if ";" in head:
            head = head.partition(";")[2]
        draws.append(head.split())
        states.append([int(w, 16) for w in state.split()])
    return draws, np.array(states, dtype=np.uint64)


def _compare(got: list[list[str]], want: list[list[str]], what: str, ops=OPS) -> None:
    assert len(got) == len(want) and all(len(g) == len(w) for g, w in zip(got, want, strict=True))
    bad = [(i, j) for i in range(len(want)) for j in range(len(want[i])) if got[i][j] != want[i][j]]
    if bad:
        i, j = bad[0]
        raise AssertionError(
            f"{len(bad)} {what} draws differ; first: row {i}, draw {j} "
            f"({ops[j % len(ops)]}): {got[i][j]} vs the JVM's {want[i][j]}"
        )


@pytest.mark.parametrize("chunked", [False, True], ids=["all-rows", "row-subsets"])
def test_streams_from_seed_equal_randomstream(oracle, chunked):
    want, state = _expected(oracle["seeded"])
    streams = RowStreams.from_seed(seeds())
    _compare(_draw_all(streams, ROWS, bounds(ROWS), chunked), want, "fromSeed")
    assert np.array_equal(streams.state(), state)


def test_crafted_states_equal_randomstream(oracle):
    want, state = _expected(oracle["crafted"])
    crafted = crafted_states()
    streams = RowStreams(crafted)
    got = _draw_all(streams, len(crafted), bounds(len(crafted)), False, CRAFTED_OPS, CRAFTED_DRAWS)
    _compare(got, want, "resumed", CRAFTED_OPS)
    assert np.array_equal(streams.state(), state)


def test_rowseeder_streams_equal_jvm(oracle):
    lines = oracle["keyed"]
    seeder = RowSeeder(SecretKey.parse(KEY_HEX, "test"), PURPOSES[0])
    seeds_want = np.array([[int(w, 16) for w in line.partition(";")[0].split()] for line in lines], dtype=np.uint64)
    assert np.array_equal(seeder.seeds(row_ids()), seeds_want)
    want, state = _expected(lines)
    streams = seeder.streams(row_ids())
    _compare(_draw_all(streams, ROWS, bounds(ROWS), True), want, "RowSeeder")
    assert np.array_equal(streams.state(), state)


@pytest.mark.parametrize("p", [1, 2])
def test_rowseeder_purposes(oracle, p):
    lines = oracle[f"keyed-{p}"]
    seeder = RowSeeder(SecretKey.parse(KEY_HEX, "test"), PURPOSES[p])
    ids_ = row_ids()[:100]
    streams = seeder.streams(ids_)
    got = np.stack([streams.next_long() for _ in range(10)], axis=1)
    want = np.array(
        [[int(w, 16) for w in line.partition(";")[2].partition("|")[0].split()] for line in lines], dtype=np.uint64
    )
    assert np.array_equal(got, want)


def test_leading_exponent_limit():
    """17 words of zeros end the draw at exponent 1100 + 64 (as the JVM's loop): u = 2**-1165 * 1.f -> 0."""

    class Zeros(RowStreams):
        __slots__ = ()

        def next_long(self, rows=None):
            super().next_long(rows)
            n = len(self.s0) if rows is None else len(rows)
            return np.zeros(n, dtype=np.uint64)

    z = Zeros(np.ones((2, 4), dtype=np.uint64))
    assert np.array_equal(z.next_uniform(), np.zeros(2))
    z = Zeros(np.ones((1, 4), dtype=np.uint64))
    assert z.next_log_uniform()[0] == -1165 * float(np.float64(0.6931471805599453))
    assert not np.array_equal(z.state(), np.ones((1, 4), dtype=np.uint64))  # 18 draws were made


def test_streams_own_their_state():
    """The caller's state array is copied, never advanced (also with one row); rows may be a list."""
    state = np.array([[1, 2, 3, 4]], dtype=np.uint64)
    s = RowStreams(state)
    s.next_long([0])
    s.next_long(np.array([0]))
    assert state.tolist() == [[1, 2, 3, 4]]
    t = RowStreams(state)
    t.next_long()
    t.next_long()
    assert np.array_equal(s.state(), t.state())
    assert RowStreams(np.zeros((2, 4), dtype=np.uint64)).state()[:, 0].tolist() == [0x9E3779B97F4A7C15] * 2


def test_next_int_rejects_bad_bounds():
    """A bound outside nextInt's [1, 2**31 - 1] is a bug of the engine's (its bounds are vocabulary sizes)."""
    s = RowStreams.from_seed([1, 2])
    for bad in (0, -3, 2**31):
        with pytest.raises(AssertionError):
            s.next_int(None, bad)
    with pytest.raises(AssertionError):
        s.next_int(np.array([0, 1]), np.array([5]))


# ----------------------------------------------------------------------------------------------- keys


def _message_safe(message: str, secret: str) -> None:
    """No 8-character piece of the secret text in the message."""
    for i in range(max(0, len(secret) - 8) + 1):
        piece = secret[i : i + 8]
        if len(piece.strip()) == 8:
            assert piece not in message, "a key file's content leaked into a message"


def _verdict(call) -> str:
    try:
        return "ok " + call().fingerprint()
    except ValueError as e:
        return "err " + str(e).replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def test_key_files_same_verdicts_and_fingerprints(oracle):
    mismatches = []
    for (name, path, content), want in zip(oracle["files"], oracle["key-files"], strict=True):
        got = _verdict(lambda p=path: SecretKey.from_file(p))
        if got != want:
            mismatches.append(f"{name}: {got!r} vs the JVM's {want!r}")
        if isinstance(content, bytes) and got.startswith("err"):
            _message_safe(got, content.decode("utf-8", "replace"))
            _message_safe(got, KEY_HEX)
    assert not mismatches, "\n".join(mismatches)
    verdicts = dict(zip([f[0] for f in oracle["files"]], oracle["key-files"], strict=True))
    # Sanity: the hex, base64 and raw-byte files were accepted, with the expected fingerprints.
    expected = SecretKey.parse(KEY_HEX, "x").fingerprint()
    for name in ("hex", "hex-crlf", "hex-bom", "hex-upper", "base64", "base64-unpadded", "base64-long-s"):
        assert verdicts[name] == f"ok {expected}", name
    assert verdicts["raw-32"].startswith("ok ") and verdicts["passphrase-latin1"].startswith("ok ")
    assert verdicts["passphrase-accents"].startswith("err ")


def test_key_texts_and_env(oracle):
    for text, want in zip(KEY_TEXTS, oracle["key-texts"], strict=True):
        assert _verdict(lambda t=text: SecretKey.parse(t, "test source")) == want, repr(text)
    saved = {k: os.environ.get(k) for k in [*ENV_KEYS, "DPTEXT_TEST_KEY_UNSET"]}
    try:
        os.environ.update(ENV_KEYS)
        os.environ.pop("DPTEXT_TEST_KEY_UNSET", None)
        for name, want in zip([*ENV_KEYS, "DPTEXT_TEST_KEY_UNSET"], oracle["key-env"], strict=True):
            got = _verdict(lambda n=name: SecretKey.from_env(n))
            assert got == want, name
            if got.startswith("err") and ENV_KEYS.get(name):
                _message_safe(got, ENV_KEYS[name])
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_key_is_redacted_and_never_pickled():
    key = SecretKey.parse(KEY_HEX, "environment variable DPTEXT_KEY")
    assert KEY_HEX not in repr(key) and KEY_HEX not in str(key)
    assert repr(key) == "SecretKey[redacted, from environment variable DPTEXT_KEY]"
    assert key.source == "environment variable DPTEXT_KEY"
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with pytest.raises(TypeError, match="key file"):
            pickle.dumps(key, protocol=protocol)
    with pytest.raises(TypeError):
        pickle.dumps({"udf": [key]})
    with pytest.raises(TypeError):
        pickle.dumps(RowSeeder(key, "p"))
    with pytest.raises(TypeError):
        key.__getstate__()
    assert key == SecretKey.parse(KEY_HEX.upper(), "elsewhere") and hash(key) == hash(SecretKey.parse(KEY_HEX, "y"))
    assert not key.is_fresh() and SecretKey.fresh().is_fresh()
    assert repr(RowSeeder(key, "p")) == "RowSeeder[key redacted]"


@pytest.mark.parametrize("length", [16, 32, 64, 65, 100, 200])
def test_seeds_are_rfc2104_hmac(length):
    """RowSeeder's two-state HMAC equals Python's hmac for every key length (keys above 64 bytes are hashed)."""
    material = bytes((i * 7 + length) % 256 for i in range(length))
    key = SecretKey(material, "test")
    purpose = "ü p"
    seeder = RowSeeder(key, purpose)
    ids_ = [b"", b"1", bytes(range(200))]
    prefix = b"dptext/row-seed/v1" + len(purpose.encode()).to_bytes(4, "big") + purpose.encode()
    want = [hmac.new(material, prefix + i, hashlib.sha256).digest() for i in ids_]
    got = seeder.seeds(ids_)
    assert [b"".join(int(w).to_bytes(8, "big") for w in row) for row in got] == want


def test_seeds_shape_and_empty():
    seeder = RowSeeder(SecretKey.parse(KEY_HEX, "t"), "p")
    assert seeder.seeds([]).shape == (0, 4)
    s = seeder.seeds([b"a", bytearray(b"a"), memoryview(b"a")])
    assert s.dtype == np.uint64 and (s == s[0]).all()


# -------------------------------------------------------------------------------------------- id bytes


def _spark_type(name: str):
    types = pytest.importorskip("pyspark.sql.types")
    if name.startswith("decimal"):
        p, s = name[8:-1].split(",")
        return types.DecimalType(int(p), int(s))
    return {
        "bigint": types.LongType(),
        "int": types.IntegerType(),
        "smallint": types.ShortType(),
        "tinyint": types.ByteType(),
        "string": types.StringType(),
        "binary": types.BinaryType(),
        "boolean": types.BooleanType(),
        "date": types.DateType(),
        "double": types.DoubleType(),
        "float": types.FloatType(),
    }[name]


def _python_values(name: str, values):
    if name.startswith("decimal"):
        return [Decimal(v) for v in values]
    return values


def _hexes(byte_list) -> list[str]:
    return [b.hex() or "-" for b in byte_list]


@pytest.mark.parametrize("type_name", list(ID_CASES))
def test_id_bytes_equal_jvm(oracle, type_name):
    if type_name == "date" and "spark=true" not in oracle["version"][0]:
        pytest.skip("dates need Spark's converters (pyspark's jars) on the oracle's class path")
    got = _hexes(ids.id_bytes(_python_values(type_name, ID_CASES[type_name]), _spark_type(type_name)))
    assert got == oracle[f"id-{type_name}"]
    # The type's name works as well as the pyspark type.
    assert _hexes(ids.id_bytes(_python_values(type_name, ID_CASES[type_name]), type_name)) == got


def test_ordinary_doubles_and_floats_equal_jvm(oracle):
    jdk = _major(oracle["version"][0])
    assert _hexes(ids.id_bytes(ORDINARY_DOUBLES, _spark_type("double"), jdk=jdk)) == oracle["double-ordinary"]
    assert _hexes(ids.id_bytes(ORDINARY_FLOATS, _spark_type("float"), jdk=jdk)) == oracle["float-ordinary"]
    # Ordinary values print alike on every JDK.
    for jdk in (17, 21):
        assert ids.java_double_string(1e20, jdk) == "1.0E20" and ids.java_double_string(1e-5, jdk) == "1.0E-5"
        assert ids.java_double_string(-0.0, jdk) == "-0.0" and ids.java_double_string(5.0, jdk) == "5.0"
        assert ids.java_double_string(5e-324, jdk) == "4.9E-324"
    # Where JDK 17 and JDK 19+ differ.
    assert ids.java_double_string(1e23, 21) == "1.0E23" and ids.java_double_string(1e23, 17) == "9.999999999999999E22"
    assert ids.java_double_string(1e-323, 21) == "9.9E-324" and ids.java_double_string(1e-323, 17) == "1.0E-323"
    assert ids.java_float_string(1.4709116e16, 21) == "1.4709116E16"
    assert ids.java_float_string(1.4709116e16, 17) == "1.47091162E16"


def test_random_doubles_and_floats_equal_jvm(oracle):
    """Random bit patterns, printed as the oracle's JDK prints them (JDK 17's FloatingDecimal, ported, or the
    JDK 19+ shortest form)."""
    jdk = _major(oracle["version"][0])
    assert _hexes(ids.id_bytes(random_doubles().tolist(), "double", jdk=jdk)) == oracle["double-random"]
    assert _hexes(ids.id_bytes(random_floats().tolist(), "float", jdk=jdk)) == oracle["float-random"]


def test_random_doubles_and_floats_equal_jdk19(oracle, modern):
    """The same against a JDK >= 19 when the oracle's is older (and the other way round)."""
    if modern is None or (modern["jdk"] >= 19) == (_major(oracle["version"][0]) >= 19):
        pytest.skip("no JDK on the other side of JDK 19 found (set DPTEXT_ORACLE_JAVA_MODERN to a JDK >= 19)")
    assert _hexes(ids.id_bytes(random_doubles().tolist(), "double", jdk=modern["jdk"])) == modern["double"]
    assert _hexes(ids.id_bytes(random_floats().tolist(), "float", jdk=modern["jdk"])) == modern["float"]
    differ = sum(
        a != b
        for a, b in zip(
            _hexes(ids.id_bytes(random_floats().tolist(), "float", jdk=17)),
            _hexes(ids.id_bytes(random_floats().tolist(), "float", jdk=21)),
            strict=True,
        )
    )
    assert differ > 0  # the two JDKs do print FLOAT ids differently: the jdk argument matters


def test_id_bytes_refusals():
    types = pytest.importorskip("pyspark.sql.types")
    with pytest.raises(DpTextError) as e:
        ids.id_bytes([1, None], types.LongType())
    assert e.value.name == "ID_NULL"
    for t in (
        types.TimestampType(),
        types.ArrayType(types.LongType()),
        types.TimestampNTZType(),
        types.StructType([types.StructField("a", types.LongType())]),
        types.MapType(types.StringType(), types.LongType()),
    ):
        with pytest.raises(DpTextError) as e:
            ids.id_bytes([1], t)
        assert e.value.name == "ID_TYPE_NOT_SEEDABLE" and e.value.parameters["type"] == t.simpleString()
    with pytest.raises(DpTextError) as e:
        ids.id_bytes([dt.date(1582, 10, 10)], types.DateType())
    assert e.value.name == "ID_DATE_UNSTABLE"
    with pytest.raises(DpTextError) as e:
        ids.id_bytes([True], types.LongType())
    assert e.value.name == "ID_VALUE_NOT_OF_TYPE" and e.value.parameters == {"type": "integral", "valueType": "bool"}
    assert ids.id_bytes(np.array([1, -2], dtype=np.int64), types.LongType()) == [b"1", b"-2"]
    assert ids.id_bytes(["x"], types.StringType("UTF8_LCASE")) == [b"x"]
    assert ids.id_bytes([Decimal("100.00"), Decimal("0E-5"), Decimal("-0.00")], "decimal(10,2)") == [b"100", b"0", b"0"]
    assert keys.java_utf8("a\ud800b") == b"a?b"


def _from_arrow(array):
    """A column as a Python worker gets it: Arrow to pandas through pyspark's converter (as the pandas UDF's)."""
    pytest.importorskip("pyspark")
    from pyspark.sql.pandas.types import _create_converter_to_pandas, from_arrow_type

    series = array.to_pandas(date_as_object=True, coerce_temporal_nanoseconds=True)
    data_type = from_arrow_type(array.type, prefer_timestamp_ntz=True)
    return _create_converter_to_pandas(data_type, nullable=True, timezone="UTC", error_on_duplicated_field_names=True)(
        series
    )


@pytest.mark.parametrize("pandas_3", [False, True], ids=["pandas-2", "pandas-3-strings"])
def test_a_null_id_seeds_nothing_whatever_pandas_makes_of_it(pandas_3):
    """A null id reaches the engine's UDF as None, or as NaN where pandas 3 (its default string dtype, which the
    serverless client venv gets) reads a string column: both are a null id, which the sanitizer refuses as the JVM
    does; never the seed b"nan". A DOUBLE id's own NaN reaches it as Spark's CAST, the text "NaN", and seeds as
    the JVM's Double.toString."""
    pa = pytest.importorskip("pyarrow")
    import pandas as pd

    from dptext.engine import spark as python_engine
    from dptext.engine.sanitizer import PythonSanitizer

    with pd.option_context("future.infer_string", pandas_3):
        for kind, text, raw in (
            ("string", pa.array(["a", None]), pa.array(["a", None])),
            ("bigint", pa.array(["7", None]), pa.array([7, None])),
            ("double", pa.array(["NaN", None]), pa.array([float("nan"), None])),
            ("binary", pa.array([None, None], pa.string()), pa.array([b"\x00", None])),
        ):
            seeds = python_engine.id_seeds(_from_arrow(pa.array([kind, kind])), _from_arrow(text), _from_arrow(raw))
            assert seeds[1] is None, (kind, seeds)
            assert seeds[0] == {"string": b"a", "bigint": b"7", "double": b"NaN", "binary": b"\x00"}[kind]
        # The SQL function's ids: a string column with a null is no floating-point series, and its null is none.
        assert python_engine.sql_id_seeds(_from_arrow(pa.array(["a", None]))) == [b"a", None]
    sanitizer = PythonSanitizer.__new__(PythonSanitizer)  # sanitize's id check comes before any model is used
    sanitizer.settings = type("S", (), {"id_mode": "column"})()
    with pytest.raises(python_engine.DpTextError) as e:
        sanitizer.sanitize(["the movie", "a film"], [b"a", None])
    assert e.value.name == "ID_NULL"
    assert sanitizer.sanitize([None, None], [b"a", None]) == [None, None]  # no text: no id needed, as on the JVM


def test_the_worker_refuses_what_it_cannot_take_in_one_line():
    """What only reaches a worker (dp_sanitize's column function and the SQL function have no schema when they are
    called): text that is not a string is refused, never an all-null output; a timestamp id is refused by name."""
    pa = pytest.importorskip("pyarrow")
    import pandas as pd

    from dptext.engine import spark as python_engine

    for values, kind in (([5, 6], "int"), ([b"hi", None], "bytes")):
        with pytest.raises(python_engine.DpTextError) as e:
            python_engine._texts(_from_arrow(pa.array(values)))
        assert e.value.name == "TEXT_NOT_A_STRING" and e.value.parameters == {"type": kind}
    assert python_engine._texts(pd.Series(["a", None, float("nan")], dtype=object)) == ["a", None, None]
    stamps = _from_arrow(pa.array([dt.datetime(2020, 1, 1), None], pa.timestamp("us")))
    for refuse in (
        lambda: python_engine.sql_id_seeds(stamps),
        lambda: python_engine.id_seeds(pd.Series(["timestamp"] * 2), pd.Series(["2020-01-01 00:00:00", None]), stamps),
    ):
        with pytest.raises(python_engine.DpTextError) as e:
            refuse()
        assert e.value.name == "ID_TYPE_NOT_SEEDABLE" and e.value.parameters["type"] == "timestamp"
        assert "\n" not in str(e.value)
