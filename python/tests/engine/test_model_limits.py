"""A mechanism parameter the model cannot serve raises the JVM's catalogued error, by the same name."""

from __future__ import annotations

import pytest

from dptext.engine import mechanisms
from dptext.engine.model import Model
from dptext.errors import DpTextError
from tests.engine import model_files


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Model:
    words, vectors = model_files.synthetic(size=20)
    path = tmp_path_factory.mktemp("limits") / "m.dptext-model"
    return Model(str(model_files.write(path, words, vectors, {0: 8})))


def test_group_size_above_the_vocabulary(model):
    with pytest.raises(DpTextError) as e:
        mechanisms.CusText(model, 2.0, 21, None, False)
    assert e.value.name == "MECHANISM_PARAMETER_EXCEEDS_MODEL"
    assert e.value.parameters == {
        "mechanism": "custext",
        "parameter": "groupSize",
        "value": 21,
        "what": "vocabulary size",
        "limit": 20,
    }


def test_more_lists_than_words(model):
    with pytest.raises(DpTextError) as e:
        mechanisms.Diffractor(model, 2.0, "geometric", 5, 21)
    assert e.value.name == "MECHANISM_PARAMETER_EXCEEDS_MODEL"
    assert e.value.parameters["parameter"] == "lists"


def test_a_fraction_selecting_no_word(model):
    with pytest.raises(DpTextError) as e:
        mechanisms.SanTextPlus(model, 2.0, 0.01, 0.3)
    assert e.value.name == "MECHANISM_PARAMETER_SELECTS_NO_WORD"
    # The value as the JVM renders it (BigDecimal, plain), so both sides write the same line.
    assert e.value.parameters == {"mechanism": "santext+", "parameter": "w", "value": "0.01", "size": 20}


def test_more_vickrey_thresholds_than_words(model):
    from dptext.engine import noise

    with pytest.raises(DpTextError) as e:
        noise.Vickrey(model, 2.0, 0.0, [0.5] * 21)
    assert e.value.name == "MECHANISM_PARAMETER_EXCEEDS_MODEL"
    # VickreyMechanism.THRESHOLD_COUNT's words, so both engines write the same line.
    assert e.value.parameters == {
        "mechanism": "vickrey-topk",
        "parameter": "k (the number of thresholds in t)",
        "value": 21,
        "what": "vocabulary size",
        "limit": 20,
    }
