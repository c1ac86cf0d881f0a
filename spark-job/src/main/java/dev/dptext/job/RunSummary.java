package dev.dptext.job;

import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.spark.DpTextOptions;
import dev.dptext.spark.TokenAccumulators;
import java.util.Locale;

/** The end-of-run report: counts, privacy parameters, timing. Contains no text and no key. */
record RunSummary(DpTextOptions options, long rowsIn, long rowsOut, TokenAccumulators counters,
    double seconds, String modelHash, String frequencySource) {

  String render() {
    MechanismSpec m = options.mechanismSpec();
    long tokens = counters.tokens();
    StringBuilder s = new StringBuilder();
    s.append("dptext sanitize summary\n");
    s.append(String.format(Locale.ROOT, "  rows in / out      %,d / %,d%n", rowsIn, rowsOut));
    s.append(String.format(Locale.ROOT, "  tokens             %,d%n", tokens));
    s.append(String.format(Locale.ROOT, "  tokens changed     %,d (%.1f%%)%n", counters.changed(), pct(counters.changed(), tokens)));
    s.append(String.format(Locale.ROOT, "  out of vocabulary  %,d (%.1f%%)%n", counters.outOfVocabulary(), pct(counters.outOfVocabulary(), tokens)));
    s.append(String.format(Locale.ROOT, "  mechanism          %s%n", m.describe()));
    s.append(String.format(Locale.ROOT, "  model              %s (sha256 %s)%n", options.modelSource(), modelHash));
    if (m.name().equals(MechanismSpec.SANTEXT_PLUS)) {
      s.append(String.format(Locale.ROOT, "  word frequencies   %s%n", frequencySource));
    }
    s.append(String.format(Locale.ROOT, "  randomness         id mode %s%n", options.idMode().name().toLowerCase(Locale.ROOT)));
    s.append(String.format(Locale.ROOT, "  elapsed            %.1f s%n", seconds));
    s.append(String.format(Locale.ROOT, "  throughput         %,.0f tokens/s, %,.0f rows/s", tokens / seconds, rowsIn / seconds));
    return s.toString();
  }

  private static double pct(long a, long b) {
    return b == 0 ? 0 : 100.0 * a / b;
  }
}
