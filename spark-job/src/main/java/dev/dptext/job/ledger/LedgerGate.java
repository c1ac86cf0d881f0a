package dev.dptext.job.ledger;

import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.runtime.RowContent;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.spark.sql.SparkSession;

/**
 * A release's way through the ledger: checked against the budget, recorded BEFORE its write, checked
 * again against what concurrent runs recorded meanwhile, then confirmed (or withdrawn when it refuses
 * to write). A crash at any step leaves the release counted: the ledger over-counts, never under-counts.
 */
public final class LedgerGate {
  /** The entry of a commit's userMetadata naming the release it wrote. */
  public static final String RELEASE_PROPERTY = "dptext.release";

  private LedgerGate() {}

  /**
   * A batch run's release, once through {@link #before}: {@code release} is null after a dry run.
   */
  public record Entry(SparkSession spark, ReleasePlan plan, Release release) {
    /**
     * Computes the rows {@code accepted} releases (keyed by {@code idColumn}, null for none) and takes them
     * through {@link #before}; {@code content}: what they hold, summed by the input's check.
     */
    public static Entry of(SparkSession spark, LedgerRequest request, SourceSnapshot snapshot,
        org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> accepted, String idColumn, RowContent.Sums content,
        ReleasePlan plan, Consumer<String> say) {
      ReleasedRows rows = ReleasedRows.of(accepted, idColumn);
      return new Entry(spark, plan, before(spark, plan, snapshot.version(), rows, content, request.dryRun(), say));
    }

    public void committed(long version, Consumer<String> warn) {
      LedgerGate.committed(spark, plan, release, version, warn);
    }

    public void withdraw() {
      LedgerGate.withdraw(spark, plan, release);
    }

    /**
     * After the write: when the files read changed since the release was recorded, its snapshot is not
     * known exactly, and the ledger is told so that it never counts as a repeat.
     */
    public void checkSnapshot(SourceSnapshot snapshot, Consumer<String> warn) {
      LedgerGate.checkSnapshot(spark, plan, release, snapshot, warn);
    }
  }

  /**
   * Says what the release would spend and refuses it over the budget; unless {@code dryRun}, records it
   * as intended, re-checks the budget with every release recorded by then (a concurrent run's
   * included) and returns it; a dry run records nothing and returns null.
   *
   * @throws JobException ({@link ExitCode#BUDGET}) when a row would go past the budget; nothing is
   *     written then (a release recorded before the re-check is withdrawn)
   */
  public static Release before(SparkSession spark, ReleasePlan plan, String sourceVersion, ReleasedRows rows,
      RowContent.Sums content, boolean dryRun, Consumer<String> say) {
    Release release = plan.release(sourceVersion, rows, content);
    LedgerTable ledger = plan.ledger() == null ? null : new LedgerTable(spark, plan.ledger());
    List<Release> earlier = ledger == null ? List.of() : ledger.releases();
    Spending.Outcome outcome = new Spending(plan.source(), earlier).with(release, plan.budget());
    say.accept((dryRun ? "Dry run: this run would release " : "This run releases ") + rows.describe() + " of "
        + plan.source() + " with " + plan.parameters() + "; " + spends(outcome, plan.budget())
        + (ledger == null ? " (no --ledger: earlier releases are not known)" : ""));
    if (outcome.refused()) {
      throw refusal(plan, outcome, earlier);
    }
    if (dryRun || ledger == null) {
      return null;
    }
    try {
      ledger.recordIntended(release);
    } catch (LedgerTable.LedgerUnavailable e) {
      throw JobException.of(e, "LEDGER_UNAVAILABLE_BEFORE_WRITE", "ledger", e.ledger, "reason", e.reason);
    }
    if (plan.budget() != null) {
      List<Release> others = new ArrayList<>(ledger.releases());
      others.removeIf(r -> r.releaseId().equals(release.releaseId()));
      Spending.Outcome now = new Spending(plan.source(), others).with(release, plan.budget());
      if (now.refused()) {
        withdraw(spark, plan, release);
        throw refusal(plan, now, others);
      }
    }
    return release;
  }

  /** Confirms that {@code release} was committed; a failure to say so leaves it counted, with a warning. */
  public static void committed(SparkSession spark, ReleasePlan plan, Release release, long version,
      Consumer<String> warn) {
    try {
      new LedgerTable(spark, plan.ledger()).recordCommitted(release.releaseId(), plan.output(), version);
    } catch (LedgerTable.LedgerUnavailable e) {
      warn.accept("Could not record in the ledger " + e.getMessage() + "; release " + release.releaseId() + " stays counted as intended (the ledger "
          + "never under-counts), and the output's commit names it (dptext.release)");
    }
  }

  /** {@link Entry#checkSnapshot}, for a batch run or a micro-batch. */
  public static void checkSnapshot(SparkSession spark, ReleasePlan plan, Release release, SourceSnapshot snapshot,
      Consumer<String> warn) {
    if (snapshot.unchangedSince(spark)) {
      return;
    }
    warn.accept("The input's files changed while this run read them: release " + release.releaseId() + " is "
        + "recorded with an unknown snapshot (it counts, and no later run repeats it)");
    try {
      new LedgerTable(spark, plan.ledger()).recordSnapshotChanged(release.releaseId(), plan.output());
    } catch (LedgerTable.LedgerUnavailable e) {
      throw JobException.of(e, "LEDGER_UNAVAILABLE_AFTER_WRITE", "ledger", e.ledger, "reason", e.reason, "release",
          release.releaseId());
    }
  }

  /** Records that {@code release} wrote nothing (its write found the work done, or lost to another writer). */
  public static void withdraw(SparkSession spark, ReleasePlan plan, Release release) {
    try {
      new LedgerTable(spark, plan.ledger()).recordWithdrawn(release.releaseId(), plan.output());
    } catch (LedgerTable.LedgerUnavailable e) {
      // It stays counted: an over-count, which is safe.
    }
  }

  private static String spends(Spending.Outcome o, Double budget) {
    String added = o.keysCharged() == 0 ? "it adds nothing (it repeats an earlier release: the same key and "
        + "settings over the same rows, each with the same seed and text)"
        : String.format(Locale.ROOT, "it adds ε %s to %,d row key(s)",
        Spending.format(o.epsilon()), o.keysCharged());
    return added + String.format(Locale.ROOT, "; the largest ε per row of the source goes from %s to %s",
        Spending.format(o.maximumBefore()), Spending.format(o.maximumAfter()))
        + (budget == null ? "" : " (budget " + Spending.format(budget) + ")");
  }

  private static JobException refusal(ReleasePlan plan, Spending.Outcome o, List<Release> earlier) {
    List<String> named = new ArrayList<>();
    for (Release r : earlier) {
      if (o.releasesInvolved().contains(r.releaseId()) && named.size() < 5) {
        named.add(r.releaseId() + " (" + r.recordedAt() + ", " + r.parameters() + ", to " + r.output() + ")");
      }
    }
    int more = o.releasesInvolved().size() - named.size();
    return JobException.of("BUDGET_EXCEEDED", "keys", String.format(Locale.ROOT, "%,d", o.keysOverBudget()),
        "source", plan.source(), "reach", Spending.format(o.maximumAfter()), "budget", Spending.format(plan.budget()),
        "earlier", (named.isEmpty() ? "none (this release alone exceeds it)" : String.join("; ", named))
            + (more > 0 ? " and " + more + " more" : ""), "ledger", plan.ledger());
  }
}
