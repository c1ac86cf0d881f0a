"""Everything the package says about mechanisms, settings and Params comes from the JVM registry."""

from __future__ import annotations

import json

import pyspark

import dptext
from dptext import _registry
from dptext.functions import dp_sanitize
from dptext.ml import DpTextSanitizer
from tests import support


def test_the_packaged_registry_is_the_running_jvms(spark):
    live = json.loads(spark._jvm.dev.dptext.spark.ml.RegistryJson.json())
    assert _registry.raw() == live


def test_docstrings_state_every_guarantee_from_the_jvm(spark):
    jvm_mechanisms = spark._jvm.dev.dptext.mechanism.Mechanisms.ALL
    guarantees = [jvm_mechanisms.get(i).guarantee() for i in range(jvm_mechanisms.size())]
    assert len(guarantees) == len(dptext.mechanisms()) >= 7
    for g in guarantees:
        assert g in dp_sanitize.__doc__
        assert g in DpTextSanitizer.__doc__
    assert dptext.guarantee("santext") == guarantees[0]


def test_python_params_are_the_jvm_stages(spark):
    jvm_stage = spark._jvm.dev.dptext.spark.ml.DpTextSanitizer()
    jvm_params = {p.name(): p.doc() for p in jvm_stage.params()}
    py_params = {p.name: p.doc for p in DpTextSanitizer().params}
    assert py_params == jvm_params
    assert "secretKey" not in py_params


def test_versions_are_the_poms():
    version = support.pom_version()
    assert version == dptext.JAR_VERSION
    assert dptext.__version__ == version.replace("-SNAPSHOT", ".dev0")
    assert dptext.jar_path().endswith(f"dptext-udfs-{version}.jar")
    assert pyspark.__version__ == support.pom_property("spark.version")
