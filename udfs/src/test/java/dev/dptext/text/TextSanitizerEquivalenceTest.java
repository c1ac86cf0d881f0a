package dev.dptext.text;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link TextSanitizer}'s tokenize and assemble against a plain statement of the same rules (the
 * implementation before tokens became offsets into the text): split at whitespace by code point, the
 * tokenizer's general rules for every run, whitespace copied, outputs and OOV draws in token order. The
 * output text, the token counts, the ranks handed to the mechanism and the random stream's position
 * after the row must all agree, for every OOV and case policy, on a few thousand varied texts (and on
 * the first IMDb reviews when scripts/data/fetch-data.sh has fetched them). The Python engine mirrors
 * these rules; a difference here would be a difference there.
 */
class TextSanitizerEquivalenceTest {
  private static final Embeddings EMB = Fixtures.gloveTop2000();

  /** Draws for some words (so that OOV draws land mid-stream), keeps others; outputs from rank 3 on. */
  private static final class DrawingMechanism implements WordMechanism {
    private static final long serialVersionUID = 1L;

    @Override
    public int sanitize(int word, RandomStream random) {
      return word % 3 == 0 ? 3 + random.nextInt(EMB.size() - 3) : Math.max(word, 3);
    }

    @Override
    public int outputStart() {
      return 3;
    }

    @Override
    public String name() {
      return "test-drawing";
    }
  }

  // --- the reference: tokens as strings, pieces as a list ---------------------------------------------

  private static boolean referenceSpace(int cp) {
    return Character.isWhitespace(cp) || Character.isSpaceChar(cp);
  }

  private static boolean referenceWordChar(int cp) {
    int type = Character.getType(cp);
    return Character.isLetterOrDigit(cp) || type == Character.NON_SPACING_MARK
        || type == Character.COMBINING_SPACING_MARK || type == Character.ENCLOSING_MARK;
  }

  /** Whitespace strings and runs (lists of tokens), in text order. */
  private static List<Object> referencePieces(Tokenizer tk, String text) {
    List<Object> pieces = new ArrayList<>();
    int n = text.length();
    int i = 0;
    while (i < n) {
      int j = i;
      boolean space = referenceSpace(text.codePointAt(i));
      while (j < n && referenceSpace(text.codePointAt(j)) == space) {
        j += Character.charCount(text.codePointAt(j));
      }
      pieces.add(space ? text.substring(i, j) : tk.tokenizeAtoms(text.substring(i, j)));
      i = j;
    }
    return pieces;
  }

  private static int[] referenceRanks(List<Object> pieces) {
    return pieces.stream().filter(p -> p instanceof List).flatMap(p -> ((List<?>) p).stream())
        .mapToInt(t -> ((Tokenizer.Token) t).rank()).filter(r -> r >= 0).toArray();
  }

  private static String referenceAssemble(List<Object> pieces, int[] outputs, RandomStream random, TokenCounts counts,
      OovPolicy oov, CasePolicy casePolicy, int outputStart) {
    StringBuilder out = new StringBuilder();
    int next = 0;
    for (Object piece : pieces) {
      if (piece instanceof String whitespace) {
        out.append(whitespace);
        continue;
      }
      List<?> tokens = (List<?>) piece;
      for (int t = 0; t < tokens.size(); t++) {
        int before = out.length();
        Tokenizer.Token token = (Tokenizer.Token) tokens.get(t);
        String word = null;
        counts.tokens++;
        if (token.rank() >= 0) {
          int y = outputs[next++];
          counts.changed += y != token.rank() ? 1 : 0;
          word = EMB.word(y);
        } else {
          counts.outOfVocabulary++;
          counts.changed += oov != OovPolicy.KEEP ? 1 : 0;
          switch (oov) {
            case RANDOM -> word = EMB.word(outputStart + random.nextInt(EMB.size() - outputStart));
            case PLACEHOLDER -> out.append("<unk>");
            case KEEP -> out.append(token.surface());
            default -> throw new IllegalStateException();
          }
        }
        if (word != null) {
          out.append(casePolicy == CasePolicy.RESTORE ? referenceRestoreCase(token.surface(), word) : word);
        }
        String previous = t > 0 ? ((Tokenizer.Token) tokens.get(t - 1)).surface() : null;
        if (t > 0 && out.length() > before
            && referenceWordChar(Character.codePointBefore(out, before))
            && referenceWordChar(out.codePointAt(before))
            && !(referenceWordChar(previous.codePointBefore(previous.length()))
                && referenceWordChar(token.surface().codePointAt(0)))) {
          out.insert(before, ' ');
        }
      }
    }
    return out.toString();
  }

  private static String referenceRestoreCase(String surface, String word) {
    boolean hasLetter = surface.chars().anyMatch(Character::isLetter);
    boolean allUpper = surface.chars().filter(Character::isLetter).allMatch(Character::isUpperCase);
    if (!hasLetter) {
      return word;
    }
    if (allUpper && surface.length() > 1) {
      return word.toUpperCase(java.util.Locale.ROOT);
    }
    if (Character.isUpperCase(surface.charAt(0)) && !word.isEmpty()) {
      return word.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + word.substring(1);
    }
    return word;
  }

  // --- texts --------------------------------------------------------------------------------------------

