package dev.dptext.job.run;

import dev.dptext.job.base.JobOutcome;
import dev.dptext.job.base.Version;
import dev.dptext.job.write.TableWriter;
import dev.dptext.knn.HnswNearestWords;
import dev.dptext.knn.NearestSearch;
import dev.dptext.knn.SearchTally;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import dev.dptext.sanitizer.TokenTotals;
import java.util.Locale;

/**
 * The end-of-run report: counts, privacy parameters, timing. Contains no text and no key.
 *
 * <p>{@code counters} is null when tokens were not counted (on a Spark Connect session, a MERGE, which
 * reads its source twice, or a write whose observed counts did not come back); the report then says so
 * instead of giving token figures. Rows in and out are always exact.
 *
 * <p>{@code seconds} is the whole run; {@code workSeconds} the part that reads, sanitizes and writes the
 * rows (for a stream: the query's run). The rate is taken over the latter only, and not at all when it
 * is too short to mean anything: a run's fixed cost (JVM, Spark session, model, input count) would
 * otherwise make a small input look slow ("9 tokens/s" for the demo's nine tickets).
 */
public record RunSummary(DpTextOptions options, long rowsIn, long rowsOut, long rowsRejected, TokenTotals counters,
    double seconds, double workSeconds, String modelHash, String frequencySource, TableWriter.Target target,
    long tableVersion, String inPlace, String modelLayout) {

  /** The token lines when tokens were not counted. */
  static final String NOT_COUNTED = "not counted (Spark Connect: counted with the write's observed metrics, which "
      + "a MERGE does not give exactly)";

  /** Below this much sanitizing time a rate is mostly scheduling noise: none is reported. */
  static final double MIN_RATE_SECONDS = 2.0;

  /** The job's version, recorded with every output so an auditor can tell what produced it. */
  public static final String VERSION = Version.VALUE;

  /**
   * What produced a table: mechanism, parameters, the guarantee, the model and the job version.
   * Written as the Delta commit's userMetadata and as table properties (never the key).
   */
  public static java.util.Map<String, String> audit(DpTextOptions options, String guarantee, String modelHash,
      String frequencySource, String modelLayout) {
    MechanismSpec m = options.mechanismSpec();
    java.util.Map<String, String> a = new java.util.LinkedHashMap<>();
    a.put("dptext.version", VERSION);
    a.put("dptext.mechanism", m.name());
    a.put("dptext.epsilon", Double.toString(m.epsilon()));
    a.put("dptext.parameters", m.describe());
    a.put("dptext.guarantee", guarantee);
    a.put("dptext.model", options.get(Settings.MODEL));
    a.put("dptext.modelSha256", modelHash);
    a.put("dptext.modelLayout", modelLayout);
    a.put("dptext.wordFrequencies", frequencySource);
    a.put("dptext.idMode", options.get(Settings.ID_MODE));
    a.put("dptext.nearestSearch", options.get(Settings.NEAREST_SEARCH));
    return a;
  }

  /**
   * The machine-readable summary: how the run ended ({@link JobOutcome#toMap}), counts, timings, throughput,
   * mechanism, ε, model hash.
   */
  public java.util.Map<String, Object> toMap(String output, JobOutcome outcome) {
    MechanismSpec m = options.mechanismSpec();
    java.util.Map<String, Object> j = new java.util.LinkedHashMap<>();
    j.put("dptextVersion", VERSION);
    j.put("output", output);
    j.putAll(outcome.toMap());
    j.put("rowsIn", rowsIn);
    j.put("rowsOut", rowsOut);
    j.put("rowsRejected", rowsRejected);
    j.put("writeMode", target.mode().label);
    if (target.where() != null) {
      j.put("where", target.where());
    }
    if (tableVersion >= 0) {
      j.put("tableVersion", tableVersion);
    }
    if (inPlace != null) {
      j.put("inPlace", inPlace);
    }
    if (target.txnAppId() != null) {
      j.put("txnAppId", target.txnAppId());
      j.put("txnVersion", target.txnVersion());
    }
    if (counters == null) {
      j.put("tokensCounted", false);
    } else {
      j.put("tokens", counters.tokens());
      j.put("tokensChanged", counters.changed());
      j.put("tokensOutOfVocabulary", counters.outOfVocabulary());
    }
    j.put("mechanism", m.name());
    j.put("epsilon", m.epsilon());
    j.put("parameters", m.describe());
    j.put("modelSha256", modelHash);
    if (modelLayout != null) {
      j.put("modelLayout", modelLayout);
    }
    j.put("nearestSearch", options.get(Settings.NEAREST_SEARCH));
    if (approximate() && counters != null) {
      SearchTally t = counters.search();
      j.put("nearestSearchIndex", HnswNearestWords.describeDefaults());
      j.put("searchRecallQueries", t.queries);
      if (t.queries > 0) {
        j.put("searchRecall", t.recall());
      }
    }
    j.put("elapsedSeconds", seconds);
    j.put("workSeconds", workSeconds);
    if (workSeconds >= MIN_RATE_SECONDS) {
      if (counters != null) {
        j.put("tokensPerSecond", counters.tokens() / workSeconds);
      }
      j.put("rowsPerSecond", rowsIn / workSeconds);
    }
    return j;
  }

  /** The one failure raised after the run's summary, which then holds it: rows out + rejected ≠ rows in. */
  public static final String REPORTED_FAILURE = "ROWS_OUT_DIFFER";

  /**
   * The summary of a run that failed before it had counts to report: how it ended, for a scheduler that reads
   * {@code --summary-json} rather than the exit code ({@link JobOutcome#toMap}).
   */
  public static java.util.Map<String, Object> failed(String output, JobOutcome outcome) {
    java.util.Map<String, Object> j = new java.util.LinkedHashMap<>();
    j.put("dptextVersion", VERSION);
    j.put("output", output);
    j.putAll(outcome.toMap());
    return j;
  }

  /**
   * The system property through which the launcher ({@code scripts/dptext}) learns that a run sanitized:
   * it saves its class-data archive only from such a run (one that printed help, or found nothing to
   * do, loaded few of the classes).
   */
  public static final String SANITIZED_MARKER = "dptext.sanitizedMarker";

  /** Tells the launcher that this run sanitized ({@link #SANITIZED_MARKER}); never fails the run. */
  public static void markSanitized() {
    String marker = System.getProperty(SANITIZED_MARKER);
    if (marker != null) {
      try {
        java.nio.file.Files.writeString(java.nio.file.Path.of(marker), "sanitized\n");
      } catch (java.io.IOException | RuntimeException e) {
        // Only the launcher's archive depends on it.
      }
    }
  }

  public String render() {
    MechanismSpec m = options.mechanismSpec();
    long tokens = counters != null ? counters.tokens() : 0;
    StringBuilder s = new StringBuilder();
    s.append("dptext sanitize summary\n");
    s.append(String.format(Locale.ROOT, "  rows in / out      %,d / %,d%n", rowsIn, rowsOut));
    if (rowsRejected > 0) {
      s.append(String.format(Locale.ROOT, "  rows rejected      %,d (raw, in the rejects table)%n", rowsRejected));
    }
    s.append(String.format(Locale.ROOT, "  output             %s (%s)%n", target.path(), target.format()));
    s.append(String.format(Locale.ROOT, "  write              %s%s%s%n", target.mode().label,
        target.where() != null ? " where " + target.where() : "",
        tableVersion >= 0 ? ", table version " + tableVersion : ""));
    if (inPlace != null) {
      s.append(String.format(Locale.ROOT, "  in place           %s%n", inPlace));
    }
    if (counters != null) {
      s.append(String.format(Locale.ROOT, "  tokens             %,d%n", tokens));
      s.append(String.format(Locale.ROOT, "  tokens changed     %,d (%.1f%%)%n", counters.changed(), pct(counters.changed(), tokens)));
      s.append(String.format(Locale.ROOT, "  out of vocabulary  %,d (%.1f%%)%n", counters.outOfVocabulary(), pct(counters.outOfVocabulary(), tokens)));
    } else {
      s.append(String.format(Locale.ROOT, "  tokens             %s%n", NOT_COUNTED));
    }
    s.append(String.format(Locale.ROOT, "  mechanism          %s%n", m.describe()));
    s.append(String.format(Locale.ROOT, "  model              %s (sha256 %s)%n", options.get(Settings.MODEL), modelHash));
    if (modelLayout != null) {
      s.append(String.format(Locale.ROOT, "  model layout       %s%n", modelLayout));
    }
    if (approximate()) {
      s.append(String.format(Locale.ROOT, "  nearest words      %s, %s%n", options.get(Settings.NEAREST_SEARCH),
          HnswNearestWords.describeDefaults()));
      s.append(String.format(Locale.ROOT, "  search recall      %s%n", counters != null ? recall(counters.search())
          : "not measured"));
    }
    if (m.definition().usesFrequencyRanks()) {
      s.append(String.format(Locale.ROOT, "  word frequencies   %s%n", frequencySource));
    }
    s.append(String.format(Locale.ROOT, "  randomness         id mode %s%n", options.get(Settings.ID_MODE)));
    s.append(String.format(Locale.ROOT, "  elapsed            %.1f s (set-up %.1f s: session, model, input checks; "
        + "read, sanitize and write %.1f s)%n", seconds, seconds - workSeconds, workSeconds));
    s.append(workSeconds >= MIN_RATE_SECONDS && counters == null
        ? String.format(Locale.ROOT, "  throughput         %,.0f rows/s (read, sanitize and write)", rowsIn / workSeconds)
        : workSeconds >= MIN_RATE_SECONDS
        ? String.format(Locale.ROOT, "  throughput         %,.0f tokens/s, %,.0f rows/s (read, sanitize and write)",
            tokens / workSeconds, rowsIn / workSeconds)
        : String.format(Locale.ROOT, "  throughput         not reported: %.1f s of sanitizing is too little work for a "
            + "rate (under %.0f s)", workSeconds, MIN_RATE_SECONDS));
    return s.toString();
  }

  /** Whether the run searched nearest words approximately (the recall is then reported). */
  private boolean approximate() {
    return options.nearestSearch() != NearestSearch.EXACT;
  }

  /** The recall line: recall@k against exact search on the run's sampled queries (counts only). */
  static String recall(SearchTally t) {
    if (t.queries == 0) {
      return "not measured: no query fell in the sample (1 in " + HnswNearestWords.CHECK_ONE_IN
          + " noisy vectors is also searched exactly)";
    }
    long k = t.wanted / t.queries;
    return String.format(Locale.ROOT, "%.2f%% (recall@%d against exact search, on %,d of the run's noisy vectors: "
        + "1 in %d, chosen by a hash of the vector)", 100.0 * t.recall(), k, t.queries, HnswNearestWords.CHECK_ONE_IN);
  }

  private static double pct(long a, long b) {
    return b == 0 ? 0 : 100.0 * a / b;
  }
}
