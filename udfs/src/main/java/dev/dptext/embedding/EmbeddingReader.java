package dev.dptext.embedding;

import dev.dptext.errors.DpTextException;
import dev.dptext.errors.DpTextErrors;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * Reads word embeddings from text: GloVe ({@code word v1 … vm} per line) or word2vec / fastText
 * {@code .vec} (the same, after a header line {@code count dim}). A {@code .gz} file is decompressed.
 *
 * <p>The words must come most frequent first, as they do in GloVe, word2vec and fastText files: the
 * line order becomes the public frequency rank. Every defect is the catalogued EMBEDDING_FILE_MALFORMED
 * naming the file and line: a malformed number, a line with the wrong number of values, a duplicate
 * word, NaN or infinity, a header that disagrees with the body, bytes that are not UTF-8.
 */
public final class EmbeddingReader {
  private final int maxWords;

  private EmbeddingReader(int maxWords) {
    this.maxWords = maxWords;
  }

  /** A reader of every word in the file. */
  public static EmbeddingReader all() {
    return new EmbeddingReader(Integer.MAX_VALUE);
  }

  /** A reader of the {@code maxWords} most frequent words (the first lines) only. */
  public static EmbeddingReader top(int maxWords) {
    if (maxWords <= 0) { // callers pass a checked vocabSize > 0 (0 means all: EmbeddingReader.all())
      throw new IllegalStateException("maxWords must be positive, got " + maxWords);
    }
    return new EmbeddingReader(maxWords);
  }

  /** Reads a file; {@code .gz} files are decompressed. */
  public Embeddings read(Path file) {
    try (InputStream raw = Files.newInputStream(file)) {
      InputStream in = file.getFileName().toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
      return read(in, file.toString());
    } catch (NoSuchFileException e) {
      throw DpTextErrors.error("EMBEDDING_FILE_NOT_FOUND", "path", file);
    } catch (IOException e) {
      throw DpTextErrors.error(e, "EMBEDDING_FILE_UNREADABLE", "path", file, "reason",
          e.getClass().getSimpleName() + " " + e.getMessage());
    }
  }

  /** Reads from a stream; {@code name} is used in error messages. The caller closes the stream. */
  public Embeddings read(InputStream in, String name) throws IOException {
    BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(
                in,
                StandardCharsets.UTF_8
                    .newDecoder()
                    // Replace, then report per line: REPORT would fail while the reader fills its
                    // buffer, before the lines in front of the bad byte are counted.
                    .onMalformedInput(CodingErrorAction.REPLACE)
                    .onUnmappableCharacter(CodingErrorAction.REPLACE)),
            1 << 16);
    List<String> words = new ArrayList<>();
    Map<String, Integer> firstLine = new HashMap<>();
    FloatBuffer values = new FloatBuffer();
    int dim = -1;
    long declaredCount = -1;
    int lineNo = 0;
    String line;
    {
      while (words.size() < maxWords && (line = reader.readLine()) != null) {
        lineNo++;
        if (line.indexOf('\uFFFD') >= 0) {
          throw error(name, lineNo, "the file is not valid UTF-8 (or contains U+FFFD)");
        }
        if (line.isBlank()) {
          continue;
        }
        String[] parts = line.strip().split(" ");
        if (lineNo == 1 && isHeader(parts)) {
          declaredCount = Long.parseLong(parts[0]);
          dim = Integer.parseInt(parts[1]);
          if (dim <= 0) {
            throw error(name, lineNo, "the .vec header declares dimension " + dim);
          }
          continue;
        }
        if (dim < 0) {
          dim = parts.length - 1;
          if (dim <= 0) {
            throw error(name, lineNo, "a word without values; expected 'word v1 ... vm'");
          }
        }
        float[] parsed = values(parts, dim, name, lineNo);
        String word = parts[0];
        Integer previous = firstLine.putIfAbsent(word, lineNo);
        if (previous != null) {
          throw error(name, lineNo, "duplicate word '" + word + "', first defined at line " + previous);
        }
        for (float v : parsed) {
          values.add(v);
        }
        words.add(word);
      }
    }
    if (words.isEmpty()) {
      throw DpTextErrors.error("EMBEDDING_FILE_EMPTY", "path", name);
    }
    if (declaredCount >= 0 && maxWords == Integer.MAX_VALUE && declaredCount != words.size()) {
      throw error(name, 1, "the .vec header declares " + declaredCount + " words but the file has "
          + words.size());
    }
    return new Embeddings(words.toArray(new String[0]), values.toArray(), dim);
  }

  /** Whether a first line, split on spaces, is a .vec header {@code count dim}. */
  public static boolean isHeader(String[] parts) {
    return parts.length == 2 && isInteger(parts[0]) && isInteger(parts[1]);
  }

  /**
   * The values of one line {@code word v1 … vm} split on spaces, checked (count, number, finite); the
   * distributed reader of the partitioned build parses lines with this too.
   */
  public static float[] values(String[] parts, int dim, String name, long lineNo) {
    if (parts.length - 1 != dim) {
      throw error(name, lineNo, "expected " + dim + " values after the word, found " + (parts.length - 1)
          + " (a truncated line, or a word containing a space?)");
    }
    float[] out = new float[dim];
    for (int k = 1; k <= dim; k++) {
      float v;
      try {
        v = Float.parseFloat(parts[k]);
      } catch (NumberFormatException e) {
        throw error(name, lineNo, "value " + k + " ('" + abbreviate(parts[k]) + "') is not a number");
      }
      if (!Float.isFinite(v)) {
        throw error(name, lineNo, "value " + k + " is " + v + "; embeddings must be finite");
      }
      out[k - 1] = v;
    }
    return out;
  }

  private static boolean isInteger(String s) {
    if (s.isEmpty() || s.length() > 18) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (!Character.isDigit(s.charAt(i))) {
        return false;
      }
    }
    return true;
  }

  private static String abbreviate(String s) {
    return s.length() <= 20 ? s : s.substring(0, 20) + "…";
  }

  /** EMBEDDING_FILE_MALFORMED: {@code problem} is dptext's words, quoting at most a word of the vocabulary. */
  private static DpTextException error(String name, long line, String problem) {
    return DpTextErrors.error("EMBEDDING_FILE_MALFORMED", "path", name, "line", line, "problem", problem);
  }

  /** A growable float array, to avoid boxing millions of values. */
  private static final class FloatBuffer {
    private float[] data = new float[1 << 16];
    private int size;

    void add(float v) {
      if (size == data.length) {
        data = java.util.Arrays.copyOf(data, data.length * 2);
      }
      data[size++] = v;
    }

    float[] toArray() {
      return java.util.Arrays.copyOf(data, size);
    }
  }
}
