package dev.dptext.job;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.streaming.Trigger;
import picocli.CommandLine.Option;

/**
 * The options of {@code sanitize --stream}: where the query keeps its progress, when it runs a
 * micro-batch, and how much input one micro-batch takes. Checked before anything is read.
 */
final class StreamOptions {
  /** The default trigger: process what is there now, in micro-batches, then stop (scheduled runs). */
  static final String AVAILABLE_NOW = "available-now";

  private static final Pattern INTERVAL = Pattern.compile(
      "(\\d+)\\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)");

  @Option(names = "--stream",
      description = "Sanitize the input as a Structured Streaming query into a Delta table, exactly once per "
          + "micro-batch (needs --checkpoint; docs/streaming.md).")
  boolean enabled;

  @Option(names = "--checkpoint", paramLabel = "PATH",
      description = "--stream: the query's checkpoint directory (which input was read, which micro-batches "
          + "are done), one per stream, outside the input and the output. A restart with the same checkpoint "
          + "resumes where the stream stopped.")
  String checkpoint;

  @Option(names = "--trigger", paramLabel = "WHEN", defaultValue = AVAILABLE_NOW,
      description = "--stream: available-now (process the input there now, in micro-batches, then exit 0; for "
          + "scheduled runs) or an interval such as 30s or 5min (run a micro-batch that often until stopped). "
          + "Default: ${DEFAULT-VALUE}.")
  String trigger;

  @Option(names = "--max-files-per-trigger", paramLabel = "N",
      description = "--stream: at most N new input files per micro-batch (file and Delta sources).")
  Integer maxFilesPerTrigger;

  @Option(names = "--max-bytes-per-trigger", paramLabel = "SIZE",
      description = "--stream: about SIZE bytes of new input per micro-batch, e.g. 64m (file and Delta sources; a "
          + "soft limit: a larger file is still read whole).")
  String maxBytesPerTrigger;

  /**
   * Refuses stream options without {@code --stream}, and {@code --stream} without a checkpoint.
   *
   * @throws JobException (usage) naming the option and the fix
   */
  void check() {
    if (!enabled) {
      for (String[] given : new String[][] {{"--checkpoint", checkpoint}, {"--max-files-per-trigger",
          maxFilesPerTrigger == null ? null : "" + maxFilesPerTrigger}, {"--max-bytes-per-trigger", maxBytesPerTrigger},
          {"--trigger", AVAILABLE_NOW.equals(trigger) ? null : trigger}}) {
        if (given[1] != null) {
          throw new JobException(ExitCode.USAGE, given[0] + " applies to a stream: add --stream, or drop " + given[0]);
        }
      }
      return;
    }
    if (checkpoint == null || checkpoint.isBlank()) {
      throw new JobException(ExitCode.USAGE, "--stream needs --checkpoint PATH: the directory where the query "
          + "records which input it has read and which micro-batches are committed (one per stream, outside the "
          + "input and the output); a restart with the same checkpoint resumes the stream");
    }
    if (maxFilesPerTrigger != null && maxFilesPerTrigger < 1) {
      throw new JobException(ExitCode.USAGE, "--max-files-per-trigger must be ≥ 1, got " + maxFilesPerTrigger);
    }
    sparkTrigger();
  }

  /** The source options these flags set (Spark's names), added to the reader's. */
  Map<String, String> sourceOptions() {
    Map<String, String> o = new LinkedHashMap<>();
    if (maxFilesPerTrigger != null) {
      o.put("maxFilesPerTrigger", Integer.toString(maxFilesPerTrigger));
    }
    if (maxBytesPerTrigger != null) {
      o.put("maxBytesPerTrigger", maxBytesPerTrigger);
    }
    return o;
  }

  /** Whether the stream stops by itself once the input that is there now is processed. */
  boolean availableNow() {
    return trigger.strip().equalsIgnoreCase(AVAILABLE_NOW);
  }

  /** The Spark trigger of {@code --trigger}. */
  Trigger sparkTrigger() {
    if (availableNow()) {
      return Trigger.AvailableNow();
    }
    Matcher m = INTERVAL.matcher(trigger.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new JobException(ExitCode.USAGE, "Unknown --trigger '" + trigger + "'; use available-now, or an "
          + "interval such as 500ms, 30s, 5min or 1h");
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2);
    long millis = unit.equals("ms") ? n : unit.startsWith("s") ? n * 1000 : unit.startsWith("m") ? n * 60_000
        : n * 3_600_000;
    if (millis <= 0) {
      throw new JobException(ExitCode.USAGE, "--trigger interval must be positive, got '" + trigger + "'");
    }
    return Trigger.ProcessingTime(millis);
  }
}
