import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.random.RandomStream;
import dev.dptext.text.CasePolicy;
import dev.dptext.text.OovPolicy;
import dev.dptext.text.TextSanitizer;
import dev.dptext.text.TokenCounts;
import dev.dptext.text.Tokenizer;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;

/**
 * The JVM's text layer, for python/tests/engine/test_text.py. Run as {@code java -cp <dptext jar>
 * TextOracle.java}. Stdin is a series of sections, each a line {@code @MODE [ARGUMENT]} and then one text per
 * line; stdout repeats each section's first line, then one answer per text. Texts travel as base64 of their
 * UTF-16BE code units (so lone surrogates survive both ways).
 *
 * <ul>
 *   <li>{@code @text [words.txt]}: over the default vocabulary (EmbeddedDefault; or the words of the file, one
 *       per line), per text, tab-separated: the vocabulary ranks (comma-separated), the OOV count, the OOV
 *       ranks a {@code RandomStream.fromSeed(n)} gives for the section's n-th text (outputStart 0, nextInt(|V|)
 *       per OOV token), the token surfaces (separated by spaces, which no token contains), then {@code
 *       TextSanitizer.assemble}'s output for oov random, placeholder, keep × case vocabulary, restore. The
 *       mechanism is deterministic: output = (rank * 7919 + 13) mod |V|.
 *   <li>{@code @case}: per text, {@code toLowerCase(Locale.ROOT)} and {@code toUpperCase(Locale.ROOT)}.
 *   <li>{@code @classes}: no texts; the ranges of Tokenizer's word characters, then of its whitespace.
 * </ul>
 */
public class TextOracle {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII), 1 << 16);
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16);
    String mode = null;
    Text text = null;
    String line;
    while ((line = in.readLine()) != null) {
      if (line.startsWith("@")) {
        out.write(line + "\n");
        String[] parts = line.substring(1).split(" ", 2);
        mode = parts[0];
        if (mode.equals("text")) {
          text = new Text(parts.length > 1 ? Path.of(parts[1]) : null);
        } else if (mode.equals("classes")) {
          out.write(ranges(true) + "\n" + ranges(false) + "\n");
        }
        continue;
      }
      String s = decode(line);
      switch (mode) {
        case "text" -> out.write(text.answer(s));
        case "case" -> out.write(encode(s.toLowerCase(Locale.ROOT)) + "\t" + encode(s.toUpperCase(Locale.ROOT)) + "\n");
        default -> throw new IllegalArgumentException("no section for the text: " + mode);
      }
    }
    out.flush();
  }

  /** The text layer over one vocabulary. */
  private static final class Text {
    private final int size;
    private final WordMechanism mechanism;
    private final List<TextSanitizer> sanitizers = new ArrayList<>();
    private final Tokenizer tokenizer;
    private long n;

    Text(Path vocabularyFile) throws Exception {
      String[] words = vocabularyFile == null
          ? EmbeddedDefault.embeddings().rawWords()
          : Files.readAllLines(vocabularyFile, StandardCharsets.UTF_8).toArray(new String[0]);
      Embeddings embeddings = new Embeddings(words, new float[words.length], 1);
      int size = words.length;
      this.size = size;
      this.mechanism = new WordMechanism() {
        @Override
        public int sanitize(int word, RandomStream random) {
          return (int) (((long) word * 7919 + 13) % size);
        }

        @Override
        public int outputStart() {
          return 0;
        }

        @Override
        public String name() {
          return "oracle";
        }
      };
      for (OovPolicy oov : new OovPolicy[] {OovPolicy.RANDOM, OovPolicy.PLACEHOLDER, OovPolicy.KEEP}) {
        for (CasePolicy cases : new CasePolicy[] {CasePolicy.VOCABULARY, CasePolicy.RESTORE}) {
          sanitizers.add(new TextSanitizer(embeddings, mechanism, oov, "<unk>", cases));
        }
      }
      tokenizer = new Tokenizer(embeddings::indexOf);
    }

    String answer(String text) {
      long seed = n++;
      StringBuilder row = new StringBuilder();
      TextSanitizer.Tokenized tokens = sanitizers.get(0).tokenize(text);
      int[] outputs = new int[tokens.count()];
      for (int i = 0; i < tokens.count(); i++) {
        outputs[i] = mechanism.sanitize(tokens.ranks()[i], null);
        row.append(i > 0 ? "," : "").append(tokens.ranks()[i]);
      }
      TokenCounts counts = new TokenCounts();
      sanitizers.get(0).assemble(tokens, outputs, RandomStream.fromSeed(seed), counts);
      row.append('\t').append(counts.outOfVocabulary).append('\t');
      RandomStream replay = RandomStream.fromSeed(seed);
      for (long k = 0; k < counts.outOfVocabulary; k++) {
        row.append(k > 0 ? "," : "").append(replay.nextInt(size));
      }
      List<String> surfaces = new ArrayList<>();
      tokenizer.forEachToken(text, token -> surfaces.add(token.surface()));
      row.append('\t').append(encode(String.join(" ", surfaces)));
      for (TextSanitizer sanitizer : sanitizers) {
        row.append('\t').append(encode(sanitizer.assemble(tokens, outputs, RandomStream.fromSeed(seed), null)));
      }
      return row.append('\n').toString();
    }
  }

  private static String ranges(boolean word) {
    StringBuilder b = new StringBuilder();
    int start = -1;
    for (int cp = 0; cp <= 0x110000; cp++) {
      boolean in = cp <= Character.MAX_CODE_POINT && (word ? isWordChar(cp) : Tokenizer.isSpace(cp));
      if (in && start < 0) {
        start = cp;
      } else if (!in && start >= 0) {
        b.append(b.length() > 0 ? " " : "").append(Integer.toHexString(start)).append('-').append(Integer.toHexString(cp - 1));
        start = -1;
      }
    }
    return b.toString();
  }

  /** Tokenizer.isWordChar (package-private there). */
  private static boolean isWordChar(int cp) {
    if (Character.isLetterOrDigit(cp)) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
        || type == Character.ENCLOSING_MARK;
  }

  private static String decode(String line) {
    byte[] b = Base64.getDecoder().decode(line);
    char[] c = new char[b.length / 2];
    for (int i = 0; i < c.length; i++) {
      c[i] = (char) (((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff));
    }
    return new String(c);
  }

  private static String encode(String s) {
    byte[] b = new byte[s.length() * 2];
    for (int i = 0; i < s.length(); i++) {
      b[2 * i] = (byte) (s.charAt(i) >> 8);
      b[2 * i + 1] = (byte) s.charAt(i);
    }
    return Base64.getEncoder().encodeToString(b);
  }
}
