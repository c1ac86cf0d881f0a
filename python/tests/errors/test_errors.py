"""dptext's errors come from one catalogue (the JVM's error-classes.json, carried by the package): rendered as
the JVM renders them, named when they cross from the JVM or a Python worker, and raised by the model and the
key file with their names. No Spark, no JVM."""

from __future__ import annotations

import json
import pickle
import re
from importlib import resources
from pathlib import Path

import pytest

from dptext import errors, options
from dptext.engine import keys, model
from dptext.errors import DpTextError

SOURCE = Path(__file__).resolve().parents[3] / "udfs/src/main/resources/dev/dptext/errors/error-classes.json"


def test_the_package_carries_the_jvms_catalogue():
    packaged = resources.files("dptext").joinpath(errors.CATALOGUE)
    if not SOURCE.is_file():
        pytest.skip("no source checkout beside the package")
    assert packaged.is_file(), "the build copies error-classes.json into the package (build_support/maven.py)"
    assert json.loads(packaged.read_text(encoding="utf-8")) == json.loads(SOURCE.read_text(encoding="utf-8"))


def test_an_error_renders_as_the_jvm_renders_it():
    e = DpTextError.of("OUTPUT_EXISTS", path="/out", kind="a Delta table")
    # The same line as the JVM's DpTextErrorsTest.anErrorRendersAsOneLineWithItsNameFirst.
    assert str(e) == (
        "[OUTPUT_EXISTS] --output /out already exists (a Delta table). Choose --mode overwrite, append, "
        "replace-where or merge, or another --output."
    )
    assert e.name == "OUTPUT_EXISTS" and e.parameters == {"path": "/out", "kind": "a Delta table"}
    assert isinstance(e, ValueError)


def test_a_refused_setting_is_setting_invalid_with_the_jvms_parameters():
    with pytest.raises(DpTextError) as e:
        options.check(options.setting("epsilon"), "-1")
    assert e.value.name == "SETTING_INVALID"
    # The parameters the JVM's Check.failure gives (SettingsParityTest.everyParameterIsCheckedOnceWithOneMessage).
    assert e.value.parameters == {
        "setting": "epsilon",
        "expected": "a positive finite number",
        "value": "-1.0",
        "hint": "Typical values are 1 to 10 for the embedding mechanisms",
    }
    assert str(e.value).startswith("[SETTING_INVALID] epsilon must be a positive finite number, got -1.0. Typical")
    assert options.verdict(options.setting("epsilon"), "-1") == str(e.value)
    with pytest.raises(DpTextError) as unknown:
        options.setting("epsilonn")
    assert unknown.value.name == "SETTING_UNKNOWN" and unknown.value.parameters["unknown"] == "epsilonn"


def test_every_entry_can_be_raised_from_python():
    for entry_name, entry in errors.catalogue().items():
        named = re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)>", entry["message"] + entry["fix"])
        assert "name" not in named, f"{entry_name}: DpTextError.of takes the entry's name as 'name'"


def test_a_missing_or_extra_parameter_or_an_unknown_name_is_a_bug():
    with pytest.raises(AssertionError):
        DpTextError.of("OUTPUT_EXISTS", path="/out")
    with pytest.raises(AssertionError):
        DpTextError.of("OUTPUT_EXISTS", path="/out", kind="x", extra=1)
    with pytest.raises(AssertionError):
        DpTextError.of("NO_SUCH_ERROR")


def test_every_entry_names_an_exit_category():
    for name, entry in errors.catalogue().items():
        assert set(entry) == {"exit", "message", "fix"}, name
        assert entry["exit"] in {"USAGE", "INPUT", "INTEGRITY", "CONFLICT", "BUDGET", "FAILURE"}, name


class _CapturedError(Exception):
    """Stands for pyspark's exception: its str holds the JVM's trace or the worker's traceback."""


def test_a_jvm_error_arrives_with_its_name():
    line = str(DpTextError.of("KEY_MISSING", source="environment variable DPTEXT_KEY"))
    trace = (
        f"An error occurred while calling o42.sanitize.\n: java.lang.IllegalArgumentException: {line}\n"
        "\tat dev.dptext.random.SecretKey.parse(SecretKey.java:55)\n\tat dev.dptext.spark.DpText.x(DpText.java:1)\n"
    )
    converted = errors.convert(_CapturedError(trace))
    assert converted is not None and converted.name == "KEY_MISSING" and str(converted) == line
    assert converted.java_class == "java.lang.IllegalArgumentException"
    assert converted.parameters == {"source": "environment variable DPTEXT_KEY"}


