package dev.dptext.testing;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * Shared test fixtures, loaded once per test JVM (surefire reuses one fork per module).
 *
 * <p>{@link #gloveTop2000()}: the 2,000 most frequent words of the embedded default embeddings
 * (GloVe 6B 100-d, 3 decimals), from {@code src/test/resources/fixtures/glove-top2000.txt.gz}; see the
 * README next to it for how it is made.
 */
public final class Fixtures {
  public static final String GLOVE_TOP2000 = "/fixtures/glove-top2000.txt.gz";

  private static Embeddings glove;
  private static final Map<String, NeighbourTable> TABLES = new HashMap<>();

  private Fixtures() {}

  /** The 2,000-word GloVe fixture, most frequent word first. */
  public static synchronized Embeddings gloveTop2000() {
    if (glove == null) {
      try (InputStream raw = Fixtures.class.getResourceAsStream(GLOVE_TOP2000)) {
        if (raw == null) {
          throw new IllegalStateException("test resource " + GLOVE_TOP2000 + " is missing");
        }
        glove = EmbeddingReader.all().read(new GZIPInputStream(raw), GLOVE_TOP2000);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return glove;
  }

  /** {@link NeighbourSearch#compute} on the fixture, memoised per (targetStart, k). */
  public static synchronized NeighbourTable gloveNeighbours(int targetStart, int k) {
    return TABLES.computeIfAbsent(
        targetStart + "/" + k, key -> NeighbourSearch.compute(gloveTop2000(), targetStart, k));
  }
}
