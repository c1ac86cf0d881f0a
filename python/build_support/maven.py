"""The Python half of the Maven build (called by python/pom.xml through exec-maven-plugin).

  test     the default model and the venv with the pinned tools (at once: a JVM and pip), stage the package,
           build its wheel and install that, ruff, then pytest: classic and Spark Connect at once, as two
           processes (pyspark switches every column function to Connect once a Connect session exists in a
           process)
  package  the same default model, venv and staging, then a wheel in target/dist

Staging copies the sources to target/pkg and adds what the build derives: _version.py (the pom's
version in PEP 440 form), jars/ (the udfs jar of this build; jars/delta, Delta's jars for
configure(delta=True); jars/job, the job's jar and picocli for dptext.stream), registry.json (exported by the JVM's
dev.dptext.spark.ml.RegistryJson, the one source of mechanisms, guarantees and settings), error-classes.json
(the error catalogue, copied from udfs: dptext.errors reads it) and
models/default.dptext-model (the default model for the Python engine, built by the JVM's
dev.dptext.runtime.DefaultModelFile, 83 MB, 10-20 s, not rebuilt while it is newer than the jar;
docs/model-format.md) with models/prebuilt/ (what the Python engine would otherwise compute on every new machine:
dptext.engine.prebuilt, ~3 s).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

PYTHON_DIR = Path(__file__).resolve().parent.parent
REQUIREMENTS = PYTHON_DIR / "requirements-dev.txt"
CATALOGUE = (
    PYTHON_DIR.parent / "udfs" / "src" / "main" / "resources" / "dev" / "dptext" / "errors" / "error-classes.json"
)


def pep440(maven_version: str) -> str:
    """0.1.0-SNAPSHOT -> 0.1.0.dev0; 0.1.0 -> 0.1.0."""
    m = re.fullmatch(r"(\d+(?:\.\d+)*)(-SNAPSHOT)?", maven_version)
    if not m:
        raise SystemExit(f"cannot map the Maven version {maven_version!r} to a Python version")
    return m.group(1) + (".dev0" if m.group(2) else "")


def run(cmd: list[str], **kw) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kw)


def start_default_model(java: str, jar: Path, classpath: str, out: Path) -> subprocess.Popen:
    """Starts the JVM that writes the default model file to ``out`` (the embedded embeddings with the tables
    build-model stores by default, and the covariance), unless ``out`` is newer than ``jar``. It runs while pip
    makes the venv: one is a JVM, the other mostly pip, and a fresh clone needs both (~10 s and ~13 s)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [
        java,
        "-Xmx2g",
        "--add-modules=jdk.incubator.vector",
        "-Dslf4j.internal.verbosity=ERROR",
        "-cp",
        os.pathsep.join([str(jar), classpath]),
        "dev.dptext.runtime.DefaultModelFile",
        out,
        "--unless-newer-than",
        jar,
    ]
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.Popen([str(c) for c in cmd])


def await_default_model(process: subprocess.Popen, out: Path) -> None:
    if process.wait() != 0 or not out.is_file():
        raise SystemExit(f"building the default model {out} failed (exit {process.returncode}); see above")


def ensure_venv(target: Path) -> Path:
    """target/venv with exactly the pinned requirements; rebuilt when requirements-dev.txt changes."""
    home = target / "venv"
    python = home / "bin" / "python"
    stamp = home / "requirements.sha256"
    wanted = hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return python
    if home.exists():
        shutil.rmtree(home)
    venv.create(home, with_pip=True)
    # --no-compile: the tests import a small part of what is installed (pyspark alone is ~3,000 modules);
    # Python writes the bytecode of what it imports, so compiling everything up front is CPU the tests wait on.
    run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile", "-r", REQUIREMENTS])
    stamp.write_text(wanted)
    return python


