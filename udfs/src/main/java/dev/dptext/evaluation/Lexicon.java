package dev.dptext.evaluation;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.embedding.Embeddings;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A word-level label lexicon ({@code word,label} CSV with a header) for the utility loss L_M. The
 * default, {@link #DEFAULT}, is word polarity derived from the IMDb reviews' labels (see
 * {@code data/lexicon/README.md}).
 */
public final class Lexicon {
  /** The bundled default lexicon (a resource of this jar). */
  public static final String DEFAULT = "imdb-polarity.csv";

  private final Map<String, Integer> labels;

  private Lexicon(Map<String, Integer> labels) {
    this.labels = labels;
  }

  /** The bundled IMDb polarity lexicon. */
  public static Lexicon bundled() {
    try (InputStream in = Lexicon.class.getResourceAsStream(DEFAULT)) {
      return read(in, "the bundled " + DEFAULT);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the bundled lexicon", e);
    }
  }

  /** Reads {@code word,label} lines (the first line is a header); labels are integers ≥ 0. */
  public static Lexicon read(InputStream in, String source) throws IOException {
    Map<String, Integer> labels = new LinkedHashMap<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String line = r.readLine();
      int number = 1;
      while ((line = r.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.split(",");
        try {
          int label = Integer.parseInt(parts[1].strip());
          if (parts.length != 2 || label < 0) {
            throw new NumberFormatException();
          }
          labels.put(parts[0].strip().toLowerCase(Locale.ROOT), label);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
          throw DpTextErrors.error("LEXICON_MALFORMED", "line", number, "path", source);
        }
      }
    }
    return new Lexicon(labels);
  }

  public int size() {
    return labels.size();
  }

  /** Each vocabulary rank's label, −1 for words outside the lexicon. */
  public int[] labels(Embeddings vocabulary) {
    int[] out = new int[vocabulary.size()];
    Arrays.fill(out, -1);
    labels.forEach((word, label) -> {
      int rank = vocabulary.indexOf(word);
      if (rank >= 0) {
        out[rank] = label;
      }
    });
    return out;
  }
}
