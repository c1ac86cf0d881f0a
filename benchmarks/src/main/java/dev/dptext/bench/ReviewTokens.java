package dev.dptext.bench;

import dev.dptext.embedding.Embeddings;
import dev.dptext.text.Tokenizer;
import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The cached IMDb reviews (scripts/data/fetch-data.sh's JSON lines), as texts or as in-vocabulary token ranks. */
final class ReviewTokens {
  private ReviewTokens() {}

  /**
   * The texts of the first {@code max} reviews, as they stand in the JSON line (escapes not decoded:
   * a benchmark needs realistic tokens, not the exact review).
   */
  static List<String> texts(Path reviews, int max) throws Exception {
    List<String> out = new ArrayList<>();
    try (BufferedReader r = Files.newBufferedReader(reviews, StandardCharsets.UTF_8)) {
      String line;
      while (out.size() < max && (line = r.readLine()) != null) {
        int a = line.indexOf("\"review\":\"") + 10;
        int b = line.lastIndexOf("\",\"sentiment\"");
        out.add(line.substring(a, Math.max(a, b)));
      }
    }
    return out;
  }

  /** The first {@code max} reviews, one array of vocabulary ranks each (at most 4,096 per review). */
  static List<int[]> perReview(Embeddings emb, Path reviews, int max) throws Exception {
    Tokenizer tk = new Tokenizer(emb::indexOf);
    List<int[]> out = new ArrayList<>();
    for (String text : texts(reviews, max)) {
      int[] ranks = new int[4096];
      int[] n = {0};
      tk.forEachToken(text, t -> {
        if (t.rank() >= 0 && n[0] < ranks.length) {
          ranks[n[0]++] = t.rank();
        }
      });
      out.add(Arrays.copyOf(ranks, n[0]));
    }
    return out;
  }
}
