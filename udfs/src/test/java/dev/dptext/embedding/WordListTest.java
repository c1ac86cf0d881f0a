package dev.dptext.embedding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The word index against a {@code HashMap} oracle: every word, absent words, equal hashes, serialization. */
class WordListTest {
  /** Words with equal {@link String#hashCode}s ("Aa" and "BB" hash alike), random words, and the empty word. */
  private static String[] vocabulary(int randomWords, long seed) {
    Set<String> words = new LinkedHashSet<>(List.of("Aa", "BB", "AaAa", "AaBB", "BBAa", "BBBB", "", "the", "é", "日本"));
    Random random = new Random(seed);
    while (words.size() < randomWords) {
      StringBuilder w = new StringBuilder();
      for (int k = 1 + random.nextInt(9); k > 0; k--) {
        w.append((char) ('a' + random.nextInt(26)));
      }
      words.add(w.toString());
    }
    return words.toArray(new String[0]);
  }

  @Test
  void everyWordIsFoundAtItsRankAndOthersAreNotAsAMapWouldSay() {
    for (int size : new int[] {0, 1, 2, 3, 17, 1024, 25_000}) {
      String[] words = size < 10 ? java.util.Arrays.copyOf(vocabulary(10, size), size) : vocabulary(size, size);
      WordList list = new WordList(words);
      Map<String, Integer> oracle = new HashMap<>();
      for (int i = 0; i < words.length; i++) {
        oracle.put(words[i], i);
        assertEquals(i, list.indexOf(words[i]), "rank of '" + words[i] + "' in " + size + " words");
      }
      Random random = new Random(7);
      for (int k = 0; k < 20_000; k++) {
        String probe = Integer.toString(random.nextInt(), 36 - random.nextInt(10));
        assertEquals(oracle.getOrDefault(probe, -1), list.indexOf(probe), probe);
      }
      for (String absent : List.of("AaAaAa", "BBBBBB", "missing", "THE")) {
        assertEquals(oracle.getOrDefault(absent, -1), list.indexOf(absent), absent);
      }
    }
  }

  @Test
  void aPieceOfATextIsFoundAsItsSubstringWouldBe() {
    String[] words = vocabulary(3_000, 11);
    WordList list = new WordList(words);
    Vocabulary plain = new Vocabulary() { // the interface's own reading: cut out, lower-case A–Z, look up
      @Override
      public int size() {
        return list.size();
      }

      @Override
      public String word(int rank) {
        return list.word(rank);
      }

      @Override
      public int indexOf(String word) {
        return list.indexOf(word);
      }
    };
    Random random = new Random(5);
    for (int k = 0; k < 20_000; k++) {
      String word = random.nextInt(3) == 0 ? Integer.toString(random.nextInt(), 36) : words[random.nextInt(words.length)];
      word = random.nextBoolean() ? word.toUpperCase(java.util.Locale.ROOT) : word;
      String text = "x Ab" + word + ".é";
      int from = 4;
      int to = from + word.length();
      for (boolean lower : new boolean[] {false, true}) {
        StringBuilder piece = new StringBuilder(word); // only A–Z are read as lower case (É stays É)
        for (int c = 0; lower && c < piece.length(); c++) {
          char ch = piece.charAt(c);
          piece.setCharAt(c, ch >= 'A' && ch <= 'Z' ? Character.toLowerCase(ch) : ch);
        }
        assertEquals(list.indexOf(piece.toString()), list.indexOf(text, from, to, lower), piece + " " + lower);
        assertEquals(list.indexOf(piece.toString()), plain.indexOf(text, from, to, lower), piece + " " + lower);
      }
    }
    assertEquals(list.indexOf("Aa"), list.indexOf("xAa", 1, 3, false)); // "Aa" and "BB" share a hash
    assertEquals(list.indexOf("BB"), list.indexOf("xBB", 1, 3, false));
    assertEquals(list.indexOf("aa"), list.indexOf("AA", 0, 2, true));
    assertEquals(list.indexOf("é"), list.indexOf("é", 0, 1, true));
    assertEquals(-1, list.indexOf("É", 0, 1, true));
  }

  @Test
  void aDuplicateWordIsRefusedWithBothRanks() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new WordList(new String[] {"a", "Aa", "b", "Aa"}));
    ErrorAssertions.assertError(e, "EMBEDDINGS_INVALID", Map.of("problem", "a duplicate word at ranks 1 and 3"));
  }

  @Test
  void theIndexIsRebuiltWhereTheListIsDeserialized() throws Exception {
    String[] words = vocabulary(5_000, 3);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(new WordList(words));
    }
    WordList copy;
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (WordList) in.readObject();
    }
    List<Integer> ranks = new ArrayList<>();
    for (String w : words) {
      ranks.add(copy.indexOf(w));
    }
    for (int i = 0; i < words.length; i++) {
      assertEquals(i, ranks.get(i));
    }
    assertEquals(-1, copy.indexOf("AaAaAa"));
  }
}
