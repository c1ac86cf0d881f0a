"""The serverless shape: a Spark Connect server from pip's pyspark with Delta and nothing of dptext, a client
venv holding only ``pip install dptext-*.whl``, and the job's own sanitize command's output as the reference."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

import pytest

from dptext import connect_server
from tests import support
from tests.connect.server import ConnectServer, free_port

# The defaults run on REVIEWS reviews, every other run and surface on the first SAMPLE of them (the suite's
# time: the Python engine's rejection samplers run at a fraction of the JVM's rate, BENCHMARKS.md).
REVIEWS = int(os.environ.get("DPTEXT_SERVERLESS_REVIEWS", "10000"))
SAMPLE = int(os.environ.get("DPTEXT_SERVERLESS_SAMPLE", "2000"))
# The embedding-noise mechanisms search the whole vocabulary per token (~0.5 of the JVM's rate, BENCHMARKS.md):
# they run on the first NOISE_SAMPLE; their rows are also proven on the golden files (tests/engine/test_golden.py)
# and were compared on 10,000 reviews when they were written (the note).
NOISE_SAMPLE = int(os.environ.get("DPTEXT_SERVERLESS_NOISE_SAMPLE", "300"))
# Each mechanism the Python engine runs, by its registry example (support.engine_runs), and these, which reach
# what the examples, every parameter away from its default, do not:
RUNS = [
    {"name": name, "settings": settings}
    for name, settings in support.engine_runs(
        {
            "defaults": {},  # every setting at its default: also the reference of the other surfaces' runs
            "1-diffractor-geometric": {"mechanism": "1-diffractor"},  # the default list noise; the example's is tem
        }
    ).items()
]


def reviews_file() -> Path:
    """The first REVIEWS IMDb reviews as JSON lines {"id", "text"} (fetched once into ~/.cache/dptext)."""
    cache = Path(os.environ.get("DPTEXT_DATA", Path.home() / ".cache" / "dptext"))
    source = cache / "imdb-reviews.jsonl"
    if not source.exists():
        subprocess.run([str(support.REPO / "scripts" / "data" / "fetch-data.sh")], check=True)
    folder = support.TMP / "serverless" / "reviews"
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "part-0.json"
    with open(source) as f, open(out, "w") as w:
        for i, line in enumerate(f):
            if i == REVIEWS:
                break
            row = json.loads(line)
            w.write(json.dumps({"id": row["id"], "text": row["review"]}) + "\n")
    return folder


def package_file(*parts: str) -> Path:
    import dptext

    return Path(dptext.__file__).parent.joinpath(*parts)


def limit_of(run: dict) -> int | None:
    """How many of the first reviews a run sanitizes (None: all REVIEWS)."""
    if run["name"] == "defaults":
        return None
    return NOISE_SAMPLE if run["settings"].get("mechanism") in support.NOISE_MECHANISMS else SAMPLE


def job_arguments(reviews: Path, key: Path, out: Path, settings: dict, limit: int | None = None) -> list[str]:
    """The job's ``sanitize`` arguments for one reference run: the reviews with an id below ``limit``, or all of
    them, with the settings as the command line spells them."""
    from dptext import options, streaming

    args = ["sanitize", "--input", str(reviews), "--input-format", "json", "--input-schema", "id BIGINT, text STRING"]
    args += ["--output", str(out), "--output-format", "parquet"]
    args += ["--text-column", "text", "--output-column", "text_dp", "--id-column", "id"]
    args += ["--model", str(package_file("models", "default.dptext-model")), "--key-file", str(key)]
    if limit is not None:
        args += ["--where", f"id < {int(limit)}"]
    for name, value in settings.items():
        s = options.setting(name)
        args += [streaming._cli_name(s.name), options.as_text(value)]
    return args


def references_command(argument_files: list[Path]) -> list[str]:
    """One JVM (dptext's jars and Spark's, as spark-submit runs the job) that runs the job once per file of
    arguments, through the job's own entry (JobReferences.java)."""
    from dptext import session

    jars = [session.jar_path(), *session.job_jars(), str(connect_server.spark_home() / "jars" / "*")]
    java_options = os.environ.get("DPTEXT_JAVA_OPTIONS", "--add-modules jdk.incubator.vector").split()
    program = Path(__file__).with_name("JobReferences.java")
    return [
        "java",
        *java_options,
        *support.jvm_options("-Xmx2g").split(),
        "-cp",
        os.pathsep.join(jars),
        str(program),
        *map(str, argument_files),
    ]


