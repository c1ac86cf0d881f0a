package dev.dptext.text;

import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.Vocabulary;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.random.RandomStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Locale;

/**
 * Rewrites a text token by token with a {@link WordMechanism}, keeping its whitespace layout.
 *
 * <p>Per text: split into whitespace and non-whitespace runs; tokenize each run with
 * {@link Tokenizer}; replace every vocabulary token by the mechanism's draw (spelled as in the
 * vocabulary unless {@link CasePolicy#RESTORE}) and every out-of-vocabulary token according to the
 * {@link OovPolicy}; copy whitespace verbatim. Tokens of one run stay adjacent in the output, except
 * that a space separates two outputs that would otherwise fuse into one word (a punctuation token
 * replaced by a word, e.g. {@code "late."} → {@code "late stadium"}).
 *
 * <p>Privacy: each vocabulary token gets the mechanism's guarantee; the count of tokens, their
 * grouping into runs and the whitespace are public. With the defaults nothing from the input is
 * emitted verbatim except whitespace.
 */
public final class TextSanitizer implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Vocabulary embeddings;
  private final WordMechanism mechanism;
  private final OovPolicy oovPolicy;
  private final String placeholder;
  private final CasePolicy casePolicy;
  private transient Tokenizer tokenizer;

  public TextSanitizer(
      Embeddings embeddings, WordMechanism mechanism, OovPolicy oovPolicy, String placeholder,
      CasePolicy casePolicy) {
    this((Vocabulary) embeddings, mechanism, oovPolicy, placeholder, casePolicy);
  }

  /**
   * A sanitizer over a vocabulary without vectors, for the partitioned path: it tokenizes and
   * assembles ({@link #tokenize}, {@link #assemble}); the mechanism's draws happen elsewhere, with the
   * same row stream. {@link #sanitize} works only if the mechanism carries its own vectors.
   */
  public TextSanitizer(
      Vocabulary embeddings, WordMechanism mechanism, OovPolicy oovPolicy, String placeholder,
      CasePolicy casePolicy) {
    if (placeholder == null || placeholder.isEmpty() || placeholder.chars().anyMatch(Character::isWhitespace)) {
      throw DpTextErrors.error("OOV_PLACEHOLDER_INVALID", "example", "<unk>");
    }
    this.embeddings = embeddings;
    this.mechanism = mechanism;
    this.oovPolicy = oovPolicy;
    this.placeholder = placeholder;
    this.casePolicy = casePolicy;
  }

  /** The defaults: OOV tokens replaced at random, vocabulary spelling. */
  public TextSanitizer(Embeddings embeddings, WordMechanism mechanism) {
    this(embeddings, mechanism, OovPolicy.RANDOM, "<unk>", CasePolicy.VOCABULARY);
  }

  public WordMechanism mechanism() {
    return mechanism;
  }

  /** The embeddings, when this sanitizer was built over them (the broadcast path). */
  public Embeddings embeddings() {
    if (embeddings instanceof Embeddings e) {
      return e;
    }
    throw new IllegalStateException("this sanitizer holds the words only (partitioned model)");
  }

  public Vocabulary vocabulary() {
    return embeddings;
  }

  public OovPolicy oovPolicy() {
    return oovPolicy;
  }

  public CasePolicy casePolicy() {
    return casePolicy;
  }

  private Tokenizer tokenizer() {
    Tokenizer t = tokenizer;
    if (t == null) {
      t = new Tokenizer(embeddings);
      tokenizer = t;
    }
    return t;
  }

  /**
   * Sanitizes one text.
   *
   * @param text the input; null gives null
   * @param random this row's random stream
   * @param counts incremented with this text's token counts; may be null
   */
  public String sanitize(String text, RandomStream random, TokenCounts counts) {
    if (text == null) {
      return null;
    }
    Tokenized tokens = tokenize(text);
    // The mechanism draws for all vocabulary tokens in order (one batch: the embedding-noise
    // mechanisms search their nearest words with one matrix product), then assemble makes the OOV
    // draws in order.
    int[] outputs = new int[tokens.count()];
    mechanism.sanitize(tokens.ranks(), tokens.count(), random, outputs, counts == null ? null : counts.search);
    return assemble(tokens, outputs, random, counts);
  }

  /**
   * A text split into whitespace and tokens, with its vocabulary tokens' ranks in order: what the
   * mechanism works on. Draws nothing.
   *
   * <p>Tokens are held as offsets into the text, not as strings: the tokens of a run cover it without
   * gap or overlap, so everything between one token's end and the next one's start is whitespace,
   * copied verbatim by {@link #assemble}. A token's surface is cut from the text only when needed
   * (case restoring, a fused pair): most rows never allocate one.
   */
  public static final class Tokenized {
    private final String text;
    private final int[] starts;
    private final int[] ends;
    private final int[] tokenRanks; // per token, -1 when out of vocabulary
    private final int tokens;
    private final int[] ranks;
    private final int count;

    private Tokenized(String text, int[] starts, int[] ends, int[] tokenRanks, int tokens, int[] ranks, int count) {
      this.text = text;
      this.starts = starts;
      this.ends = ends;
      this.tokenRanks = tokenRanks;
      this.tokens = tokens;
      this.ranks = ranks;
      this.count = count;
    }

    /** The vocabulary tokens' ranks, in text order; entries past {@link #count()} are unused. */
    public int[] ranks() {
      return ranks;
    }

    /** The number of vocabulary tokens. */
    public int count() {
      return count;
    }

    private String surface(int k) {
      return text.substring(starts[k], ends[k]);
    }
  }

  /** Collects the tokens of one text, growing its arrays as needed. */
  private static final class TokenBuffer implements Tokenizer.TokenSink {
    int[] starts;
    int[] ends;
    int[] tokenRanks;
    int tokens;
    int[] ranks;
    int count;

    TokenBuffer(int textLength) {
      int capacity = Math.max(16, textLength / 4); // about one token per 4–5 characters of English prose
      starts = new int[capacity];
      ends = new int[capacity];
      tokenRanks = new int[capacity];
      ranks = new int[capacity];
    }

    @Override
    public void token(int start, int end, int rank) {
      if (tokens == starts.length) {
        int capacity = tokens * 2;
        starts = Arrays.copyOf(starts, capacity);
        ends = Arrays.copyOf(ends, capacity);
        tokenRanks = Arrays.copyOf(tokenRanks, capacity);
        ranks = Arrays.copyOf(ranks, capacity);
      }
      starts[tokens] = start;
      ends[tokens] = end;
      tokenRanks[tokens++] = rank;
      if (rank >= 0) {
        ranks[count++] = rank; // count ≤ tokens: ranks has room
      }
    }
  }

  /**
   * Pass 1: splits into whitespace and tokens and collects the vocabulary tokens' ranks.
   *
   * <p>The split walks the text once, by code point as {@link Tokenizer#isSpace} reads it, with ASCII
   * characters taken as they are. Most runs are ASCII with at most one word in them ({@code movie},
   * {@code film.}): the tokenizer splits those in place, without strings or lists
   * ({@link Tokenizer#tokenizeInPlace}); any other run takes its general rules.
   */
  public Tokenized tokenize(String text) {
    Tokenizer tk = tokenizer();
    int n = text.length();
    TokenBuffer buffer = new TokenBuffer(n);
    int i = 0;
    while (i < n) {
      // Whitespace: skipped here, copied verbatim from the text by assemble.
      while (i < n) {
        char c = text.charAt(i);
        if (c < 0x80) {
          if (!Tokenizer.isSpace(c)) {
            break;
          }
          i++;
        } else {
          int cp = text.codePointAt(i);
          if (!Tokenizer.isSpace(cp)) {
            break;
          }
          i += Character.charCount(cp);
        }
      }
      int start = i;
      boolean ascii = true;
      int wordAtoms = 0; // of an ASCII run: its runs of letters and digits
      boolean inWord = false;
      while (i < n) {
        char c = text.charAt(i);
        if (c < 0x80) {
          if (Tokenizer.isSpace(c)) {
            break;
          }
          boolean wordChar = Tokenizer.isAsciiLetterOrDigit(c);
          wordAtoms += wordChar && !inWord ? 1 : 0;
          inWord = wordChar;
          i++;
        } else {
          int cp = text.codePointAt(i);
          if (Tokenizer.isSpace(cp)) {
            break;
          }
          ascii = false;
          i += Character.charCount(cp);
        }
      }
      if (i == start) {
        continue; // the text ended in whitespace
      }
      if (ascii && wordAtoms <= 1) {
        tk.tokenizeInPlace(text, start, i, buffer);
      } else {
        int at = start;
        for (Tokenizer.Token token : tk.tokenize(text.substring(start, i))) {
          int end = at + token.surface().length();
          buffer.token(at, end, token.rank());
          at = end;
        }
        if (at != i) {
          throw new IllegalStateException("the tokens of a run do not cover it"); // a broken tokenizer rule
        }
      }
    }
    return new Tokenized(text, buffer.starts, buffer.ends, buffer.tokenRanks, buffer.tokens, buffer.ranks,
        buffer.count);
  }

  /**
   * Pass 3: writes the text with each vocabulary token replaced by its output (in order) and each
   * out-of-vocabulary token by its policy, drawing the OOV replacements from {@code random}, which
   * must be positioned just after the mechanism's draws for this row.
   */
  public String assemble(Tokenized tokenized, int[] outputs, RandomStream random, TokenCounts counts) {
    String text = tokenized.text;
    int[] starts = tokenized.starts;
    int[] ends = tokenized.ends;
    // Sized for an output about as long as the input, so that the builder rarely grows.
    StringBuilder out = new StringBuilder(text.length() + 16);
    int next = 0;
    int copied = 0; // the text up to here is written (or replaced)
    for (int k = 0; k < tokenized.tokens; k++) {
      int start = starts[k];
      if (start > copied) { // the whitespace before this token
        if (start - copied == 1) {
          out.append(text.charAt(copied));
        } else {
          out.append(text, copied, start);
        }
      }
      int before = out.length();
      int rank = tokenized.tokenRanks[k];
      int output = rank >= 0 ? outputs[next++] : -1;
      appendSanitized(out, tokenized, k, rank, output, random, counts);
      // Two outputs that would fuse into one word ("late" + "." → "late" + "stadium") get a space
      // between them; tokens that were already word-to-word in the input ("do" + "n't") stay joined.
      // (A token continues the previous one's run when no whitespace lies between them.)
      if (k > 0 && start == ends[k - 1] && out.length() > before
          && Tokenizer.isWordChar(Character.codePointBefore(out, before))
          && Tokenizer.isWordChar(out.codePointAt(before))
          && !(endsWithWordChar(tokenized.surface(k - 1))
              && Tokenizer.isWordChar(tokenized.surface(k).codePointAt(0)))) {
        out.insert(before, ' ');
      }
      copied = ends[k];
    }
    if (copied < text.length()) {
      out.append(text, copied, text.length());
    }
    return out.toString();
  }

  private static boolean endsWithWordChar(String s) {
    return !s.isEmpty() && Tokenizer.isWordChar(s.codePointBefore(s.length()));
  }

  /**
   * Appends token {@code k}'s output: the mechanism's draw {@code y} for a vocabulary token (rank ≥ 0),
   * else the OOV policy.
   */
  private void appendSanitized(StringBuilder out, Tokenized tokenized, int k, int rank, int y, RandomStream random,
      TokenCounts counts) {
    String word;
    if (rank >= 0) {
      if (counts != null) {
        counts.tokens++;
        if (y != rank) {
          counts.changed++;
        }
      }
      word = embeddings.word(y);
    } else {
      if (counts != null) {
        counts.tokens++;
        counts.outOfVocabulary++;
        if (oovPolicy != OovPolicy.KEEP) {
          counts.changed++;
        }
      }
      switch (oovPolicy) {
        case RANDOM -> {
          int start = mechanism.outputStart();
          word = embeddings.word(start + random.nextInt(embeddings.size() - start));
        }
        case PLACEHOLDER -> {
          out.append(placeholder); // fixed, whatever the input's case
          return;
        }
        case KEEP -> {
          out.append(tokenized.text, tokenized.starts[k], tokenized.ends[k]);
          return;
        }
        default -> throw new IllegalStateException(oovPolicy.name());
      }
    }
    out.append(casePolicy == CasePolicy.RESTORE ? restoreCase(tokenized.surface(k), word) : word);
  }

  private static String restoreCase(String surface, String word) {
    boolean hasLetter = false;
    boolean allUpper = true;
    for (int k = 0; k < surface.length(); k++) {
      char c = surface.charAt(k);
      if (Character.isLetter(c)) {
        hasLetter = true;
        allUpper &= Character.isUpperCase(c);
      }
    }
    if (!hasLetter) {
      return word;
    }
    if (allUpper && surface.length() > 1) {
      return word.toUpperCase(Locale.ROOT);
    }
    if (Character.isUpperCase(surface.charAt(0)) && !word.isEmpty()) {
      return word.substring(0, 1).toUpperCase(Locale.ROOT) + word.substring(1);
    }
    return word;
  }
}
