package dev.dptext.job.command;

import dev.dptext.job.base.JobException;
import dev.dptext.job.stream.StreamSettings;
import picocli.CommandLine.Option;

/**
 * The options of {@code sanitize --stream}: where the query keeps its progress, when it runs a
 * micro-batch, and how much input one micro-batch takes ({@link StreamSettings}). Checked before
 * anything is read.
 */
final class StreamOptions {
  @Option(names = "--stream",
      description = "Sanitize the input as a Structured Streaming query into a Delta table, exactly once per "
          + "micro-batch (needs --checkpoint; docs/streaming.md).")
  boolean enabled;

  @Option(names = "--checkpoint", paramLabel = "PATH",
      description = "--stream: the query's checkpoint directory (which input was read, which micro-batches "
          + "are done), one per stream, outside the input and the output. A restart with the same checkpoint "
          + "resumes where the stream stopped.")
  String checkpoint;

  @Option(names = "--trigger", paramLabel = "WHEN", defaultValue = StreamSettings.AVAILABLE_NOW,
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
          {"--trigger", StreamSettings.AVAILABLE_NOW.equals(trigger) ? null : trigger}}) {
        if (given[1] != null) {
          throw JobException.of("STREAM_OPTION_WITHOUT_STREAM", "option", given[0]);
        }
      }
      return;
    }
    if (checkpoint == null || checkpoint.isBlank()) {
      throw JobException.of("STREAM_CHECKPOINT_MISSING");
    }
    if (maxFilesPerTrigger != null && maxFilesPerTrigger < 1) {
      throw JobException.of("STREAM_MAX_FILES", "value", maxFilesPerTrigger);
    }
    settings().sparkTrigger();
  }

  /** The settings of these options, for the stream ({@link dev.dptext.job.stream.SanitizeStream}). */
  StreamSettings settings() {
    return new StreamSettings(checkpoint, trigger, maxFilesPerTrigger, maxBytesPerTrigger);
  }
}