def test_every_entrys_parameters_are_read_back_from_its_line_exactly_or_not_at_all():
    """As the JVM's DpTextErrorsTest: plain values come back whole; values holding the template's own words (spaces,
    brackets, full stops) come back whole or not at all, never wrong."""
    ambiguous = 0
    for name in errors.catalogue():
        entry = errors.catalogue()[name]
        names = list(dict.fromkeys(errors._PARAMETER.findall(f"{entry['message']} {entry['fix']}")))
        for plain in (True, False):
            if plain:
                values = {p: (f"/a_dir/{p}-1.json" if i % 2 == 0 else f"{p}:7.5,x") for i, p in enumerate(names)}
            else:
                values = {p: (f"/a dir/{p} (1).json" if i % 2 == 0 else f"[{p}, 7.5].") for i, p in enumerate(names)}
            line = errors.render(name, values)
            trace = f"{line}\n\tat dev.dptext.Z.z(Z.java:1)"
            for text in (line, f"dptext: {line}", f"x.Y: {line} [dptext exit 2]", trace):
                read = errors.parameters_of(name, text)
                if plain:
                    assert read == values, (name, text)
                elif read != values:
                    assert read == {}, (name, text)
                    ambiguous += 1
    assert ambiguous > 0
    assert errors.parameters_of("OUTPUT_EXISTS", "[OUTPUT_EXISTS] something else") == {}


@pytest.mark.parametrize(
    "raised",
    [
        lambda: DpTextError.of("KEY_FILE_UNREADABLE", path="/keys/k", kind="NoSuchFileException"),
        lambda: model.ModelError.of("MODEL_FILE_NOT_FOUND", model="/m/x.dptext-model"),
        # What the engine refuses only in a worker, where a row or the executor's key is seen.
        lambda: DpTextError.of("ID_NULL"),
        lambda: DpTextError.of("ID_TYPE_NOT_SEEDABLE", id="The id", type="timestamp"),
        lambda: DpTextError.of("KEY_DIFFERS_ON_EXECUTOR", where="the key file /k", executor="ab12", driver="cd34"),
    ],
)
def test_a_python_workers_error_arrives_as_its_one_line(raised):
    e = raised()
    cls = f"{type(e).__module__}.{type(e).__name__}"
    worker = (
        "An exception was thrown from the Python worker. Please see the stack trace below.\n"
        "Traceback (most recent call last):\n"
        '  File "/databricks/spark/python/pyspark/worker.py", line 1876, in main\n'
        "    process()\n"
        '  File "/local_disk0/dptext/engine/sanitizer.py", line 190, in _key\n'
        "    raise ...\n"
        f"{cls}: {e}\n"
    )
    converted = errors.convert(_CapturedError(worker))
    assert converted is not None
    assert str(converted) == str(e) and "\n" not in str(converted)
    assert converted.name == e.name


def test_the_model_raises_catalogued_errors(tmp_path):
    with pytest.raises(model.ModelError) as e:
        model.Model(str(tmp_path / "nowhere.dptext-model"))
    assert isinstance(e.value, DpTextError) and e.value.name == "MODEL_FILE_NOT_FOUND"
    bad = tmp_path / "bad.dptext-model"
    bad.write_bytes(b"NOT-A-MODEL-AT-ALL-0123456789")
    with pytest.raises(model.ModelError) as e:
        model.Model(str(bad))
    assert e.value.name == "MODEL_NOT_A_DPTEXT_MODEL" and e.value.parameters == {"model": str(bad)}
    with pytest.raises(model.ModelError) as e:
        model.resolve(str(tmp_path))
    assert e.value.name == "MODEL_PATH_IS_A_DIRECTORY"


def test_a_missing_or_short_key_file_is_a_catalogued_error(tmp_path):
    with pytest.raises(DpTextError) as e:
        keys.SecretKey.from_file(tmp_path / "missing.key")
    assert e.value.name == "KEY_FILE_UNREADABLE"
    assert e.value.parameters == {"path": str(tmp_path / "missing.key"), "kind": "NoSuchFileException"}
    short = tmp_path / "short.key"
    short.write_text("deadbeefcafebabe0123")
    with pytest.raises(DpTextError) as e:
        keys.SecretKey.from_file(short)
    assert e.value.name == "KEY_TOO_SHORT" and "deadbeef" not in str(e.value)
    with pytest.raises(DpTextError) as e:
        keys.SecretKey.parse(None, "environment variable X")
    assert e.value.name == "KEY_MISSING"


def test_the_streams_job_refusal_keeps_the_jobs_name():
    from dptext import streaming

    line = str(DpTextError.of("STREAM_FRESH_IDS"))
    said = f"dptext: stream: starting\ndptext: {line}"
    e = streaming._job_error(said, 2)
    assert e.name == "STREAM_FRESH_IDS" and str(e) == line  # as the job's command line writes it
    e = streaming._job_error("Exception in thread main: boom\n\tat x.y(Z.java:1)", 1)
    assert e.name == "STREAM_JOB_FAILED" and e.parameters["code"] == 1 and e.parameters["reason"].endswith("boom")
    assert streaming._job_error("", 3).parameters["reason"] == "its message is on the driver's standard error"


def test_a_catalogued_error_pickles_with_its_name():
    e = model.ModelError.of("MODEL_FILE_NOT_FOUND", model="/m")
    back = pickle.loads(pickle.dumps(e))
    assert type(back) is model.ModelError and back.name == e.name and back.parameters == e.parameters
    assert str(back) == str(e)
