package dev.dptext.embedding;

/**
 * The words of a vocabulary in public frequency order, without their vectors: what tokenizing a text
 * and spelling the mechanism's outputs need. {@link Embeddings} is one; the partitioned path, which
 * keeps the vectors in shards on the executors, broadcasts a {@link WordList} instead (O(|V|·word
 * length) bytes, about 40 MB for 2 million words, against 2.4 GB of 300-d vectors).
 */
public interface Vocabulary {
  /** |V|. */
  int size();

  /** The word of rank {@code rank}. */
  String word(int rank);

  /** The rank of {@code word}, or -1 if it is not in the vocabulary. */
  int indexOf(String word);

  /**
   * The rank of the word {@code text[from, to)}, with A–Z read as a–z when {@code asciiLowerCase}, or
   * -1: {@link #indexOf(String)} of that piece of the text. For the tokenizer's plain words, looked up
   * on every row: an index can find them in place, without a string cut out (and lower-cased) for each.
   */
  default int indexOf(String text, int from, int to, boolean asciiLowerCase) {
    char[] word = new char[to - from];
    for (int k = 0; k < word.length; k++) {
      char c = text.charAt(from + k);
      word[k] = asciiLowerCase && c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
    }
    return indexOf(new String(word));
  }
}
