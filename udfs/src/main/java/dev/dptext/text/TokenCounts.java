package dev.dptext.text;

import dev.dptext.knn.SearchTally;

/**
 * Counters a sanitization pass fills in: tokens seen, tokens whose output differs, OOV tokens, and the
 * recall checks of an approximate nearest-word search.
 */
public final class TokenCounts {
  public long tokens;
  public long changed;
  public long outOfVocabulary;
  /** The approximate nearest-word search's recall checks (zero with exact search). */
  public final SearchTally search = new SearchTally();

  public void add(TokenCounts other) {
    tokens += other.tokens;
    changed += other.changed;
    outOfVocabulary += other.outOfVocabulary;
    search.add(other.search);
  }
}
