"""The Python engine's comparisons with the JVM run every mechanism the engine runs, and only those. Their rows
come from the registry's examples (``support.engine_runs``); this fails when ``SUPPORTED`` and the registry part
(a mechanism renamed) or when an extra run names a mechanism the engine refuses."""

from __future__ import annotations

import pytest

from dptext import _registry
from dptext.engine import mechanisms, sanitizer
from dptext.errors import DpTextError
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


def test_every_registry_spelling_resolves_to_the_mechanism_the_jvm_would_run():
    for m in _registry.mechanisms():
        for spelled in (m.name, *m.aliases, m.name.upper().replace("-", "_")):
            given = dict(pair.split("=", 1) for pair in filter(None, m.example.partition(":")[2].split(",")))
            conf = {**given, "mechanism": spelled}  # the example's parameters, by the JVM's names
            if m.name in mechanisms.SUPPORTED:
                assert sanitizer.EngineSettings.resolve(conf).mechanism == m.name
                continue
            # A built-in the JVM's registry has before the engine has its Python form: refused by its name, with
            # the way out (docs/adding-a-mechanism.md), whichever spelling named it.
            with pytest.raises(DpTextError) as refused:
                sanitizer.EngineSettings.resolve(conf)
            message = str(refused.value)
            assert refused.value.name == "PYTHON_ENGINE_MECHANISM_JVM_ONLY", message
            assert refused.value.parameters["mechanism"] == m.name and "engine='jvm'" in message, message


@pytest.mark.parametrize(("mechanism", "parameter"), [("custext+", "verbatim"), ("vickrey-topk", "t")])
def test_a_required_parameter_is_refused_as_the_jvm_refuses_it(mechanism, parameter):
    # MechanismSpec's refusal, with the setting's expected form and doc: one catalogued error on both engines.
    with pytest.raises(DpTextError) as refused:
        sanitizer.EngineSettings.resolve({"mechanism": mechanism})
    assert refused.value.name == "MECHANISM_PARAMETER_REQUIRED"
    assert refused.value.parameters["mechanism"] == mechanism and refused.value.parameters["parameter"] == parameter


@pytest.mark.parametrize("name", ["toy", "santxt"])
def test_a_mechanism_outside_the_built_in_registry_is_refused_with_the_way_out(name):
    # A provider's mechanism lives only in the JVM's registry: the refusal says where it runs, and serves a typo.
    with pytest.raises(DpTextError) as refused:
        sanitizer.EngineSettings.resolve({"mechanism": name})
    message = str(refused.value)
    assert refused.value.name == "PYTHON_ENGINE_MECHANISM_UNKNOWN" and refused.value.parameters["mechanism"] == name
    assert repr(name) in message and "provider" in message and "engine='jvm'" in message
    assert "spelling" in message and "\n" not in message


def test_a_built_in_mechanism_the_engine_does_not_run_yet_is_refused_by_name_with_the_way_out(monkeypatch):
    # What a mechanism added to the JVM's registry meets before its Python form (docs/adding-a-mechanism.md): shown
    # here on a registered one the engine is made not to run, so the path is tested while the engine runs them all.
    name = _registry.mechanisms()[-1].name
    monkeypatch.setattr(mechanisms, "SUPPORTED", tuple(m for m in mechanisms.SUPPORTED if m != name))
    with pytest.raises(DpTextError) as refused:
        sanitizer.EngineSettings.resolve({"mechanism": name})
    message = str(refused.value)
    assert refused.value.name == "PYTHON_ENGINE_MECHANISM_JVM_ONLY" and refused.value.parameters["mechanism"] == name
    assert f"does not run {name!r} yet" in message and "engine='jvm'" in message and "\n" not in message
    assert "provider" not in message  # it is dptext's own: not confused with a provider's or a typo
