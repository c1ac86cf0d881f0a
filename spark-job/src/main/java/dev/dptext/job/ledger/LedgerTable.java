package dev.dptext.job.ledger;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import dev.dptext.job.write.OutputLocation;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The ledger's Delta table, at a path or by catalog name: created append-only ({@code delta.appendOnly}:
 * Delta refuses updates and deletes of its rows), written by blind appends (which concurrent runs do not
 * conflict on), read whole (a row per release event: small).
 */
public final class LedgerTable {
  private final SparkSession spark;
  private final String location;

  public LedgerTable(SparkSession spark, String location) {
    this.spark = spark;
    this.location = location;
  }

  public String location() {
    return location;
  }

  /** Whether the ledger holds anything yet. */
  public boolean exists() {
    OutputLocation.Kind kind = OutputLocation.inspect(spark, location).kind;
    if (kind == OutputLocation.Kind.ABSENT || kind == OutputLocation.Kind.EMPTY) {
      return false;
    }
    if (kind != OutputLocation.Kind.DELTA_TABLE) {
      throw JobException.of("LEDGER_NOT_DELTA", "ledger", location, "kind",
          kind.toString().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
    }
    return true;
  }

  /** Records {@code release} as intended: before anything of it is written. */
  public void recordIntended(Release release) {
    append(List.of(release.intended()));
  }

  /** Records that {@code releaseId} was committed to {@code output} at {@code version} (-1: not a Delta table). */
  public void recordCommitted(String releaseId, String output, long version) {
    append(List.of(Release.event(releaseId, Release.COMMITTED, output, version < 0 ? null : version)));
  }

  /** Records that {@code releaseId} wrote nothing and never will (refused after it was recorded). */
  public void recordWithdrawn(String releaseId, String output) {
    append(List.of(Release.event(releaseId, Release.WITHDRAWN, output, null)));
  }

  /** Records that the files {@code releaseId} read changed while it ran: its snapshot is not known exactly. */
  public void recordSnapshotChanged(String releaseId, String output) {
    append(List.of(Release.event(releaseId, Release.SNAPSHOT_CHANGED, output, null)));
  }

  /** Every release that counts (recorded as intended and not withdrawn), oldest first. */
  public List<Release> releases() {
    return read().releases();
  }

  /** The ledger's rows, read once. */
  public Contents read() {
    if (!exists()) {
      return new Contents(List.of(), Map.of());
    }
    List<Row> rows = (TableName.is(spark, location) ? spark.table(location)
        : spark.read().format("delta").load(location)).collectAsList();
    Set<String> withdrawn = new HashSet<>();
    Set<String> snapshotChanged = new HashSet<>();
    Map<String, Long> committed = new TreeMap<>();
    for (Row r : rows) {
      String event = r.getAs("event");
      if (event.equals(Release.WITHDRAWN)) {
        withdrawn.add(r.getAs("release_id"));
      } else if (event.equals(Release.SNAPSHOT_CHANGED)) {
        snapshotChanged.add(r.getAs("release_id"));
      } else if (event.equals(Release.COMMITTED)) {
        Long v = r.getAs("output_version");
        committed.put(r.getAs("release_id"), v == null ? -1L : v);
      }
    }
    List<Release> releases = new ArrayList<>();
    for (Row r : rows) {
      if (r.<String>getAs("event").equals(Release.INTENDED) && !withdrawn.contains(r.<String>getAs("release_id"))) {
        releases.add(Release.of(r, snapshotChanged.contains(r.<String>getAs("release_id"))));
      }
    }
    releases.sort(java.util.Comparator.comparing(Release::recordedAt).thenComparing(Release::releaseId));
    return new Contents(releases, committed);
  }

  /**
   * What the ledger holds.
   *
   * @param releases the releases that count, oldest first
   * @param committed the output version of each release whose write was confirmed (-1: not a Delta table)
   */
  public record Contents(List<Release> releases, Map<String, Long> committed) {}

  /**
   * The ledger {@link #ledger} could not be written ({@link #reason}: the first line of the cause's message): the
   * caller says what that means for its run, in its catalogued error.
   */
  public static final class LedgerUnavailable extends RuntimeException {
    private static final long serialVersionUID = 1L;
    public final String ledger;
    public final String reason;

    LedgerUnavailable(String ledger, Throwable cause) {
      super(ledger + ": " + JobException.firstLine(cause.getMessage()), cause);
      this.ledger = ledger;
      this.reason = JobException.firstLine(cause.getMessage());
    }
  }

  private void append(List<Row> rows) {
    // Concurrent runs append blindly and do not conflict; two that both CREATE the ledger may, once.
    for (int attempt = 1; ; attempt++) {
      boolean existed = exists();
      // mergeSchema: a ledger written before a column was added (content_fingerprint) gains it.
      DataFrameWriter<Row> w = spark.createDataFrame(rows, Release.SCHEMA).write().format("delta").mode("append")
          .option("mergeSchema", "true");
      if (!existed) {
        w = w.option("delta.appendOnly", "true");
      }
      try {
        if (TableName.is(spark, location)) {
          w.saveAsTable(location);
        } else {
          w.save(location);
        }
        return;
      } catch (RuntimeException e) {
        if (existed || attempt >= 3) {
          throw new LedgerUnavailable(location, e);
        }
      }
    }
  }
}
