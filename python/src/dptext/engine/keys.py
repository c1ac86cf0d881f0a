"""The secret key and the per-row seeds it derives: ``dev.dptext.random.SecretKey`` and ``RowSeeder``.

The rules are the JVM's, to the letter, so that the Python engine accepts exactly the keys the JVM accepts,
reads the same bytes from them (same fingerprint, same streams), and refuses the others with the same
messages: hex of at least 32 digits, ``base64:`` and standard Base64 of at least 16 bytes, or (in a key
file only) the raw bytes when the file is not clean UTF-8 text. Messages name the source and the expected
shape, never the value.

The key never travels: ``SecretKey`` refuses to be pickled (so it cannot end up inside a pickled UDF or a
broadcast); executors read it from the key file or environment variable the driver named and check its
fingerprint.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import unicodedata
from pathlib import Path

import numpy as np

from dptext.engine.xoshiro import RowStreams
from dptext.errors import DpTextError

__all__ = ["FILE_FORMATS", "HOW_TO_GENERATE", "MIN_BYTES", "RowSeeder", "SecretKey"]

MIN_BYTES = 16
"""Minimum key length in bytes (128 bits)."""

HOW_TO_GENERATE = "generate one with `openssl rand -hex 32`"
FILE_FORMATS = (
    "a key file holds hex digits (`openssl rand -hex 32 > key`), "
    "'base64:' and Base64, or the raw bytes (`head -c 32 /dev/urandom > key`)"
)
_FINGERPRINT_LABEL = b"dptext key fingerprint v1"
_NEVER_TRAVELS = (
    "a dptext SecretKey cannot be pickled: the key never travels with a UDF or a broadcast; executors read "
    "it from the key file (or environment variable) the driver named and check its fingerprint"
)

# Java's Character.isWhitespace: space, line and paragraph separators except the no-break ones, plus
# \t \n \u000b \f \r and \u001c-\u001f (String.strip() removes exactly these; Python's str.strip() differs:
# it also strips \u00a0, \u0085, \u2007, \u202f).
_NO_BREAK = {"\u00a0", "\u2007", "\u202f"}
_JAVA_CONTROL_SPACE = set("\t\n\u000b\f\r\u001c\u001d\u001e\u001f")


def _java_whitespace(c: str) -> bool:
    if c in _JAVA_CONTROL_SPACE:
        return True
    return c not in _NO_BREAK and unicodedata.category(c) in ("Zs", "Zl", "Zp")


def _java_strip(s: str) -> str:
    start, end = 0, len(s)
    while start < end and _java_whitespace(s[start]):
        start += 1
    while end > start and _java_whitespace(s[end - 1]):
        end -= 1
    return s[start:end]


def _java_length(s: str) -> int:
    """String.length(): UTF-16 code units (a character outside the BMP counts 2)."""
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


def _starts_with_base64(s: str) -> bool:
    """``s.regionMatches(true, 0, "base64:", 0, 7)``: Java's case-insensitive char comparison (upper case
    equal, or lower case of the upper case equal), so e.g. the long s U+017F matches 's' as in the JVM."""
    if len(s) < 7:
        return False
    for c, t in zip(s[:7], "base64:", strict=True):
        if c == t:
            continue
        u = c.upper() if len(c.upper()) == 1 else c
        if u == t.upper() or u.lower() == t:
            continue
        return False
    return True


_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


class _NotBase64Error(Exception):
    """Where ``Base64.getDecoder().decode`` throws IllegalArgumentException; ``SecretKey.parse`` turns it into
    KEY_NOT_BASE64, the user's message (which says nothing of the key's characters)."""


def _java_base64(s: str) -> bytes:
    """``Base64.getDecoder().decode(s)``: RFC 4648 without line breaks; padding optional but, when present,
    complete; nothing after it; a lone final character is an error; unused trailing bits are not checked.
    Raises ``_NotBase64Error`` where Java throws IllegalArgumentException (the decoder's reason in a comment)."""
    if len(s) == 1:
        raise _NotBase64Error  # "Input byte[] should at least have 2 bytes for base64 bytes"
    out = bytearray()
    bits = 0
    shift = 18
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        i += 1
        v = _B64.get(c)
        if v is None:
            if c == "=":
                # '=' ends the data: "xx==" and "xxx=" are complete, "=" alone, "x=" and "xx=" are not.
                if (shift == 6 and (i == n or s[i] != "=")) or shift == 18:
                    raise _NotBase64Error  # "Input byte array has wrong 4-byte ending unit"
                if shift == 6:
                    i += 1
                break
            raise _NotBase64Error  # "Illegal base64 character"
        bits |= v << shift
        shift -= 6
        if shift < 0:
            out += bytes(((bits >> 16) & 0xFF, (bits >> 8) & 0xFF, bits & 0xFF))
            shift, bits = 18, 0
    if shift == 6:
        out.append((bits >> 16) & 0xFF)
    elif shift == 0:
        out += bytes(((bits >> 16) & 0xFF, (bits >> 8) & 0xFF))
    elif shift == 12:
        raise _NotBase64Error  # "Last unit does not have enough valid bits"
    if i < n:
        raise _NotBase64Error  # "Input byte array has incorrect ending byte"
    return bytes(out)


def _is_ascii_hex(c: str) -> bool:
    return "0" <= c <= "9" or "a" <= c <= "f" or "A" <= c <= "F"


def _file_text(content: bytes) -> str | None:
    """SecretKey.text: the content as text when it is valid UTF-8 (a leading BOM dropped) without control
    characters other than line breaks and tabs; else None (the key's raw bytes)."""
    start = 3 if content[:3] == b"\xef\xbb\xbf" else 0
    try:
        text = content[start:].decode("utf-8")
    except UnicodeDecodeError:
        return None
    for c in text:
        o = ord(c)
        if (o <= 0x1F or 0x7F <= o <= 0x9F) and c not in "\n\r\t":  # Character.isISOControl
            return None
    return text


_JAVA_IO_ERRORS = (
    (FileNotFoundError, "NoSuchFileException"),
    (PermissionError, "AccessDeniedException"),
    (IsADirectoryError, "IOException"),
    (NotADirectoryError, "FileSystemException"),
)


class SecretKey:
    """The secret that keys every row's random stream (``dev.dptext.random.SecretKey``).

    Whoever knows the key and a row's id can recompute that row's noise: it is never printed (``repr`` is
    redacted), never in a message, and never pickled.
    """

    __slots__ = ("_fresh", "_material", "_source")

    def __init__(self, material: bytes, source: str, fresh: bool = False) -> None:
        """Use ``parse``, ``from_file``, ``from_env`` or ``fresh``; this takes already-checked material."""
        self._material = bytes(material)
        self._source = source
        self._fresh = fresh

    # ------------------------------------------------------------------------------------- constructors

    @classmethod
    def parse(cls, encoded: str | None, source: str) -> SecretKey:
        """An encoded key: hex (>= 32 digits) or ``base64:...`` (>= 16 bytes), surrounding whitespace ignored.

        ``source`` says where the key came from, for messages (e.g. "environment variable DPTEXT_KEY"),
        never the key. Raises a catalogued DpTextError (a ValueError: KEY_MISSING, KEY_TOO_SHORT, ...) naming the
        source and the expected shape, never the value.
        """
        if encoded is None:
            raise DpTextError.of("KEY_MISSING", source=source)
        s = _java_strip(encoded)
        if _starts_with_base64(s):
            try:
                material = _java_base64(s[7:])
            except _NotBase64Error:
                raise DpTextError.of("KEY_NOT_BASE64", source=source) from None
        elif len(s) % 2 == 0 and all(_is_ascii_hex(c) for c in s):
            material = bytes.fromhex(s)
        else:
            name = "KEY_FILE_NOT_HEX_OR_BASE64" if source.startswith("key file") else "KEY_NOT_HEX_OR_BASE64"
            raise DpTextError.of(name, source=source, length=_java_length(s))
        if len(material) < MIN_BYTES:
            raise DpTextError.of("KEY_TOO_SHORT", source=source, bits=len(material) * 8, minBits=MIN_BYTES * 8)
        return cls(material, source)

    @classmethod
    def from_env(cls, variable: str) -> SecretKey:
        """The key in an environment variable."""
        return cls.parse(os.environ.get(variable), f"environment variable {variable}")

    @classmethod
    def from_file(cls, path) -> SecretKey:
        """The key in a file: its whole content as text (hex or base64, surrounding whitespace and a BOM
        ignored), or its raw bytes when it is not clean UTF-8 text (``head -c 32 /dev/urandom > key``)."""
        shown = str(Path(path))
        try:
            with open(path, "rb") as f:
                content = f.read()
        except OSError as e:
            kind = next((name for error, name in _JAVA_IO_ERRORS if isinstance(e, error)), "IOException")
            raise DpTextError.of("KEY_FILE_UNREADABLE", path=shown, kind=kind) from None
        source = f"key file {shown}"
        text = _file_text(content)
        if text is not None:
            return cls.parse(text, source)
        if len(content) < MIN_BYTES:
            raise DpTextError.of("KEY_FILE_TOO_SHORT", source=source, bytes=len(content), minBytes=MIN_BYTES)
        return cls(content, source)

    @classmethod
    def fresh(cls) -> SecretKey:
        """A fresh random key, for runs whose output need not be reproducible."""
        return cls(secrets.token_bytes(32), "a fresh random key (not reproducible)", fresh=True)

    # ------------------------------------------------------------------------------------------ queries

    @property
    def source(self) -> str:
        """Where this key came from, e.g. "environment variable DPTEXT_KEY". Safe to log."""
        return self._source

    def is_fresh(self) -> bool:
        """Whether this key was drawn by ``fresh()``: outputs keyed by it cannot be reproduced."""
        return self._fresh

    def fingerprint(self) -> str:
        """HMAC-SHA256 of a fixed label under the key, first 128 bits in hex: tells keys apart without
        revealing them (equal to the JVM's ``SecretKey.fingerprint()``). Safe to log."""
        return hmac.new(self._material, _FINGERPRINT_LABEL, hashlib.sha256).digest()[:16].hex()

    def _hmac_pads(self, message: bytes = b""):
        """HMAC-SHA256 under this key as its two SHA-256 states (RFC 2104; for RowSeeder only): the inner
        hash after key XOR ipad and ``message``, the outer after key XOR opad. HMAC(m) is then
        outer.update(inner.update(m).digest()).digest() on copies of the two, 3x faster per message than
        copying an ``hmac`` object."""
        key = self._material if len(self._material) <= 64 else hashlib.sha256(self._material).digest()
        key = key.ljust(64, b"\0")
        inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        inner.update(message)
        outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
        return inner, outer

    # ------------------------------------------------------------------- never printed, never pickled

    def __repr__(self) -> str:
        return f"SecretKey[redacted, from {self._source}]"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, SecretKey) and hmac.compare_digest(self._material, other._material)

    def __hash__(self) -> int:
        return hash(self.fingerprint())

    def __reduce_ex__(self, protocol):
        raise TypeError(_NEVER_TRAVELS)

    def __reduce__(self):
        raise TypeError(_NEVER_TRAVELS)

    def __getstate__(self):
        raise TypeError(_NEVER_TRAVELS)

    def __copy__(self) -> SecretKey:
        return self  # immutable

    def __deepcopy__(self, memo) -> SecretKey:
        return self


