"""The golden files the JVM wrote (udfs/src/test/resources/golden, written by ``GoldenRowsTest``), read with no JVM.

Every built-in mechanism, at its defaults and at its registry example, over a small version-2 model, a fixed test
key and a corpus of hard Unicode cases: the Python engine must give every row the JVM gave, byte for byte, and
seed every id type with the JVM's bytes. ``GoldenRowsTest`` writes the files again on each JVM build and fails on
any byte difference, so a change to a sampler, the tokenizer, the seeding or the model format on either side shows
here or there.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dptext import _registry
from dptext.engine import ids as id_bytes
from dptext.engine import mechanisms
from dptext.engine.keys import SecretKey
from dptext.engine.sanitizer import EngineSettings, PythonSanitizer
from dptext.errors import DpTextError

GOLDEN = Path(__file__).resolve().parents[3] / "udfs" / "src" / "test" / "resources" / "golden"


def _lines(name: str) -> list[dict]:
    return [json.loads(line) for line in (GOLDEN / name).read_text(encoding="ascii").splitlines() if line]


def _settings(spec: str) -> dict[str, str]:
    """``tem:epsilon=6,gamma=4.5`` -> settings by JVM name (a list parameter keeps its ``;``)."""
    name, _, rest = spec.partition(":")
    conf = {"mechanism": name}
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        conf[key] = value
    return conf


ROWS = _lines("rows.jsonl")
SPECS = list(dict.fromkeys(r["spec"] for r in ROWS))


def test_every_built_in_mechanism_is_in_the_golden_rows():
    names = {_settings(s)["mechanism"] for s in SPECS}
    assert names == {m.name for m in _registry.mechanisms()}


def test_the_documents_promise_the_jvm_rows_only_for_the_mechanisms_the_engine_runs():
    # True whatever SUPPORTED holds, so a mechanism added to the JVM's registry first needs no edit here: the
    # rows for every mechanism the engine runs, a refusal with the way out for the others
    # (test_the_engine_gives_the_jvm_rows).
    docs = Path(__file__).resolve().parents[3] / "docs"
    page = (docs / "python-and-connect.md").read_text(encoding="utf-8")
    assert "for **every built-in mechanism the engine runs**" in page
    assert "a built-in mechanism it does not run yet" in page
    for name in ("python-and-connect.md", "databricks.md"):
        text = " ".join((docs / name).read_text(encoding="utf-8").split())
        assert "every built-in mechanism**" not in text and "every built-in mechanism (" not in text, (
            f"docs/{name} promises the JVM's rows for every built-in mechanism: the engine may not run one yet"
        )


@pytest.mark.parametrize("spec", SPECS)
def test_the_engine_gives_the_jvm_rows(spec):
    if _settings(spec)["mechanism"] not in mechanisms.SUPPORTED:
        # A mechanism the JVM's registry has before the engine has its Python form: refused, with the way out.
        with pytest.raises(DpTextError, match=r"does not run .*engine='jvm'") as refused:
            EngineSettings.resolve(_settings(spec))
        assert refused.value.name == "PYTHON_ENGINE_MECHANISM_JVM_ONLY"
        return
    key = SecretKey.parse((GOLDEN / "key.hex").read_text(encoding="ascii").strip(), "the golden files' test key")
    conf = _settings(spec) | {"model": str(GOLDEN / "model.dptext-model"), "idMode": "column"}
    sanitizer = PythonSanitizer(EngineSettings.resolve(conf), key)
    rows = [r for r in ROWS if r["spec"] == spec]
    got = sanitizer.sanitize([r["text"] for r in rows], [bytes.fromhex(r["id"]) for r in rows])
    wrong = [(r["text"], r["output"], g) for r, g in zip(rows, got, strict=True) if g != r["output"]]
    assert not wrong, f"{len(wrong)} of {len(rows)} rows differ from the JVM's; first: {wrong[0]!r}"


def _python_value(kind: str, text: str):
    import datetime
    from decimal import Decimal

    if kind in ("BIGINT", "INT", "SMALLINT", "TINYINT"):
        return int(text)
    if kind.startswith("DECIMAL"):
        return Decimal(text)
    if kind == "DOUBLE":
        return float(text)
    if kind == "BINARY":
        return bytes.fromhex(text)
    if kind == "BOOLEAN":
        return text == "true"
    if kind == "DATE":
        return datetime.date.fromisoformat(text)
    return text


@pytest.mark.parametrize("line", _lines("ids.jsonl"), ids=lambda line: line["id"])
def test_ids_seed_with_the_jvm_bytes(line):
    from pyspark.sql import types as T

    kind, _, text = line["id"].partition(":")
    simple = {
        "BIGINT": T.LongType(),
        "INT": T.IntegerType(),
        "SMALLINT": T.ShortType(),
        "TINYINT": T.ByteType(),
        "STRING": T.StringType(),
        "DOUBLE": T.DoubleType(),
        "BINARY": T.BinaryType(),
        "BOOLEAN": T.BooleanType(),
        "DATE": T.DateType(),
    }
    if kind.startswith("DECIMAL("):
        precision, scale = kind[len("DECIMAL(") : -1].split(",")
        spark_type = T.DecimalType(int(precision), int(scale))
    else:
        spark_type = simple[kind]
    assert id_bytes.id_bytes([_python_value(kind, text)], spark_type) == [bytes.fromhex(line["bytes"])]
