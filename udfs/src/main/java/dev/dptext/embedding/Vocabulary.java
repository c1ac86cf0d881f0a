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
}
