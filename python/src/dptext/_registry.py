"""The JVM's registry of mechanisms, settings and ML Params, as the build exported it.

``registry.json`` is written into the package at build time by ``dev.dptext.spark.ml.RegistryJson``
(the Java registry is the one source of truth); nothing here is typed by hand. A test compares the
file with the running JVM's registry.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class Parameter:
    """A mechanism's parameter: its setting name and default (``None`` when required)."""

    name: str
    required: bool
    default: str | None


@dataclass(frozen=True)
class Mechanism:
    """A mechanism as the Java registry states it, guarantee included. ``example`` is its spec with every
    parameter away from its default (``tem:epsilon=6,gamma=4.5,beta=0.01``): what the tests run it with."""

    name: str
    summary: str
    guarantee: str
    parameters: tuple[Parameter, ...]
    aliases: tuple[str, ...] = ()
    example: str = ""


@dataclass(frozen=True)
class Setting:
    """One setting of the JVM's settings table (``spark.dptext.<name>``)."""

    name: str
    conf_key: str
    kind: str
    default: str | None
    default_doc: str
    expected: str
    doc: str
    secret: bool
    check: dict | None = None
    choices: tuple[str, ...] = ()
    hint: str = ""

    @property
    def python_name(self) -> str:
        """The keyword-argument spelling: ``oovPlaceholder`` -> ``oov_placeholder``."""
        return re.sub(r"(?<!^)([A-Z])", r"_\1", self.name).lower()


@dataclass(frozen=True)
class MlParam:
    """A Param of the JVM stage ``dev.dptext.spark.ml.DpTextSanitizer``."""

    name: str
    doc: str
    type: str


@lru_cache(maxsize=1)
def raw() -> dict:
    """The registry as exported by the build (a dict parsed from JSON)."""
    text = resources.files("dptext").joinpath("registry.json").read_text(encoding="utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def mechanisms() -> tuple[Mechanism, ...]:
    """Every mechanism, in the registry's order."""
    return tuple(
        Mechanism(
            m["name"],
            m["summary"],
            m["guarantee"],
            tuple(Parameter(p["name"], p["required"], p["default"]) for p in m["parameters"]),
            tuple(m.get("aliases", ())),
            m["example"],
        )
        for m in raw()["mechanisms"]
    )


def default_mechanism() -> str:
    return raw()["defaultMechanism"]


@lru_cache(maxsize=1)
def settings() -> tuple[Setting, ...]:
    """Every setting, the key itself included (marked ``secret``)."""
    return tuple(
        Setting(
            s["name"],
            s["confKey"],
            s["kind"],
            s["default"],
            s["defaultDoc"],
            s["expected"],
            s["doc"],
            s["secret"],
            s.get("check"),
            tuple(s.get("choices", ())),
            s.get("hint", ""),
        )
        for s in raw()["settings"]
    )


def ml_params() -> tuple[MlParam, ...]:
    return tuple(MlParam(p["name"], p["doc"], p["type"]) for p in raw()["mlStage"]["params"])


def ml_java_class() -> str:
    return raw()["mlStage"]["javaClass"]


def sql_function() -> str:
    return raw()["sqlFunction"]


def mechanisms_doc(indent: str = "    ") -> str:
    """Every mechanism with its parameters and guarantee, for docstrings."""
    lines = []
    for m in mechanisms():
        params = ", ".join(p.name + (" (required)" if p.required else f"={p.default}") for p in m.parameters)
        lines.append(f"{indent}* ``{m.name}`` ({params}): {m.summary}")
        lines.append(f"{indent}  Guarantee: {m.guarantee}.")
    return "\n".join(lines)


def settings_doc(indent: str = "    ") -> str:
    """Every non-secret setting with its keyword name, default and doc, for docstrings."""
    lines = []
    for s in settings():
        if not s.secret:
            lines.append(f"{indent}* ``{s.python_name}`` ({s.default_doc}; {s.expected}): {s.doc}")
    return "\n".join(lines)
