package dev.dptext.model;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.zip.GZIPInputStream;

/**
 * The embedding subset shipped inside the jar, so dptext runs with no download: the 25,000 most
 * frequent words of GloVe 6B 100-d (Pennington et al. 2014; PDDL 1.0), values rounded to 3 decimals.
 * See {@code dev/dptext/embeddings/README.md} next to the file for its provenance and the script that
 * produced it. Real deployments should point at a larger embedding file or a built model.
 */
public final class EmbeddedDefault {
  /** The name users give to select it ({@code --model default}). */
  public static final String NAME = "default";

  static final String RESOURCE = "/dev/dptext/embeddings/glove-6B-100d-top25k.txt.gz";

  /** The source name models built from it record. */
  public static final String SOURCE = "embedded:" + RESOURCE;

  private EmbeddedDefault() {}

  /** Reads the embedded embeddings (about a second). */
  public static Embeddings embeddings() {
    try (InputStream raw = open()) {
      return read(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The embedded file's bytes (gzipped GloVe text), e.g. to hash them. */
  public static InputStream open() {
    InputStream raw = EmbeddedDefault.class.getResourceAsStream(RESOURCE);
    if (raw == null) {
      throw new IllegalStateException(
          "The embedded default embeddings " + RESOURCE + " are missing from the classpath; "
              + "is the dptext jar complete?");
    }
    return raw;
  }

  /** Parses the embedded file's bytes, as {@link #open()} gives them. */
  public static Embeddings read(InputStream raw) throws IOException {
    return EmbeddingReader.all().read(new GZIPInputStream(raw, 1 << 16), SOURCE);
  }

  /** A model over the embedded embeddings, neighbour tables computed on first use. */
  public static DpTextModel model() {
    return DpTextModel.of(embeddings(), SOURCE, DpTextModel.DEFAULT_NEIGHBOURS);
  }
}