def pyspark_jars(python: Path) -> Path:
    out = subprocess.run(
        [python, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip()) / "jars"


def stage(
    target: Path,
    python: Path,
    version: str,
    jar: Path,
    java: str,
    bundled: Path | None = None,
    job: Path | None = None,
    default_model: Path | None = None,
) -> Path:
    """target/pkg: the sources plus the derived _version.py, jar, registry.json, error catalogue and default model."""
    pkg = target / "pkg"
    if pkg.exists():
        shutil.rmtree(pkg)
    shutil.copytree(PYTHON_DIR / "src", pkg / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PYTHON_DIR / "pyproject.toml", pkg)
    shutil.copy(PYTHON_DIR / "README.md", pkg)
    (pkg / "build_support").mkdir()
    shutil.copy(PYTHON_DIR / "build_support" / "backend.py", pkg / "build_support")
    package = pkg / "src" / "dptext"
    (package / "_version.py").write_text(
        f'"""Written by the build from the pom\'s version {version}."""\n\n'
        f'__version__ = "{pep440(version)}"\nJAR_VERSION = "{version}"\n'
    )
    jars = package / "jars"
    jars.mkdir()
    shutil.copy(jar, jars / jar.name)
    for sub in ("delta", "job"):
        found = sorted((bundled / sub).glob("*.jar")) if bundled else []
        if sub == "job" and job:
            found.append(job)
        if found:
            (jars / sub).mkdir()
            for j in found:
                shutil.copy(j, jars / sub / j.name)
    classpath = os.pathsep.join([str(jar), str(pyspark_jars(python) / "*")])
    registry = subprocess.run(
        [java, "-cp", classpath, "dev.dptext.spark.ml.RegistryJson"], check=True, capture_output=True, text=True
    ).stdout
    (package / "registry.json").write_text(registry)
    shutil.copy(CATALOGUE, package / CATALOGUE.name)  # the error catalogue, as the JVM reads it
    if default_model:
        (package / "models").mkdir()
        shutil.copy(default_model, package / "models" / "default.dptext-model")
        # What no machine should compute for the default model (dptext.engine.prebuilt: BRR's floors, ~2 s).
        env = {**os.environ, "PYTHONPATH": str(pkg / "src"), "DPTEXT_MODEL_CACHE": "off"}
        run([python, "-m", "dptext.engine.prebuilt", package / "models" / "prebuilt"], env=env)
    return pkg


def wheel(python: Path, pkg: Path, dist: Path) -> Path:
    """The wheel of the staged package, as a user gets it (``-Ppython-wheel``), in an emptied ``dist``."""
    if dist.exists():
        shutil.rmtree(dist)
    run([python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", dist, pkg])
    return next(dist.glob("dptext-*.whl"))


def install(python: Path, built: Path) -> None:
    """Installs the wheel into the test venv: what ``pip install dptext-*.whl`` installs for a user."""
    run(
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-compile",
            "--no-deps",
            "--force-reinstall",
            built,
        ]
    )


def test(python: Path, target: Path, test_jars: str, built: Path) -> None:
    bin_dir = python.parent
    sources = [PYTHON_DIR, PYTHON_DIR.parent / "scripts" / "bench" / "python_overhead.py"]
    config = ["--config", PYTHON_DIR / "pyproject.toml"]
    run([bin_dir / "ruff", "check", *config, *sources])
    run([bin_dir / "ruff", "format", "--check", *config, *sources])
    env = dict(os.environ)
    env.pop("DPTEXT_JAR", None)  # the tests use the jar bundled in the installed package
    env["DPTEXT_TEST_JARS"] = test_jars  # Delta and the dbutils stand-in, for the notebook
    env["DPTEXT_TEST_WHEEL"] = str(built)  # the wheel the serverless client venv installs (built once, here)
    # The classic and the Connect suite run at once, each in its own scratch folder: each spends much of
    # its time waiting on a JVM (its session's, the Connect server's), so on a 2-core machine together
    # they take little more than the longer one alone. Each one's output is printed when it ends.
    # The connect process also runs the serverless proof (a server without dptext, a client venv with only
    # the wheel) first, so that its chain of processes (the job's reference JVM, the client venv, the bare
    # server, the client) starts at once, and after Connect's the lighter folders: the Python engine's unit
    # tests (no Spark session) and the package's import graph. That balances the two: the classic suite
    # alone ended ~30 s after the connect process.
    suites = {}
    for suite, folders in (
        ("classic", ["classic"]),
        ("connect", ["serverless", "connect", "engine", "layout", "errors"]),
    ):
        tmp = target / "pytest" / suite
        log = target / "pytest-reports" / (suite + ".log")
        log.parent.mkdir(parents=True, exist_ok=True)
        cmd = [
            python,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *[f"tests/{folder}" for folder in folders],  # run in this order
            f"--junitxml={target / 'pytest-reports' / (suite + '.xml')}",
        ]
        print("+", " ".join(str(c) for c in cmd), f"> {log}", flush=True)
        with open(log, "w") as out:
            process = subprocess.Popen(
                [str(c) for c in cmd],
                cwd=PYTHON_DIR,
                env={**env, "DPTEXT_TEST_TMP": str(tmp)},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        suites[suite] = (process, log)
    failed = []
    for suite, (process, log) in suites.items():
        code = process.wait()
        print(f"--- pytest tests/{suite} (exit {code}) ---", flush=True)
        print(log.read_text(), flush=True)
        if code != 0:
            failed.append(suite)
    if failed:
        raise SystemExit(f"pytest failed: tests/{' and tests/'.join(failed)}")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("goal", choices=["test", "package"])
    p.add_argument("--version", required=True)
    p.add_argument("--jar", required=True, type=Path)
    p.add_argument("--java", required=True)
    p.add_argument("--target", required=True, type=Path)
    p.add_argument("--test-jars", default="")
    p.add_argument("--bundled-jars", type=Path, help="a folder with delta/ and job/ jars to bundle")
    p.add_argument("--job-jar", type=Path, help="the job's jar, bundled for dptext.stream")
    p.add_argument("--default-model", required=True, type=Path, help="the default model file to build and bundle")
    p.add_argument("--default-model-classpath", required=True, help="what building it needs besides --jar")
    a = p.parse_args()
    if not a.jar.is_file():
        raise SystemExit(f"{a.jar} is missing: the udfs module builds it (run the reactor from the root)")
    if a.job_jar and not a.job_jar.is_file():
        raise SystemExit(f"{a.job_jar} is missing: the spark-job module builds it (./mvnw -B -ntp -DskipTests package)")
    a.target.mkdir(parents=True, exist_ok=True)
    model = start_default_model(a.java, a.jar, a.default_model_classpath, a.default_model)
    try:
        python = ensure_venv(a.target)
    except BaseException:
        model.kill()
        raise
    await_default_model(model, a.default_model)
    pkg = stage(a.target, python, a.version, a.jar, a.java, a.bundled_jars, a.job_jar, a.default_model)
    if a.goal == "test":
        built = wheel(python, pkg, a.target / "test-wheel")
        install(python, built)
        test(python, a.target, a.test_jars, built)
    else:
        wheel(python, pkg, a.target / "dist")


if __name__ == "__main__":
    sys.exit(main())
