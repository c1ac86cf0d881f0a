package dev.dptext.job.inplace;

import dev.dptext.job.base.JobException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a run does when its output is its input ({@code --in-place}).
 *
 * <p>Sanitizing a Delta table in place with a plain overwrite leaves the raw text readable: every
 * earlier version stays readable by time travel ({@code versionAsOf}) and its files stay on disk until
 * a VACUUM past the retention period (7 days by default); the Delta log itself keeps prefixes of the
 * raw text in the file statistics of the overwrite's {@code remove} actions until the log is cleaned
 * up (30 days by default). So the default refuses.
 */
public enum InPlacePolicy {
  /** The default: an output that is the input is a usage error that names the ways out. */
  REFUSE("refuse", "(default) an output that is the input is refused"),
  /**
   * The table is replaced by a new table at the same path that holds only the sanitized rows: written
   * beside it first, then swapped in; the raw table, its history and its log are deleted. No version
   * with raw text remains. Needs {@code --mode overwrite}.
   */
  PURGE_HISTORY("purge-history", "replace the table by a new one holding only the sanitized rows, then delete "
      + "the raw table and its whole history (no version with raw text remains)"),
  /**
   * Writes into the table itself; its earlier versions keep the raw text until the user VACUUMs and
   * the log is cleaned up. Loudly flagged in the summary and the table properties.
   */
  KEEP_HISTORY("keep-history", "UNSAFE: write into the table and keep its history, so the raw text stays "
      + "readable through time travel until you VACUUM");

  final String label;
  final String doc;

  InPlacePolicy(String label, String doc) {
    this.label = label;
    this.doc = doc;
  }

  public static InPlacePolicy parse(String s) {
    String v = s.strip().toLowerCase(Locale.ROOT);
    for (InPlacePolicy p : values()) {
      if (p.label.equals(v)) {
        return p;
      }
    }
    throw JobException.of("IN_PLACE_UNKNOWN", "value", s, "choices",
        Arrays.stream(values()).map(p -> p.label).collect(Collectors.joining(", ")));
  }
}
