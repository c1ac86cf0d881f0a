"""What both test suites share: the test data, the key file, the test-only paths."""

from __future__ import annotations

import os
import re
import secrets
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TMP = Path(os.environ.get("DPTEXT_TEST_TMP") or tempfile.mkdtemp(prefix="dptext-pytest-"))

# Raw text that must never appear in a log: it is in one of the rows below.
CANARY = "Zorblax canary Quixotic-7731 shipping complaint"

TICKETS = [
    (1001, "shipping", "My order arrived two days late and the box was damaged. I would like a refund."),
    (1002, "app", "The new update keeps crashing when I open the settings page on my phone."),
    (1003, "billing", "I was charged twice for the same subscription this month."),
    (1004, "account", "I forgot my password and the reset email never arrives."),
    (1005, "shipping", CANARY),
    (1006, "app", ""),
    (1007, "billing", None),
]
SCHEMA = "ticket_id BIGINT, product STRING, body STRING"

# The settings both suites sanitize with (the same key file, ids and settings give the same output).
SETTINGS = {"mechanism": "santext+", "epsilon": 3.0, "w": 0.9, "p": 0.3}


# What the Python engine's runs cannot take from a mechanism's example: the engine reads the bundled default model
# file and cannot compute a neighbour table itself, and that file holds SanText+'s table for the default w only
# (others: `dptext build-model --santext-plus-w W`), so santext+ runs its example at the default w.
ENGINE_KEEPS_DEFAULT = {"santext+": ("w",)}


def example_settings(example: str) -> dict[str, str]:
    """A mechanism's example spec from the registry (``tem:epsilon=6,gamma=4.5,beta=0.01``, the form
    ``MechanismSpec.parse`` reads) as keyword settings: ``{"mechanism": "tem", "epsilon": "6", ...}``."""
    from dptext import options

    name, _, given = example.partition(":")
    settings = {"mechanism": name.strip()}
    for pair in filter(None, given.split(",")):
        key, _, value = pair.partition("=")
        settings[options.setting(key.strip()).python_name] = value.strip()
    return settings


NOISE_MECHANISMS = ("laplace", "mahalanobis", "vickrey", "vickrey-topk")  # they search the vocabulary per token


def engine_example(mechanism: str) -> dict[str, str]:
    """The settings the Python engine's tests run ``mechanism`` with: its registry example (every parameter away
    from its default, ``MechanismDefinition#example``) but for ``ENGINE_KEEPS_DEFAULT``."""
    from dptext import _registry

    example = next(m.example for m in _registry.mechanisms() if m.name == mechanism)
    settings = example_settings(example)
    for name in ENGINE_KEEPS_DEFAULT.get(mechanism, ()):
        del settings[name]
    return settings


def engine_runs(extra: dict[str, dict]) -> dict[str, dict]:
    """The runs of the Python engine's tests against the JVM: each mechanism the engine runs (``SUPPORTED``) by
    its example (``engine_example``), so a mechanism brings its own row, then ``extra``: named runs that reach
    branches the examples do not."""
    from dptext import _registry
    from dptext.engine import mechanisms

    runs = {m.name: engine_example(m.name) for m in _registry.mechanisms() if m.name in mechanisms.SUPPORTED}
    clash = runs.keys() & extra.keys()
    assert not clash, f"extra runs named like a mechanism: {clash}"
    return {**runs, **extra}


def key_file() -> tuple[Path, str]:
    """A fresh 256-bit key in a file of mode 600 (created once per test run)."""
    path = TMP / "test.key"
    if not path.exists():
        TMP.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    return path, path.read_text().strip()


def test_jars() -> list[str]:
    return [j for j in os.environ.get("DPTEXT_TEST_JARS", "").split(",") if j]


def pom_property(name: str) -> str:
    match = re.search(rf"<{re.escape(name)}>([^<]+)</{re.escape(name)}>", (REPO / "pom.xml").read_text())
    assert match, f"{name} not in pom.xml"
    return match.group(1)


def pom_version() -> str:
    match = re.search(
        r"<artifactId>dptext-parent</artifactId>\s*<version>([^<]+)</version>", (REPO / "pom.xml").read_text()
    )
    assert match
    return match.group(1)


def jvm_options(*options: str) -> str:
    """``options`` and the test runner's CPU settings, the JVM options of every JVM a Python test starts: the
    parent pom's ``test.jvm.cpu`` (the serial collector, JIT thresholds x4), which the Maven build passes as
    DPTEXT_TEST_JVM_OPTIONS (none when pytest runs on its own). They change what a JVM spends compiling and
    collecting, not what a test checks."""
    return " ".join([*options, *os.environ.get("DPTEXT_TEST_JVM_OPTIONS", "").split()])


def log4j_config(log_file: Path) -> Path:
    """A log4j2 configuration: everything at INFO and dptext at DEBUG into log_file, warnings to the console."""
    conf = TMP / f"log4j2-{log_file.stem}.properties"
    conf.write_text(
        "\n".join(
            [
                "rootLogger.level = info",
                "rootLogger.appenderRef.file.ref = file",
                "rootLogger.appenderRef.console.ref = console",
                "appender.file.type = File",
                "appender.file.name = file",
                f"appender.file.fileName = {log_file}",
                "appender.file.layout.type = PatternLayout",
                "appender.file.layout.pattern = %d %p %c: %m%n%ex",
                "appender.console.type = Console",
                "appender.console.name = console",
                "appender.console.target = SYSTEM_ERR",
                "appender.console.filter.threshold.type = ThresholdFilter",
                "appender.console.filter.threshold.level = error",
                "appender.console.layout.type = PatternLayout",
                "appender.console.layout.pattern = %p %c{1}: %m%n",
                "logger.dptext.name = dev.dptext",
                "logger.dptext.level = debug",
                "",
            ]
        )
    )
    return conf
