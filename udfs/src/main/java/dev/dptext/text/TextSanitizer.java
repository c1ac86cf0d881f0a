package dev.dptext.text;

import dev.dptext.embedding.Embeddings;
import dev.dptext.embedding.Vocabulary;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.random.RandomStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
      throw new IllegalArgumentException(
          "the OOV placeholder must be a non-empty string without whitespace, e.g. <unk>");
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
      t = new Tokenizer(embeddings::indexOf);
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
   */
  public static final class Tokenized {
    private final List<Object> pieces; // String (whitespace, verbatim) or List<Token> (one run)
    private final int[] ranks;
    private final int count;

    private Tokenized(List<Object> pieces, int[] ranks, int count) {
      this.pieces = pieces;
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
  }

  /** Pass 1: splits into whitespace and tokens and collects the vocabulary tokens' ranks. */
  public Tokenized tokenize(String text) {
    Tokenizer tk = tokenizer();
    List<Object> pieces = new ArrayList<>();
    int[] ranks = new int[16];
    int inVocabulary = 0;
    int n = text.length();
    int i = 0;
    while (i < n) {
      int j = i;
      if (Tokenizer.isSpace(text.codePointAt(i))) {
        while (j < n && Tokenizer.isSpace(text.codePointAt(j))) {
          j += Character.charCount(text.codePointAt(j));
        }
        // (One space, the usual separator, without a new string each time.)
        pieces.add(j == i + 1 && text.charAt(i) == ' ' ? " " : text.substring(i, j));
      } else {
        while (j < n && !Tokenizer.isSpace(text.codePointAt(j))) {
          j += Character.charCount(text.codePointAt(j));
        }
        List<Tokenizer.Token> run = tk.tokenize(text.substring(i, j));
        for (Tokenizer.Token token : run) {
          if (token.rank() >= 0) {
            if (inVocabulary == ranks.length) {
              ranks = Arrays.copyOf(ranks, ranks.length * 2);
            }
            ranks[inVocabulary++] = token.rank();
          }
        }
        pieces.add(run);
      }
      i = j;
    }
    return new Tokenized(pieces, ranks, inVocabulary);
  }

  /**
   * Pass 3: writes the text with each vocabulary token replaced by its output (in order) and each
   * out-of-vocabulary token by its policy, drawing the OOV replacements from {@code random}, which
   * must be positioned just after the mechanism's draws for this row.
   */
  public String assemble(Tokenized tokenized, int[] outputs, RandomStream random, TokenCounts counts) {
    StringBuilder out = new StringBuilder(64);
    int next = 0;
    for (Object piece : tokenized.pieces) {
      if (piece instanceof String whitespace) {
        out.append(whitespace);
        continue;
      }
      @SuppressWarnings("unchecked")
      List<Tokenizer.Token> tokens = (List<Tokenizer.Token>) piece;
      for (int t = 0; t < tokens.size(); t++) {
        int before = out.length();
        Tokenizer.Token token = tokens.get(t);
        int output = token.rank() >= 0 ? outputs[next++] : -1;
        appendSanitized(out, token, output, random, counts);
        // Two outputs that would fuse into one word ("late" + "." → "late" + "stadium") get a space
        // between them; tokens that were already word-to-word in the input ("do" + "n't") stay joined.
        if (t > 0 && out.length() > before
            && Tokenizer.isWordChar(Character.codePointBefore(out, before))
            && Tokenizer.isWordChar(out.codePointAt(before))
            && !(endsWithWordChar(tokens.get(t - 1).surface())
                && Tokenizer.isWordChar(token.surface().codePointAt(0)))) {
          out.insert(before, ' ');
        }
      }
    }
    return out.toString();
  }

  private static boolean endsWithWordChar(String s) {
    return !s.isEmpty() && Tokenizer.isWordChar(s.codePointBefore(s.length()));
  }

  /** Appends one token's output: the mechanism's draw {@code y} for a vocabulary token, else the OOV policy. */
  private void appendSanitized(StringBuilder out, Tokenizer.Token token, int y, RandomStream random, TokenCounts counts) {
    int rank = token.rank();
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
          out.append(token.surface());
          return;
        }
        default -> throw new IllegalStateException(oovPolicy.name());
      }
    }
    out.append(casePolicy == CasePolicy.RESTORE ? restoreCase(token.surface(), word) : word);
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
