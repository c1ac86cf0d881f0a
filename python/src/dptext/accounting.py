"""The privacy ledger from Python: ``dptext.ledger(spark, "/lake/ledger")`` (docs/ledger.md).

The job records every release of source rows in the ledger (``sanitize --ledger``, ``dptext.stream(...,
ledger=...)``) and adds up the ε each row has spent. This is the job's own report (its ``ledger`` command),
computed in this session's JVM. On Spark Connect there is no JVM in this process: run ``dptext ledger``
as a Connect client, or query the ledger with the SQL that ``dptext ledger --sql`` prints.
"""

from __future__ import annotations

import json
from typing import Any

from dptext import session
from dptext.errors import DpTextError
from dptext.streaming import require_job


def ledger(spark: Any, location: str, source: str | None = None) -> dict:
    """The report of the ledger at ``location`` (a path or a table name), as the job's ``ledger --json`` writes it.

    ``{"sources": [{"source", "maximumEpsilonPerRow", "distribution": [{"epsilon", "rowKeys"}], "releases":
    [{"releaseId", "recordedAt", "mechanism", "epsilon", "rows", "rowKeysCharged", "epsilonAdded", "output",
    "committedVersion", "sharesRowsWith"}]}]}``; ``source`` keeps the sources whose identity contains it.
    """
    if session.is_connect(spark):
        raise DpTextError.of("LEDGER_NEEDS_JVM", location=location)
    jvm = require_job(spark)
    return json.loads(jvm.dev.dptext.job.ledger.LedgerReport.json(spark._jsparkSession, location, source))
