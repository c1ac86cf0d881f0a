package dev.dptext.job.command;

import dev.dptext.job.base.JobException;
import dev.dptext.job.ledger.LedgerRequest;
import picocli.CommandLine.Option;

/** {@code sanitize}'s privacy ledger options ({@link dev.dptext.job.ledger}, docs/ledger.md). */
final class LedgerOptions {
  @Option(names = "--ledger", paramLabel = "PATH|TABLE",
      description = "The privacy ledger: an append-only Delta table where every release of source rows is recorded "
          + "before it is written, and which adds up the ε each row has spent (dptext ledger shows it).")
  String ledger;

  @Option(names = "--epsilon-budget", paramLabel = "B",
      description = "Refuse (exit 6, nothing written) a run that would take any row of the source past B in total "
          + "ε per token, counting every release in --ledger (a repeat with the same key, settings and snapshot "
          + "counts once). Needs --ledger.")
  Double budget;

  @Option(names = "--dry-run",
      description = "Say what the run would release and spend (with --ledger: against the earlier releases), "
          + "then stop: nothing is recorded or written.")
  boolean dryRun;

  LedgerRequest request() {
    if (budget != null && ledger == null) {
      throw JobException.of("BUDGET_NEEDS_LEDGER");
    }
    if (budget != null && !(budget > 0 && Double.isFinite(budget))) {
      throw JobException.of("BUDGET_NOT_POSITIVE", "budget", budget);
    }
    return new LedgerRequest(ledger, budget, dryRun);
  }
}
