package dev.dptext.text;

import dev.dptext.errors.DpTextErrors;
/**
 * What happens to a token that is not in the vocabulary. The mechanisms' guarantees cover
 * vocabulary words only; an out-of-vocabulary (OOV) token needs a policy of its own.
 */
public enum OovPolicy {
  /**
   * Default. Replace it by a word drawn uniformly from the mechanism's output vocabulary. The output
   * carries no information about which OOV word it was, nor (beyond the distribution of outputs) that
   * it was OOV at all.
   */
  RANDOM,
  /**
   * Replace it by a fixed placeholder (default {@code <unk>}). Reveals that the token was out of
   * vocabulary, nothing else.
   */
  PLACEHOLDER,
  /**
   * UNSAFE opt-in: emit the token verbatim. OOV tokens are often names, e-mail addresses, numbers and
   * misspellings — exactly what identifies people — and this emits them with no protection at all.
   */
  KEEP;

  /** Parses a policy name, case-insensitively, with an error that lists the valid names. */
  public static OovPolicy parse(String name) {
    for (OovPolicy p : values()) {
      if (p.name().equalsIgnoreCase(name)) {
        return p;
      }
    }
    throw DpTextErrors.error("OOV_POLICY_UNKNOWN", "value", name);
  }
}
