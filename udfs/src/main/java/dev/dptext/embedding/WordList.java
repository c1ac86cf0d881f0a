package dev.dptext.embedding;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/** A {@link Vocabulary} holding only the words; the index is rebuilt where it is deserialized. */
public final class WordList implements Vocabulary, Serializable {
  private static final long serialVersionUID = 1L;

  private final String[] words;
  private transient Map<String, Integer> index;

  /** @param words the vocabulary in rank order, no duplicates */
  public WordList(String[] words) {
    this.words = words;
    this.index = buildIndex(words);
  }

  private static Map<String, Integer> buildIndex(String[] words) {
    Map<String, Integer> index = new HashMap<>(words.length * 2);
    for (int i = 0; i < words.length; i++) {
      Integer previous = index.putIfAbsent(words[i], i);
      if (previous != null) {
        throw new IllegalArgumentException("duplicate word '" + words[i] + "' at ranks " + previous + " and " + i);
      }
    }
    return index;
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    index = buildIndex(words);
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
    Integer i = index.get(word);
    return i == null ? -1 : i;
  }
}
