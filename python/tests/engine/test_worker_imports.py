"""What a Python worker running the engine imports, and the JVM-error conversion whatever the import order.

A worker unpickles the engine's function, which imports ``dptext.engine`` and so the package ``dptext``: the
package must not load its DataFrame API, ML stage, sessions or Spark Connect's client there (~0.7 s before
a worker's first batch). Each case runs in a fresh interpreter, since this one has imported them already."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("pyspark")


def _run(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_engine_loads_nothing_of_the_driver_side():
    found = _run(
        "import json, sys\n"
        "import dptext.engine.spark, dptext.engine.sanitizer\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('dptext', 'pyspark.sql.connect')))))"
    )
    driver_side = [
        m
        for m in found
        if m.startswith("pyspark.sql.connect")
        or m in ("dptext.dataframe", "dptext.ml", "dptext.session", "dptext.streaming", "dptext.accounting")
    ]
    assert driver_side == []
    assert "dptext.engine.spark" in found


@pytest.mark.parametrize("connect_first", [True, False])
def test_jvm_errors_are_converted_on_connect_whichever_is_imported_first(connect_first):
    client = "from pyspark.sql.connect.client.core import SparkConnectClient\n"
    code = (client + "import dptext\n") if connect_first else ("import dptext\n" + client)
    found = _run(
        code + "import json\n"
        "print(json.dumps([getattr(SparkConnectClient._handle_error, '_dptext', False), dptext.sanitize.__module__]))"
    )
    assert found == [True, "dptext.dataframe"]


def test_the_public_names_resolve():
    import dptext

    for name in dptext.__all__:
        assert getattr(dptext, name) is not None, name
    assert set(dptext.__all__) <= set(dir(dptext))
    assert _run("import json, dptext\nprint(json.dumps(dptext.functions.dp_sanitize.__name__))") == "dp_sanitize"
    with pytest.raises(AttributeError):
        dptext.no_such_name  # noqa: B018
