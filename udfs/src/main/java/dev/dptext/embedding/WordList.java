package dev.dptext.embedding;

import dev.dptext.errors.DpTextErrors;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;

/**
 * A {@link Vocabulary} holding only the words; the index is rebuilt where it is deserialized.
 *
 * <p>The index is an open-addressing table of ranks with the words' hashes beside them, not a
 * {@code HashMap<String, Integer>}: every token of every row is looked up here, and a map's lookup walks
 * from its table to a node, the node's key and its boxed value — several cache misses per token on a
 * vocabulary of 25,000–400,000 words (12 % of a 50,000-review run's CPU samples were {@code HashMap.getNode}
 * under {@link #indexOf}, BENCHMARKS.md "Scheduled runs"). Here a probe reads two adjacent int arrays and
 * compares the word itself only when the full hash matches. At most half the slots are used, so a probe
 * sequence is short.
 */
public final class WordList implements Vocabulary, Serializable {
  private static final long serialVersionUID = 1L;

  private final String[] words;
  /** Per slot: the rank of the word there plus one, 0 for an empty slot. */
  private transient int[] slots;
  /** Per slot: the {@link String#hashCode} of the word there. */
  private transient int[] hashes;

  /** @param words the vocabulary in rank order, no duplicates */
  public WordList(String[] words) {
    this.words = words;
    buildIndex();
  }

  private void buildIndex() {
    int capacity = Integer.highestOneBit(Math.max(2, words.length) * 2 - 1) << 1; // a power of two ≥ 2 n
    slots = new int[capacity];
    hashes = new int[capacity];
    int mask = capacity - 1;
    for (int rank = 0; rank < words.length; rank++) {
      String w = words[rank];
      int h = w.hashCode();
      int i = spread(h) & mask;
      while (slots[i] != 0) {
        if (hashes[i] == h && words[slots[i] - 1].equals(w)) {
          // Not quoting the word: a model file's reader reports this as its corruption, without the word.
          throw DpTextErrors.error("EMBEDDINGS_INVALID", "problem",
              "a duplicate word at ranks " + (slots[i] - 1) + " and " + rank);
        }
        i = (i + 1) & mask;
      }
      slots[i] = rank + 1;
      hashes[i] = h;
    }
  }

  /** The hash's high bits folded into the low ones, which pick the slot (as {@code HashMap} does). */
  private static int spread(int h) {
    return h ^ (h >>> 16);
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    buildIndex();
  }

  @Override
  public int size() {
    return words.length;
  }

  @Override
  public String word(int rank) {
    return words[rank];
  }

  @Override
  public int indexOf(String word) {
    int h = word.hashCode();
    int mask = slots.length - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      int slot = slots[i];
      if (slot == 0) {
        return -1;
      }
      if (hashes[i] == h && words[slot - 1].equals(word)) {
        return slot - 1;
      }
    }
  }

  /**
   * The same probe for a piece of a text: its {@link String#hashCode} (31·h + c over its characters, as
   * the string's would be) is computed in place, and a candidate word is compared with the text's
   * characters.
   */
  @Override
  public int indexOf(String text, int from, int to, boolean asciiLowerCase) {
    int h = 0;
    for (int k = from; k < to; k++) {
      h = 31 * h + read(text.charAt(k), asciiLowerCase);
    }
    int mask = slots.length - 1;
    for (int i = spread(h) & mask; ; i = (i + 1) & mask) {
      int slot = slots[i];
      if (slot == 0) {
        return -1;
      }
      if (hashes[i] == h && spells(words[slot - 1], text, from, to, asciiLowerCase)) {
        return slot - 1;
      }
    }
  }

  private static char read(char c, boolean asciiLowerCase) {
    return asciiLowerCase && c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
  }

  /** Whether {@code word} is {@code text[from, to)}, read as {@link #read} reads it. */
  private static boolean spells(String word, String text, int from, int to, boolean asciiLowerCase) {
    int length = to - from;
    if (word.length() != length) {
      return false;
    }
    if (!asciiLowerCase) {
      return word.regionMatches(0, text, from, length);
    }
    for (int k = 0; k < length; k++) {
      if (word.charAt(k) != read(text.charAt(from + k), true)) {
        return false;
      }
    }
    return true;
  }
}
