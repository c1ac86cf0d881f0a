package dev.dptext.runtime;

import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.sanitizer.TokenSink;
import dev.dptext.text.TokenCounts;
import org.apache.spark.sql.api.java.UDF2;

/**
 * The UDF body: {@code (text, id) -> sanitized text}, reading the {@link Sanitizer} of its
 * {@link SanitizerSource} (a broadcast handle or a per-executor recipe); its text in a plan is its
 * name only, so the key never appears in a plan.
 */
public final class SanitizeFunction implements UDF2<String, Object, String> {
  private static final long serialVersionUID = 1L;

  private final SanitizerSource sanitizer;
  private final TokenSink counters;

  public SanitizeFunction(SanitizerSource sanitizer, TokenSink counters) {
    this.sanitizer = sanitizer;
    this.counters = counters;
  }

  @Override
  public String call(String text, Object id) {
    if (text == null) {
      return null;
    }
    TokenCounts counts = counters == null ? null : new TokenCounts();
    String out = sanitizer.get().sanitize(text, id, counts);
    if (counters != null) {
      counters.add(counts);
    }
    return out;
  }

  @Override
  public String toString() {
    return "dptext.SanitizeFunction";
  }

}
