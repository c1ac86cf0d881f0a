"""The Python engine's comparisons with the JVM run every mechanism the engine runs, and only those. Their rows
come from the registry's examples (``support.engine_runs``); this fails when ``SUPPORTED`` and the registry part
(a mechanism renamed) or when an extra run names a mechanism the engine refuses."""

from __future__ import annotations

import pytest

from dptext import _registry
from dptext.engine import mechanisms
from tests import support
from tests.classic import test_python_engine as classic
from tests.serverless import conftest as serverless


@pytest.mark.parametrize(
    "runs",
    [classic.RUNS, {r["name"]: r["settings"] for r in serverless.RUNS}],
    ids=["classic", "serverless"],
)
def test_every_supported_mechanism_has_a_run_and_every_run_is_supported(runs):
    ran = {settings.get("mechanism", _registry.default_mechanism()) for settings in runs.values()}
    assert ran == set(mechanisms.SUPPORTED)
    for name in mechanisms.SUPPORTED:  # each by its example, every parameter away from its default
        assert runs[name] == support.engine_example(name)
