package dev.dptext.job.write;

import dev.dptext.job.base.JobException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How a run's rows land in the output table.
 *
 * <ul>
 *   <li>{@code errorifexists}: a new table; refuses an existing output.
 *   <li>{@code overwrite}: replaces the whole table.
 *   <li>{@code append}: adds the rows; with {@code --txn-app-id/--txn-version} (Delta) a repeated run is
 *       a no-op, so a scheduler may retry freely.
 *   <li>{@code replace-where}: replaces exactly the rows matching {@code --where} (Delta
 *       {@code replaceWhere}); the input is filtered by the same predicate. For backfilling a date or a
 *       partition: a re-run gives the same content.
 *   <li>{@code merge}: upserts by {@code --merge-key} (default: the id column) with Delta MERGE; a
 *       re-run updates the same rows to the same values.
 * </ul>
 */
public enum WriteMode {
  ERROR_IF_EXISTS("errorifexists"),
  OVERWRITE("overwrite"),
  APPEND("append"),
  REPLACE_WHERE("replace-where"),
  MERGE("merge");

  public final String label;

  WriteMode(String label) {
    this.label = label;
  }

  public static WriteMode parse(String s) {
    String v = s.strip().toLowerCase(Locale.ROOT);
    for (WriteMode m : values()) {
      if (m.label.equals(v) || m.name().toLowerCase(Locale.ROOT).equals(v)) {
        return m;
      }
    }
    throw JobException.of("MODE_UNKNOWN", "value", s, "choices",
        Arrays.stream(values()).map(m -> m.label).collect(Collectors.joining(", ")));
  }

  /** Whether this mode needs a Delta output (Parquet has no replaceWhere, MERGE or transactions). */
  boolean needsDelta() {
    return this == REPLACE_WHERE || this == MERGE;
  }
}
