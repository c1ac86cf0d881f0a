"""The Python engine where no JVM of dptext runs: every Python surface, from a venv holding only the wheel,
against a Spark Connect server that has Delta and nothing of dptext, gives the rows of the job's own sanitize command.

The reference is the job's ``sanitize`` command (its own entry, every run in one JVM of its own:
JobReferences.java) over the same JSON file, key and model file, one run per mechanism and a few more
(``RUNS``). The defaults are compared on all REVIEWS
reviews through ``dptext.sanitize``; every other run, and every other surface (``dp_sanitize``,
``DpTextSanitizer``, the SQL function of ``register_function``, ``dptext.stream`` into Delta), on the first
SAMPLE of them.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pyarrow.parquet as pq
import pytest

from tests import support
from tests.serverless.conftest import REVIEWS, RUNS, SAMPLE, job_arguments, limit_of, ready, references_command

OUT = support.TMP / "serverless"


def rows(path) -> dict[int, str | None]:
    table = pq.read_table(path, columns=["id", "text_dp"])
    return dict(zip(table.column("id").to_pylist(), table.column("text_dp").to_pylist(), strict=True))


@pytest.fixture(scope="session")
def reference_runs(reviews, key):
    """The job's runs, all in one JVM (JobReferences.java), started first (session scope: before the client's
    venv and the bare server, which are session fixtures too) so that they overlap with those and the client."""
    files = []
    for r in RUNS:
        out = OUT / "jvm" / r["name"]
        shutil.rmtree(out, ignore_errors=True)  # an earlier run's output (the job refuses to overwrite it)
        # Each reference sanitizes what the client's run of it does: the defaults all REVIEWS, the others
        # the first ids (limit_of).
        args = job_arguments(reviews, key, out, r["settings"], limit_of(r))
        assert not any("\n" in a for a in args)
        files.append(OUT / "jvm" / f"{r['name']}.args")
        files[-1].parent.mkdir(parents=True, exist_ok=True)
        files[-1].write_text("\n".join(args) + "\n")
    log = OUT / "jvm" / "references.log"
    with open(log, "wb") as w:
        process = subprocess.Popen(references_command(files), stdout=w, stderr=subprocess.STDOUT)
    yield process, log
    if process.poll() is None:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def references(reference_runs):
    """The job's output for each run, by id."""
    process, log = reference_runs
    assert process.wait(timeout=900) == 0, f"the JVM references failed:\n{log.read_text(errors='replace')[-3000:]}"
    return {r["name"]: rows(OUT / "jvm" / r["name"]) for r in RUNS}


@pytest.fixture(scope="module")
def client(reference_runs, bare_server, client_python, reviews, key):
    """The user's script, run by the client venv's interpreter against the bare server (started before the
    client venv was made, in its fixture's order here: the references, the server, the venv)."""
    ready(bare_server)
    out = OUT / "client"
    shutil.rmtree(out, ignore_errors=True)  # an earlier run's outputs and stream checkpoint
    runs = [dict(r, limit=limit_of(r)) for r in RUNS]
    done = subprocess.run(
        [
            str(client_python),
            str(support.REPO / "python" / "tests" / "serverless" / "client.py"),
            bare_server.url,
            str(reviews),
            str(key),
            str(out),
            json.dumps(runs),
            str(SAMPLE),
        ],
        capture_output=True,
        text=True,
        cwd=support.TMP,
    )
    assert done.returncode == 0, f"the client failed:\n{done.stdout[-2000:]}\n{done.stderr[-5000:]}"
    return out, done.stdout


def assert_same_rows(got: dict, want: dict, expected: int) -> None:
    assert len(got) == expected
    differ = [i for i, text in got.items() if want[i] != text]
    assert not differ, f"{len(differ)} of {len(got)} rows differ from the JVM's, e.g. id {differ[0]}"


@pytest.mark.parametrize("run", RUNS, ids=[r["name"] for r in RUNS])
def test_each_mechanism_gives_the_jvm_rows(client, references, run):
    name = run["name"]
    assert_same_rows(rows(client[0] / f"sanitize-{name}"), references[name], limit_of(run) or REVIEWS)


@pytest.mark.parametrize("surface", ["column", "ml", "sql", "stream"])
def test_each_surface_gives_the_jvm_rows(client, references, surface):
    assert_same_rows(rows(client[0] / surface), references["defaults"], SAMPLE)


def test_the_server_has_nothing_of_dptext(bare_server):
    log = ready(bare_server).log.read_text(errors="replace")
    assert "dptext-udfs" not in log and "DpTextExtensions" not in log


def test_a_missing_column_is_one_line(client):
    said = next(line for line in client[1].splitlines() if line.startswith("missing-column:"))
    assert "'no_such_column' is not in the input" in said and len(said) < 300


@pytest.mark.parametrize(
    "case,said",
    [
        # A worker's refusal arrives as its catalogued one-line error, [NAME] first (errors.convert).
        ("null-id", "DpTextError: [ID_NULL] "),
        ("bigint-text", "DpTextError: [TEXT_COLUMN_NOT_STRING] The text column 'id' has type bigint;"),
        ("timestamp-id", "DpTextError: [ID_TYPE_NOT_SEEDABLE] The id column 'ts' has type timestamp,"),
    ],
)
def test_bad_input_is_refused_in_one_line(client, case, said):
    """Issue 53: the client venv's pandas (3, reading a string column's nulls as NaN) neither seeds a null id nor
    writes the row; a bigint text and a timestamp id are refused when the call is made."""
    line = next(line for line in client[1].splitlines() if line.startswith(case + ":"))
    assert line.startswith(f"{case}: {said}") and " | " not in line and len(line) < 400, line


def test_the_key_is_in_no_log_and_no_output(client, bare_server, key):
    secret = key.read_text().strip()
    assert secret not in bare_server.log.read_text(errors="replace")
    assert secret not in client[1]
