package dev.dptext.text;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TokenizerTest {
  private static final String[] VOCAB = {
    "the", ",", ".", "...", "hello", "well-known", "well", "known", "3.5", "o'clock", "do", "n't",
    "it", "'s", "we", "'re", "i", "'m", "you", "'ll", "they", "'ve", "he", "'d", "ca", "is",
    "long", "term", "!", "?", "'", "-", "café", "Apple", "apple", "东京", "naïve", "e-mail",
    "new", "york", "new-york-based", "!!", "2"
  };
  private static final Map<String, Integer> RANKS = new HashMap<>();

  static {
    for (int i = 0; i < VOCAB.length; i++) {
      RANKS.put(VOCAB[i], i);
    }
  }

  private final Tokenizer tokenizer = new Tokenizer(w -> RANKS.getOrDefault(w, -1));

  private static int r(String word) {
    Integer rank = RANKS.get(word);
    if (rank == null) {
      throw new AssertionError("test vocabulary lacks " + word);
    }
    return rank;
  }

  private List<String> surfaces(String run) {
    return tokenizer.tokenize(run).stream().map(Tokenizer.Token::surface).collect(Collectors.toList());
  }

  private List<Integer> ranks(String run) {
    return tokenizer.tokenize(run).stream().map(Tokenizer.Token::rank).collect(Collectors.toList());
  }

  @Test
  void punctuationIsSplitOff() {
    assertEquals(List.of("Hello", ","), surfaces("Hello,"));
    assertEquals(List.of(r("hello"), r(",")), ranks("Hello,"));
    assertEquals(List.of("(", "hello", ")", "."), surfaces("(hello)."));
    assertEquals(List.of("\"", "hello", "\""), surfaces("\"hello\""));
    assertEquals(List.of("hello", "?", "!"), surfaces("hello?!"));
    assertEquals(List.of(r("hello"), r("?"), r("!")), ranks("hello?!"));
  }

  @Test
  void runsOfIdenticalPunctuationAreOneToken() {
    assertEquals(List.of("wait", "..."), surfaces("wait..."));
    assertEquals(List.of(-1, r("...")), ranks("wait..."));
    assertEquals(List.of("!!"), surfaces("!!"));
    assertEquals(List.of(r("!!")), ranks("!!"));
    assertEquals(List.of("!!!!"), surfaces("!!!!"));
    assertEquals(List.of(-1), ranks("!!!!"));
    assertEquals(List.of("....", "?"), surfaces("....?"));
  }

  @Test
  void vocabularyMergesJoinWordsAcrossConnectors() {
    assertEquals(List.of("well-known"), surfaces("well-known"));
    assertEquals(List.of(r("well-known")), ranks("well-known"));
    assertEquals(List.of("Well-Known"), surfaces("Well-Known"));
    assertEquals(List.of(r("well-known")), ranks("Well-Known"));
    assertEquals(List.of("3.5"), surfaces("3.5"));
    assertEquals(List.of("o'clock"), surfaces("o'clock"));
    assertEquals(List.of(r("o'clock")), ranks("o'clock"));
    assertEquals(List.of("e-mail", ","), surfaces("e-mail,"));
    // The longest merge wins.
    assertEquals(List.of("new-york-based"), surfaces("new-york-based"));
    assertEquals(List.of(r("new-york-based")), ranks("New-York-based"));
  }

  @Test
  void noMergeWhenTheJoinedFormIsNotInTheVocabulary() {
    assertEquals(List.of("long", "-", "term"), surfaces("long-term"));
    assertEquals(List.of(r("long"), r("-"), r("term")), ranks("long-term"));
    assertEquals(List.of("2", ".", "5"), surfaces("2.5"));
    assertEquals(List.of(r("2"), r("."), -1), ranks("2.5"));
    assertEquals(List.of("new", "-", "york"), surfaces("new-york"));
    assertEquals(List.of("well", "--", "known"), surfaces("well--known"), "a double hyphen is no connector");
    assertEquals(List.of("a", "/", "b", ":", "c"), surfaces("a/b:c"));
  }

  @Test
  void clitics() {
    assertEquals(List.of("do", "n't"), surfaces("don't"));
    assertEquals(List.of(r("do"), r("n't")), ranks("don't"));
    assertEquals(List.of("DO", "N'T"), surfaces("DON'T"));
    assertEquals(List.of(r("do"), r("n't")), ranks("DON'T"));
    assertEquals(List.of("ca", "n't"), surfaces("can't"));
    assertEquals(List.of("it", "'s"), surfaces("it's"));
    assertEquals(List.of(r("it"), r("'s")), ranks("it's"));
    assertEquals(List.of("we", "'re"), surfaces("we're"));
    assertEquals(List.of(r("we"), r("'re")), ranks("we're"));
    assertEquals(List.of("I", "'m"), surfaces("I'm"));
    assertEquals(List.of(r("i"), r("'m")), ranks("I'm"));
    assertEquals(List.of(r("you"), r("'ll")), ranks("you'll"));
    assertEquals(List.of(r("they"), r("'ve")), ranks("they've"));
    assertEquals(List.of(r("he"), r("'d")), ranks("he'd"));
    assertEquals(List.of("it", "'s", "."), surfaces("it's."));
  }

  @Test
  void curlyApostrophe() {
    assertEquals(List.of("do", "n’t"), surfaces("don’t"));
    assertEquals(List.of(r("do"), r("n't")), ranks("don’t"));
    assertEquals(List.of("it", "’s"), surfaces("it’s"));
    assertEquals(List.of(r("it"), r("'s")), ranks("it’s"));
    assertEquals(List.of("We", "’re"), surfaces("We’re"));
    assertEquals(List.of(r("we"), r("'re")), ranks("We’re"));
    assertEquals(List.of("o’clock"), surfaces("o’clock"));
    assertEquals(List.of(r("o'clock")), ranks("o’clock"));
    assertEquals(r("'"), tokenizer.rank("’"));
  }

  @Test
  void notACliticWithoutAWordBeforeOrAfter() {
    assertEquals(List.of("'", "s"), surfaces("'s"));
    assertEquals(List.of("n't"), surfaces("n't"), "a vocabulary merge, not a clitic split");
    assertEquals(List.of("n", "'", "x"), surfaces("n'x"));
    assertEquals(List.of("rock", "'", "n", "'", "roll"), surfaces("rock'n'roll"));
    assertEquals(List.of("it", "'", "x"), surfaces("it'x"));
  }

  @Test
  void lookupIsCaseInsensitiveExactFormFirst() {
    assertEquals(r("the"), tokenizer.rank("The"));
    assertEquals(r("the"), tokenizer.rank("THE"));
    assertEquals(r("the"), tokenizer.rank("tHe"));
    assertEquals(List.of(r("the")), ranks("The"));
    // Exact form first, then lower case.
    assertEquals(r("Apple"), tokenizer.rank("Apple"));
    assertEquals(r("apple"), tokenizer.rank("APPLE"));
    assertEquals(r("apple"), tokenizer.rank("apple"));
    assertEquals(r("café"), tokenizer.rank("CAFÉ"));
    assertEquals(-1, tokenizer.rank("cafe"));
  }

  @Test
  void emojiAreTokensAndOutOfVocabulary() {
    assertEquals(List.of("😀"), surfaces("😀"));
    assertEquals(List.of(-1), ranks("😀"));
    assertEquals(List.of("😀😀😀"), surfaces("😀😀😀"), "a run of one emoji is one atom");
    assertEquals(List.of("hello", "😀", "!"), surfaces("hello😀!"));
    assertEquals(List.of(r("hello"), -1, r("!")), ranks("hello😀!"));
    // Surrogate pairs are never split.
    for (Tokenizer.Token t : tokenizer.tokenize("👍🏽🇫🇷👨‍👩‍👧❤️")) {
      assertFalse(Character.isLowSurrogate(t.surface().charAt(0)), t.toString());
      assertFalse(Character.isHighSurrogate(t.surface().charAt(t.surface().length() - 1)), t.toString());
    }
  }

  @Test
  void cjkAndRightToLeftScripts() {
    assertEquals(List.of("东京"), surfaces("东京"));
    assertEquals(List.of(r("东京")), ranks("东京"));
    assertEquals(List.of("東京都", "、", "大阪"), surfaces("東京都、大阪"));
    assertEquals(List.of(-1, -1, -1), ranks("東京都、大阪"));
    assertEquals(List.of("こんにちは", "。"), surfaces("こんにちは。"));
    assertEquals(List.of("مرحبا", "،"), surfaces("مرحبا،"));
    assertEquals(List.of(-1, -1), ranks("مرحبا،"));
    assertEquals(List.of("שלום", ","), surfaces("שלום,"));
    // Hebrew points and Arabic harakat are combining marks: they stay in the word.
    assertEquals(List.of("שָׁלוֹם"), surfaces("שָׁלוֹם"));
    assertEquals(List.of("مَرْحَبًا"), surfaces("مَرْحَبًا"));
    assertEquals(List.of("नमस्ते"), surfaces("नमस्ते"));
  }

  @Test
  void combiningMarksStayInTheWord() {
    String decomposed = "cafe\u0301";
    assertEquals(List.of(decomposed), surfaces(decomposed));
    assertEquals(List.of(decomposed, "."), surfaces(decomposed + "."));
    assertEquals(List.of("nai\u0308ve"), surfaces("nai\u0308ve"));
    assertEquals(List.of("e\u0301te\u0301"), surfaces("e\u0301te\u0301"));
    // Precomposed forms are found in the vocabulary.
    assertEquals(List.of(r("naïve")), ranks("Naïve"));
    assertEquals(List.of(r("café")), ranks("café"));
  }

  @Test
  void emptyRunHasNoTokens() {
    assertTrue(tokenizer.tokenize("").isEmpty());
  }

  /** Whatever the input, tokenization never throws and the surfaces rebuild the run exactly. */
  @Test
  void arbitraryTextNeverThrowsAndRoundTrips() {
    List<String> samples =
        new ArrayList<>(
            List.of(
                "\uD800", "a\uD800b", "\uDC00\uD800", "x\uDBFF", "\uFEFFhello", "\u200F\u200Ehi",
                "a\u200Bb", "\u0301", "'", "’’", "don'", "'t", "o'", "-well-known-", "...hello...",
                "3.5.5", "e-mail's", "N'T", "a'b'c'd", "well-known's", "\u0000", "\u202Eevil"));
    Random random = new Random(20240601);
    int[] pool = {
      'a', 'Z', '7', '\'', '’', '-', '.', ',', '/', ':', '!', 0x301, 0x5B4, 0x627, 0x4E1C, 0x1F600,
      0x1F3FD, 0x200D, 0xFE0F, 0xD800, 0xDFFF, 0x0, 0x10FFFF, 'é', 'ß', 'İ'
    };
    for (int s = 0; s < 3000; s++) {
      StringBuilder b = new StringBuilder();
      int len = 1 + random.nextInt(12);
      for (int k = 0; k < len; k++) {
        b.appendCodePoint(pool[random.nextInt(pool.length)]);
      }
      samples.add(b.toString());
    }
    for (String sample : samples) {
      List<Tokenizer.Token> tokens = assertDoesNotThrow(() -> tokenizer.tokenize(sample), sample);
      StringBuilder rebuilt = new StringBuilder();
      for (Tokenizer.Token t : tokens) {
        assertFalse(t.surface().isEmpty(), "empty token in " + tokens);
        assertEquals(tokenizer.rank(t.surface()), t.rank(), t.toString());
        rebuilt.append(t.surface());
      }
      assertEquals(sample, rebuilt.toString(), "tokens " + tokens);
    }
  }

  @Test
  void plainWordsTakeTheShortPathAndGetWhatTheGeneralRulesGive() {
    Random random = new Random(19);
    String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    List<String> runs = new ArrayList<>(List.of("the", "The", "THE", "hello", "Apple", "apple", "2", "35", "x"));
    for (int t = 0; t < 2000; t++) {
      StringBuilder b = new StringBuilder();
      for (int k = 1 + random.nextInt(12); k > 0; k--) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      runs.add(b.toString());
    }
    for (String run : runs) {
      assertEquals(tokenizer.tokenizeAtoms(run), tokenizer.tokenize(run), run);
      assertEquals(1, tokenizer.tokenize(run).size(), run);
    }
    // Runs with anything else still take the general rules.
    for (String run : List.of("don't", "well-known", "café", "hello,", "3.5", "东京", "naïve")) {
      assertEquals(tokenizer.tokenizeAtoms(run), tokenizer.tokenize(run), run);
    }
    assertEquals(r("apple"), tokenizer.tokenize("APPLE").get(0).rank(), "lower case is looked up on the short path too");
  }

  @Test
  void asciiRunsWithOneWordAtMostAreSplitInPlaceAsTheGeneralRulesSplitThem() {
    Tokenizer overWords = new Tokenizer(new dev.dptext.embedding.WordList(VOCAB));
    Random random = new Random(23);
    String alphabet = "theHELOwnkd2357.,'-!?<>/\"(";
    List<String> runs = new ArrayList<>(List.of("hello", "Hello.", "...", "!!", "!!!", "<br", "/><br", "(the", "APPLE,",
        "\"Apple\"", "2", "-", "'", "3"));
    while (runs.size() < 5000) {
      StringBuilder b = new StringBuilder();
      for (int k = 1 + random.nextInt(10); k > 0; k--) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String run = b.toString();
      if (java.util.regex.Pattern.compile("[A-Za-z0-9]+").matcher(run).results().count() <= 1) { // one word atom at most
        runs.add(run);
      }
    }
    for (Tokenizer tk : List.of(tokenizer, overWords)) {
      for (String run : runs) {
        String text = " x" + run + "y ";
        List<Tokenizer.Token> inPlace = new ArrayList<>();
        tk.tokenizeInPlace(text, 2, 2 + run.length(),
            (start, end, rank) -> inPlace.add(new Tokenizer.Token(text.substring(start, end), rank)));
        assertEquals(tk.tokenizeAtoms(run), inPlace, run);
      }
    }
  }
}
