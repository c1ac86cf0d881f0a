package dev.dptext.classic;

import dev.dptext.embedding.Embeddings;
import dev.dptext.model.DpTextModel;
import dev.dptext.text.Tokenizer;
import java.util.Arrays;
import java.util.Collections;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/**
 * OPT-IN, OUTSIDE THE GUARANTEE: ranks the vocabulary by how often each word occurs in the private
 * text itself, for SanText+'s sensitive set. The SanText paper counts the private corpus; dptext's
 * default is the public rank of the embedding file, because a sensitive set chosen from private data
 * is itself a function of that data that no DP bound accounts for (a word's membership in V_S reveals
 * whether it is rare in the corpus). Use only when that leak is acceptable, and say so.
 *
 * <p>Classic Spark only: the vocabulary reaches the counting tasks as a broadcast.
 */
public final class CorpusFrequencies {
  /** The label recorded in the model's metadata and the run summary. */
  public static final String LABEL = "private-corpus (NOT covered by the DP guarantee)";

  private CorpusFrequencies() {}

  /** Word counts of the in-vocabulary tokens of {@code column}, indexed by rank. */
  public static long[] count(Dataset<Row> df, String column, Embeddings embeddings) {
    Classic.requireClassic(df.sparkSession(), "--frequency-source private-corpus",
        "Use the default public word ranks (--frequency-source embeddings), or run on classic compute");
    Broadcast<JavaSerialized<Embeddings>> b =
        BroadcastValue.raw(df.sparkSession().sparkContext(), embeddings);
    int n = embeddings.size();
    MapPartitionsFunction<String, long[]> countPartition = texts -> {
      Tokenizer tk = new Tokenizer(b.value().get()::indexOf);
      long[] counts = new long[n];
      while (texts.hasNext()) {
        String t = texts.next();
        if (t == null) {
          continue;
        }
        tk.forEachToken(t, token -> {
          if (token.rank() >= 0) {
            counts[token.rank()]++;
          }
        });
      }
      return Collections.singletonList(counts).iterator();
    };
    long[] total = df.select(column).as(Encoders.STRING())
        .mapPartitions(countPartition, Encoders.javaSerialization(long[].class))
        .reduce((org.apache.spark.api.java.function.ReduceFunction<long[]>) (x, y) -> {
          long[] s = x.clone();
          for (int i = 0; i < s.length; i++) {
            s[i] += y[i];
          }
          return s;
        });
    b.destroy();
    return total;
  }

  /** The model re-ranked by descending corpus count, ties by public rank. */
  public static DpTextModel rerank(DpTextModel model, long[] counts) {
    Integer[] order = new Integer[counts.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, c) -> counts[a] != counts[c] ? Long.compare(counts[c], counts[a]) : Integer.compare(a, c));
    return model.reranked(Arrays.stream(order).mapToInt(Integer::intValue).toArray(), LABEL);
  }
}
