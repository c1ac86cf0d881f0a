package dev.dptext.runtime;

import dev.dptext.text.TokenCounts;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The body of {@code dp_sanitize_counted}: {@code (text, id) -> struct(text, tokens, changed, oov, ...)}, the
 * sanitized text of {@link SanitizeFunction} (same sanitizer, same draws) with that row's token counts.
 *
 * <p>Why: a Spark Connect client has no accumulators, so the counts a classic run sums in
 * {@code TokenAccumulators} travel with the rows instead, and the client sums them with
 * {@code Dataset.observe} as the write runs. Counts only, never text.
 */
public final class CountingSanitizeFunction implements UDF2<String, Object, Row> {
  private static final long serialVersionUID = 1L;

  /** The struct's fields: the text, then the counts {@link TokenCounts} holds. */
  public static final StructType TYPE = new StructType()
      .add("text", DataTypes.StringType, true)
      .add("tokens", DataTypes.LongType, false)
      .add("changed", DataTypes.LongType, false)
      .add("outOfVocabulary", DataTypes.LongType, false)
      .add("searchQueries", DataTypes.LongType, false)
      .add("searchWanted", DataTypes.LongType, false)
      .add("searchFound", DataTypes.LongType, false);

  private final SanitizerSource sanitizer;

  public CountingSanitizeFunction(SanitizerSource sanitizer) {
    this.sanitizer = sanitizer;
  }

  @Override
  public Row call(String text, Object id) {
    if (text == null) {
      return RowFactory.create(null, 0L, 0L, 0L, 0L, 0L, 0L);
    }
    TokenCounts c = new TokenCounts();
    String out = sanitizer.get().sanitize(text, id, c);
    return RowFactory.create(out, c.tokens, c.changed, c.outOfVocabulary, c.search.queries, c.search.wanted,
        c.search.found);
  }

  @Override
  public String toString() {
    return "dptext.CountingSanitizeFunction";
  }
}