@pytest.fixture(scope="session")
def key():
    return support.key_file()[0]


@pytest.fixture(scope="session")
def reviews():
    return reviews_file()


@pytest.fixture(scope="session")
def wheel():
    """The wheel of this build: the one the Maven build made and installed into the test venv
    (DPTEXT_TEST_WHEEL), else one ``pip wheel`` makes from the staged package."""
    if os.environ.get("DPTEXT_TEST_WHEEL"):
        return Path(os.environ["DPTEXT_TEST_WHEEL"])
    dist = support.TMP / "serverless" / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(dist),
            str(support.REPO / "python" / "target" / "pkg"),
        ],
        check=True,
    )
    return next(dist.glob("dptext-*.whl"))


def client_venv() -> Path:
    return support.TMP / "serverless" / "client-venv"


@pytest.fixture(scope="session")
def client_python(wheel):
    """A venv with nothing but the wheel and what it requires, installed with the line docs/python-and-connect.md
    gives for a Spark Connect client: ``pip install "dptext-<version>-py3-none-any.whl[connect]"``. The venv has
    no pip of its own: the test venv's pip installs into it (``--python``), which also spares ~5 CPU-s of
    bootstrapping pip into every fresh client venv."""
    home = client_venv()
    venv.create(home, clear=True, with_pip=False)  # a fresh venv: pip keeps an installed wheel of the same version
    python = home / "bin" / "python"
    # --no-compile only skips byte-compiling what is installed up front (see build_support/maven.py).
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*install, "--no-compile", f"{wheel}[connect]"], check=True)
    return python


@pytest.fixture(scope="session")
def bare_server():
    """pip pyspark 4.0.1's Connect server with Delta's jars and extension, no dptext jar, no dptext conf; its
    Python workers run the client venv's interpreter (as a serverless environment installs a notebook's
    libraries on its workers). Started, not awaited (``ready``): it comes up while the client venv is made,
    which must be there before the first Python worker starts (the client runs from that venv)."""
    port = free_port()
    log = support.TMP / "serverless" / "bare-server.log"
    delta = [j for j in support.test_jars() if Path(j).name.startswith("delta-")]
    cmd = [str(connect_server.spark_home() / "bin" / "spark-submit"), "--master", "local[2]", "--jars", ",".join(delta)]
    conf = {
        "spark.connect.grpc.binding.port": str(port),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.ui.enabled": "false",
        "spark.sql.shuffle.partitions": "2",
        # Delta's state reconstruction in 2 tasks, not 50: sized for local[2], as the job's local sessions are
        "spark.databricks.delta.snapshotPartitions": "2",
        "spark.pyspark.python": str(client_venv() / "bin" / "python"),
        "spark.sql.warehouse.dir": str(support.TMP / "serverless" / "warehouse"),
        "spark.driver.extraJavaOptions": support.jvm_options(
            f"-Dderby.system.home={support.TMP / 'serverless' / 'derby'}"
        ),
    }
    for k, v in conf.items():
        cmd += ["--conf", f"{k}={v}"]
    cmd += ["--class", connect_server.SERVER_CLASS, "spark-internal"]
    with open(log, "wb") as out:
        env = {**connect_server.environment(), "PYSPARK_PYTHON": str(client_venv() / "bin" / "python")}
        process = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    server = ConnectServer(process, port, log)
    yield server
    server.stop()


def ready(server: ConnectServer, timeout: float = 240) -> ConnectServer:
    """The bare server once its port accepts connections."""
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"the bare Connect server exited:\n{server.log.read_text()[-3000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", server.port)) == 0:
                return server
        time.sleep(0.5)
    tail = server.log.read_text()[-3000:]
    raise RuntimeError(f"the bare Connect server did not listen within {timeout:.0f} s:\n{tail}")
