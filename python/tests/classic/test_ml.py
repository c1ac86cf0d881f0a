"""The ML stage twin: pipelines saved from Python load in the JVM and the other way round."""

from __future__ import annotations

import pytest
from pyspark.ml import Pipeline, PipelineModel

from dptext.ml import DpTextSanitizer
from tests import support


def by_id(df):
    return {r["ticket_id"]: r["body_dp"] for r in df.collect()}


def stage_for(key, **params):
    """The stage names the key file (a Param holds the path, never the key)."""
    return DpTextSanitizer(keyFile=str(key[0]), **params)


def test_python_pipeline_loads_in_the_jvm_and_back(spark, tickets, key):
    stage = stage_for(key, inputCol="body", outputCol="body_dp", idCol="ticket_id", **support.SETTINGS)
    assert stage.getMechanism() == "santext+" and stage.getEpsilon() == 3.0 and stage.getNeighbours() == 64
    model = Pipeline(stages=[stage]).fit(tickets)
    expected = by_id(model.transform(tickets))
    path = str(support.TMP / "pipeline-from-python")
    model.write().overwrite().save(path)

    jvm_model = spark._jvm.org.apache.spark.ml.PipelineModel.load(path)
    jvm_stage = jvm_model.stages()[0]
    assert jvm_stage.getClass().getName() == "dev.dptext.spark.ml.DpTextSanitizer"
    assert jvm_stage.getMechanism() == "santext+"
    from pyspark.sql.classic.dataframe import DataFrame

    assert by_id(DataFrame(jvm_model.transform(tickets._jdf), spark)) == expected

    # And back: a pipeline saved by the JVM loads in Python as the twin, with the same output.
    jvm_path = str(support.TMP / "pipeline-from-jvm")
    jvm_model.write().overwrite().save(jvm_path)
    loaded = PipelineModel.load(jvm_path)
    assert isinstance(loaded.stages[0], DpTextSanitizer)
    assert loaded.stages[0].getIdCol() == "ticket_id" and loaded.stages[0].getP() == 0.3
    assert by_id(loaded.transform(tickets)) == expected
    assert by_id(DpTextSanitizer.load(path + "/stages/0_" + stage.uid).transform(tickets)) == expected


def test_the_stage_matches_the_dataframe_api_and_checks_params(spark, tickets, key):
    import dptext

    stage = stage_for(key, inputCol="body", outputCol="body_dp", idCol="ticket_id", **support.SETTINGS)
    api = dptext.sanitize(tickets, "body", "body_dp", id_col="ticket_id", **support.SETTINGS)
    assert by_id(stage.transform(tickets)) == by_id(api)
    assert "UMLDP" in stage.guarantee()
    with pytest.raises(dptext.DpTextError) as bad:
        stage_for(key, inputCol="body", outputCol="o", idCol="ticket_id", epsilon=-1.0)  # when set
    assert bad.value.name == "SETTING_INVALID"
    assert bad.value.parameters == {
        "setting": "epsilon",
        "expected": "a positive finite number",
        "value": "-1.0",
        "hint": "Typical values are 1 to 10 for the embedding mechanisms",
    }
    with pytest.raises(dptext.DpTextError) as e:
        DpTextSanitizer(epsilonn=1.0)
    assert e.value.name == "ML_PARAM_UNKNOWN" and e.value.parameters["param"] == "epsilonn"
