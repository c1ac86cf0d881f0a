package dev.dptext.text;

/** Counters a sanitization pass fills in: tokens seen, tokens whose output differs, OOV tokens. */
public final class TokenCounts {
  public long tokens;
  public long changed;
  public long outOfVocabulary;

  public void add(TokenCounts other) {
    tokens += other.tokens;
    changed += other.changed;
    outOfVocabulary += other.outOfVocabulary;
  }
}
