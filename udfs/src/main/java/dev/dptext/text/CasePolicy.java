package dev.dptext.text;

import dev.dptext.errors.DpTextErrors;
/** How the case of an input token shapes its output. Lookups are always case-insensitive. */
public enum CasePolicy {
  /** Default. Output words are spelled as in the vocabulary (lower case for GloVe): nothing leaks. */
  VOCABULARY,
  /**
   * Opt-in: the output copies the input token's case pattern (ALL CAPS or Capitalised). The pattern is
   * emitted verbatim, outside the guarantee: it can reveal, for example, that the input was a name.
   */
  RESTORE;

  public static CasePolicy parse(String name) {
    for (CasePolicy p : values()) {
      if (p.name().equalsIgnoreCase(name)) {
        return p;
      }
    }
    throw DpTextErrors.error("CASE_POLICY_UNKNOWN", "value", name);
  }
}
