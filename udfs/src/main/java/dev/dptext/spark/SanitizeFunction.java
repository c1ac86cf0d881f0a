package dev.dptext.spark;

import dev.dptext.text.TokenCounts;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.api.java.UDF2;

/**
 * The UDF body: {@code (text, id) -> sanitized text}, reading the broadcast {@link Sanitizer}. It
 * holds only the broadcast handle, so task closures stay small and the key never appears in a plan.
 */
final class SanitizeFunction implements UDF2<String, Object, String> {
  private static final long serialVersionUID = 1L;

  private final Broadcast<JavaSerialized<Sanitizer>> sanitizer;
  private final TokenAccumulators counters;

  SanitizeFunction(Broadcast<JavaSerialized<Sanitizer>> sanitizer, TokenAccumulators counters) {
    this.sanitizer = sanitizer;
    this.counters = counters;
  }

  @Override
  public String call(String text, Object id) {
    if (text == null) {
      return null;
    }
    TokenCounts counts = counters == null ? null : new TokenCounts();
    String out = sanitizer.value().get().sanitize(text, id, counts);
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