  private static final String[] SEPARATORS = {" ", " ", " ", " ", "  ", "\n", "\n\n", "\t", " \t ", "\u00A0", "\u2007",
    "\u202F", "\u3000", "\u2028", "\r\n", "\u001C", "\u000B", "\u0085"};
  private static final String[] ODD = {"don't", "It's", "WE'RE", "they’ll", "I'd", "can't", "won’t", "well-known",
    "3.5", "o'clock", "e-mail", "...", "!!", "?!", "(", ")", "\"quoted\"", "café", "naïve", "东京", "Москва", "👍🏽",
    "🇫🇷", "❤️", "\uD800", "\uDC00", "x\uDBFF", "\u0301", "a\u0301", "\uFEFF", "\u200B", "<br", "/><br", "/>",
    "1/2", "10:30", "a,b", "--", "’", "'", "U.S.", "N'T", "John's", "İstanbul", "STRASSE", "ß"};

  private static List<String> texts() throws IOException {
    List<String> texts = new ArrayList<>(List.of("", " ", "\n", "word", " lead", "trail ", "a\u00A0b", "late.",
        "Hello, world!", "\uD83D", " \uDE00 "));
    Random random = new Random(20261129);
    for (int t = 0; t < 4000; t++) {
      StringBuilder b = new StringBuilder();
      if (random.nextInt(10) == 0) {
        b.append(SEPARATORS[random.nextInt(SEPARATORS.length)]);
      }
      for (int w = 1 + random.nextInt(60); w > 0; w--) {
        int kind = random.nextInt(20);
        String word = kind < 2 ? ODD[random.nextInt(ODD.length)]
            : kind < 3 ? Integer.toString(random.nextInt(3000))
            : kind < 4 ? "Zq" + Integer.toString(random.nextInt(1 << 20), 36) // out of vocabulary
            : EMB.word(random.nextInt(EMB.size()));
        int casing = random.nextInt(8);
        word = casing == 0 ? word.toUpperCase(java.util.Locale.ROOT)
            : casing == 1 && !word.isEmpty() ? word.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + word.substring(1)
            : word;
        b.append(word);
        int attach = random.nextInt(6);
        if (attach == 0) {
          b.append(",.!?;:'’-\")".charAt(random.nextInt(11)));
        } else if (attach == 1) {
          continue; // glued to the next word
        }
        b.append(SEPARATORS[random.nextInt(random.nextInt(3) == 0 ? SEPARATORS.length : 4)]);
      }
      texts.add(b.toString());
    }
    texts.addAll(Files.readAllLines(Path.of("../data/sample/support-tickets.jsonl")));
    Path reviews = Path.of(System.getProperty("user.home"), ".cache/dptext/imdb-reviews.jsonl");
    if (Files.isRegularFile(reviews)) {
      try (Stream<String> lines = Files.lines(reviews)) {
        lines.limit(2000).forEach(texts::add); // the raw JSON lines: real prose with escapes and markup
      }
    }
    return texts;
  }

  // --- the comparison -------------------------------------------------------------------------------------

  @Test
  void sameTextsCountsRanksAndDrawsAsTheReference() throws IOException {
    List<String> texts = texts();
    WordMechanism mechanism = new DrawingMechanism();
    Tokenizer tk = new Tokenizer(EMB::indexOf);
    long tokens = 0;
    for (OovPolicy oov : OovPolicy.values()) {
      for (CasePolicy casePolicy : CasePolicy.values()) {
        TextSanitizer sanitizer = new TextSanitizer(EMB, mechanism, oov, "<unk>", casePolicy);
        for (int t = 0; t < texts.size(); t++) {
          String text = texts.get(t);
          List<Object> pieces = referencePieces(tk, text);
          int[] ranks = referenceRanks(pieces);
          TextSanitizer.Tokenized tokenized = sanitizer.tokenize(text);
          assertArrayEquals(ranks, Arrays.copyOf(tokenized.ranks(), tokenized.count()), text);

          RandomStream expectedRandom = RandomStream.fromSeed(t);
          int[] outputs = new int[ranks.length];
          mechanism.sanitize(ranks, ranks.length, expectedRandom, outputs);
          TokenCounts expectedCounts = new TokenCounts();
          String expected = referenceAssemble(pieces, outputs, expectedRandom, expectedCounts, oov, casePolicy,
              mechanism.outputStart());

          RandomStream random = RandomStream.fromSeed(t);
          TokenCounts counts = new TokenCounts();
          String actual = sanitizer.sanitize(text, random, counts);
          assertEquals(expected, actual, () -> oov + " " + casePolicy + ": " + text);
          assertEquals(expectedCounts.tokens, counts.tokens, text);
          assertEquals(expectedCounts.changed, counts.changed, text);
          assertEquals(expectedCounts.outOfVocabulary, counts.outOfVocabulary, text);
          assertEquals(expectedRandom.nextLong(), random.nextLong(), () -> "the stream's position after " + text);
          tokens += counts.tokens;
        }
      }
    }
    assertTrue(tokens > 500_000, "tokens compared: " + tokens);
  }

  @Test
  void asciiShortcutsAgreeWithTheCharacterClasses() {
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      if (Tokenizer.isSpace(cp) != referenceSpace(cp)) {
        throw new AssertionError("isSpace differs at U+" + Integer.toHexString(cp));
      }
      if (Tokenizer.isWordChar(cp) != referenceWordChar(cp)) {
        throw new AssertionError("isWordChar differs at U+" + Integer.toHexString(cp));
      }
    }
  }
}
