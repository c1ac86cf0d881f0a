package dev.dptext.job.ledger;

/**
 * A run's ledger options, as given.
 *
 * @param ledger {@code --ledger}, null for none
 * @param budget {@code --epsilon-budget}, null for none
 * @param dryRun {@code --dry-run}
 */
public record LedgerRequest(String ledger, Double budget, boolean dryRun) implements java.io.Serializable {
  public static final LedgerRequest NONE = new LedgerRequest(null, null, false);

  /** Whether the run goes through the ledger gate at all. */
  public boolean active() {
    return ledger != null || dryRun;
  }
}