_DOMAIN = b"dptext/row-seed/v1"


def java_utf8(s: str) -> bytes:
    """``String.getBytes(UTF_8)``: UTF-8, with each unpaired surrogate replaced by '?' as Java's encoder
    does (a Python str may hold surrogates that a Java String would pair: they are paired first)."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        paired = s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
        return paired.encode("utf-8", "replace")


class RowSeeder:
    """Each row's stream from the key (``dev.dptext.random.RowSeeder``): seed = HMAC-SHA256(key, domain ‖
    len(purpose) as a big-endian int32 ‖ purpose ‖ row id), its 32 bytes read as four big-endian 64-bit words
    (s0..s3 of xoshiro256++)."""

    __slots__ = ("_inner", "_outer", "purpose")

    def __init__(self, key: SecretKey, purpose: str) -> None:
        # dptext's callers pass the SecretKey they read and the purpose setting's string (default "dptext"):
        # a None here is a bug in the caller, not something a setting or a row can cause.
        if key is None:
            raise AssertionError("RowSeeder: key must not be None")
        if purpose is None:
            raise AssertionError("RowSeeder: purpose must not be None")
        self.purpose = purpose
        encoded = java_utf8(purpose)
        # The key and the fixed prefix are hashed once; each row copies these states and adds its id only.
        self._inner, self._outer = key._hmac_pads(_DOMAIN + len(encoded).to_bytes(4, "big", signed=True) + encoded)

    def seeds(self, ids) -> np.ndarray:
        """The 256-bit seeds of rows with these ids (bytes each), shape (n, 4) uint64."""
        inner, outer = self._inner.copy, self._outer.copy
        digests = []
        append = digests.append
        for row_id in ids:
            h = inner()
            h.update(row_id)
            o = outer()
            o.update(h.digest())
            append(o.digest())
        if not digests:
            return np.zeros((0, 4), dtype=np.uint64)
        return np.frombuffer(b"".join(digests), dtype=">u8").reshape(len(digests), 4).astype(np.uint64)

    def streams(self, ids) -> RowStreams:
        """The random streams of rows with these ids (``RandomStream(seed words)``; an all-zero seed is
        replaced as the JVM does)."""
        return RowStreams(self.seeds(ids))

    def __repr__(self) -> str:
        return "RowSeeder[key redacted]"

    def __reduce_ex__(self, protocol):
        raise TypeError(_NEVER_TRAVELS)
