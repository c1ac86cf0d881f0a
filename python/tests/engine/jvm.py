"""Runs ``oracle/Oracle.java`` against the dptext jar: one JVM per batch of questions."""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ORACLE = HERE / "oracle" / "Oracle.java"
FALLBACK_JAR = Path("/tmp/oracle/dptext-udfs-0.1.0-SNAPSHOT.jar")


def oracle_jar() -> Path | None:
    """DPTEXT_ORACLE_JAR, else the newest udfs/target/dptext-udfs-*.jar (not -tests), else /tmp/oracle/..."""
    if os.environ.get("DPTEXT_ORACLE_JAR"):
        return Path(os.environ["DPTEXT_ORACLE_JAR"])
    built = [
        Path(p)
        for p in glob.glob(str(REPO / "udfs" / "target" / "dptext-udfs-*.jar"))
        if not p.endswith("-tests.jar") and not p.endswith("-sources.jar")
    ]
    if built:
        return max(built, key=lambda p: p.stat().st_mtime)
    return FALLBACK_JAR if FALLBACK_JAR.exists() else None


def java_binary() -> str | None:
    if os.environ.get("JAVA_HOME") and (Path(os.environ["JAVA_HOME"]) / "bin" / "java").exists():
        return str(Path(os.environ["JAVA_HOME"]) / "bin" / "java")
    return shutil.which("java")


def modern_java() -> str | None:
    """A JDK >= 19 (whose Double/Float.toString the id bytes follow): DPTEXT_ORACLE_JAVA_MODERN, else one
    found under /usr/lib/jvm."""
    if os.environ.get("DPTEXT_ORACLE_JAVA_MODERN"):
        return os.environ["DPTEXT_ORACLE_JAVA_MODERN"]
    best = None
    for release in glob.glob("/usr/lib/jvm/*/release"):
        m = re.search(r'JAVA_VERSION="(\d+)', Path(release).read_text(errors="replace"))
        java = Path(release).parent / "bin" / "java"
        if m and int(m.group(1)) >= 19 and java.exists() and (best is None or int(m.group(1)) > best[0]):
            best = (int(m.group(1)), str(java))
    return best[1] if best else None


def spark_jars(everything: bool = True) -> str | None:
    """pyspark's jars as a class path entry: all of them, or only slf4j's API (which Sanitizer logs through)."""
    spec = importlib.util.find_spec("pyspark")
    if spec is None or not spec.submodule_search_locations:
        return None
    jars = Path(next(iter(spec.submodule_search_locations))) / "jars"
    if not jars.is_dir():
        return None
    if everything:
        return str(jars / "*")
    return os.pathsep.join(glob.glob(str(jars / "slf4j-api-*.jar"))) or None


def require() -> tuple[str, Path]:
    """The java binary and jar, or skip the module with the reason."""
    jar = oracle_jar()
    java = java_binary()
    if java is None:
        pytest.skip(
            "no java on PATH (nor JAVA_HOME): the engine is compared with the JVM's classes", allow_module_level=True
        )
    if jar is None or not jar.exists():
        pytest.skip(
            "no dptext jar to compare with: set DPTEXT_ORACLE_JAR or build udfs (mvn -pl udfs package)",
            allow_module_level=True,
        )
    return java, jar


def ask(
    requests, java: str | None = None, spark: bool = True, converters: bool = True, env: dict | None = None
) -> list[list[str]]:
    """Answers ``requests`` — (command, args, lines) — with one JVM run; one list of lines per request.

    ``spark``: pyspark's jars on the class path (slf4j for Sanitizer, Spark's type converters for id bytes);
    ``converters``: build ids through Spark's CatalystTypeConverters (else the Java objects directly)."""
    default_java, jar = require()
    classpath = str(jar)
    jars = spark_jars(everything=converters) if spark else None
    if jars:
        classpath += os.pathsep + jars
    chunks = []
    for command, args, lines in requests:
        chunks.append(" ".join(["@", command, str(len(lines)), *args]))
        chunks.extend(lines)
    payload = ("\n".join(chunks) + "\n").encode("utf-8")
    cmd = [java or default_java, "-Xss4m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath]
    if jars and converters:  # what Spark's launcher opens for its date-time and memory code
        opened = ("sun.util.calendar", "java.lang", "java.nio", "java.util")
        cmd += [f"--add-opens=java.base/{p}=ALL-UNNAMED" for p in opened]
    cmd.append(str(ORACLE))
    if not (spark and converters):
        cmd.append("--no-spark")
    done = subprocess.run(cmd, input=payload, capture_output=True, env=env, timeout=300)
    if done.returncode != 0:
        raise AssertionError(f"the oracle JVM failed ({done.returncode}):\n{done.stderr.decode(errors='replace')}")
    out = done.stdout.decode("utf-8").split("\n")
    answers, i = [], 0
    for _ in requests:
        header = out[i]
        assert header.startswith("@ "), header
        n = int(header[2:])
        answers.append(out[i + 1 : i + 1 + n])
        i += 1 + n
    return answers


def hex_lines(values: np.ndarray) -> list[str]:
    """Each 64-bit word (uint64/int64/float64 bits) as 16 hex digits."""
    h = np.ascontiguousarray(values).view(np.uint64).astype(">u8").tobytes().hex()
    return [h[i : i + 16] for i in range(0, len(h), 16)]


def from_hex_lines(lines: list[str]) -> np.ndarray:
    """16-hex-digit lines back to uint64 words."""
    return np.frombuffer(bytes.fromhex("".join(lines)), dtype=">u8").astype(np.uint64)
