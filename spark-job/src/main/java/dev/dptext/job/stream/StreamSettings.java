package dev.dptext.job.stream;

import dev.dptext.job.base.JobException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.streaming.Trigger;

/**
 * How {@code sanitize --stream} runs: where the query keeps its progress, when it runs a micro-batch,
 * and how much input one micro-batch takes.
 *
 * @param checkpoint the query's checkpoint directory
 * @param trigger {@value #AVAILABLE_NOW} or an interval such as {@code 30s}
 * @param maxFilesPerTrigger at most this many new input files per micro-batch, or null
 * @param maxBytesPerTrigger about this much new input per micro-batch (e.g. {@code 64m}), or null
 */
public record StreamSettings(String checkpoint, String trigger, Integer maxFilesPerTrigger,
    String maxBytesPerTrigger) {
  /** The default trigger: process what is there now, in micro-batches, then stop (scheduled runs). */
  public static final String AVAILABLE_NOW = "available-now";

  private static final Pattern INTERVAL = Pattern.compile(
      "(\\d+)\\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)");

  /** The source options these settings set (Spark's names), added to the reader's. */
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

  /**
   * The Spark trigger of {@code --trigger}.
   *
   * @throws JobException (usage) for a trigger that is neither {@value #AVAILABLE_NOW} nor an interval
   */
  public Trigger sparkTrigger() {
    if (availableNow()) {
      return Trigger.AvailableNow();
    }
    Matcher m = INTERVAL.matcher(trigger.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw JobException.of("TRIGGER_UNKNOWN", "trigger", trigger);
    }
    long n = Long.parseLong(m.group(1));
    String unit = m.group(2);
    long millis = unit.equals("ms") ? n : unit.startsWith("s") ? n * 1000 : unit.startsWith("m") ? n * 60_000
        : n * 3_600_000;
    if (millis <= 0) {
      throw JobException.of("TRIGGER_NOT_POSITIVE", "trigger", trigger);
    }
    return Trigger.ProcessingTime(millis);
  }
}
