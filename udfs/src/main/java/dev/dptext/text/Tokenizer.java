package dev.dptext.text;

import dev.dptext.embedding.Vocabulary;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Splits text into word tokens and the whitespace between them, so that the text can be rebuilt with
 * its layout intact.
 *
 * <p>Rules, applied to each maximal run of non-whitespace characters:
 *
 * <ol>
 *   <li>Atoms: a run of letters, digits and combining marks is one atom; every other character
 *       (punctuation, symbols, emoji) forms an atom with the identical characters that follow it
 *       ({@code ...}, {@code !!}).
 *   <li>Vocabulary merges: {@code word<c>word} with c one of {@code ' ’ - . , / :} becomes one token
 *       when the joined form is a vocabulary word ({@code well-known}, {@code 3.5}, {@code o'clock}).
 *   <li>English clitics as GloVe's tokenizer splits them: {@code don't → do n't}, {@code it's → it 's},
 *       {@code we're → we 're} (also 'll 've 'm 'd).
 *   <li>Everything else is one token per atom: {@code "Hello," → "Hello" ","}.
 * </ol>
 *
 * Lookup is case-insensitive (exact form first, then lower case) and treats ’ as '. Whitespace is
 * never a token and is copied verbatim by the sanitizer.
 */
public final class Tokenizer {
  private static final String CONNECTORS = "'’-.,/:";

  private final ToIntFunction<String> vocabulary;
  /** The vocabulary itself when given, for looking ASCII atoms up in place; else null. */
  private final Vocabulary words;

  /** @param vocabulary maps a word to its rank, or -1 when it is not in the vocabulary */
  public Tokenizer(ToIntFunction<String> vocabulary) {
    this.vocabulary = vocabulary;
    this.words = null;
  }

  /** Over a vocabulary, which looks ASCII atoms up where they stand in the text ({@link #tokenizeInPlace}). */
  public Tokenizer(Vocabulary vocabulary) {
    this.vocabulary = vocabulary::indexOf;
    this.words = vocabulary;
  }

  /** One token: its surface text as it appears in the input and its rank (-1 if OOV). */
  public record Token(String surface, int rank) {}

  /** The rank of a surface form: exact, then lower case, with ’ read as '. */
  public int rank(String surface) {
    String s = surface.indexOf('’') >= 0 ? surface.replace('’', '\'') : surface;
    int r = vocabulary.applyAsInt(s);
    if (r < 0) {
      String lower = s.toLowerCase(java.util.Locale.ROOT);
      if (!lower.equals(s)) {
        r = vocabulary.applyAsInt(lower);
      }
    }
    return r;
  }

  /** Receives the tokens of a run as offsets into its text. */
  interface TokenSink {
    void token(int start, int end, int rank);
  }

  /**
   * Tokenizes the run {@code text[from, to)} of ASCII characters with at most one word atom (a run of
   * letters and digits), such as {@code movie}, {@code film.} or {@code <br}: what {@link #tokenize}
   * gives for it, without cutting strings out of the text when the tokenizer has the vocabulary. Its
   * tokens are its atoms, since a merge and a clitic each join two word atoms (the caller has counted
   * the run's word atoms).
   */
  void tokenizeInPlace(String text, int from, int to, TokenSink sink) {
    int i = from;
    while (i < to) {
      char c = text.charAt(i);
      int j = i + 1;
      boolean upper = c >= 'A' && c <= 'Z';
      if (isAsciiLetterOrDigit(c)) {
        while (j < to && isAsciiLetterOrDigit(text.charAt(j))) {
          char d = text.charAt(j++);
          upper |= d >= 'A' && d <= 'Z';
        }
      } else {
        while (j < to && text.charAt(j) == c) {
          j++;
        }
      }
      sink.token(i, j, rankInPlace(text, i, j, upper));
      i = j;
    }
  }

  /**
   * {@link #rank} of the ASCII atom {@code text[from, to)}. The rule is rank's: ASCII has no ’ to read
   * as ', and an atom's lower case differs from it exactly when it has a letter A–Z, the only letters
   * lower-casing changes.
   */
  private int rankInPlace(String text, int from, int to, boolean hasUpperCase) {
    if (words == null) {
      return rank(text.substring(from, to));
    }
    int r = words.indexOf(text, from, to, false);
    if (r < 0 && hasUpperCase) {
      r = words.indexOf(text, from, to, true);
    }
    return r;
  }

  /** Every token of a whole text, splitting at whitespace exactly as {@link TextSanitizer} does. */
  public void forEachToken(String text, java.util.function.Consumer<Token> sink) {
    int n = text.length();
    int i = 0;
    while (i < n) {
      while (i < n && isSpace(text.codePointAt(i))) {
        i += Character.charCount(text.codePointAt(i));
      }
      int j = i;
      while (j < n && !isSpace(text.codePointAt(j))) {
        j += Character.charCount(text.codePointAt(j));
      }
      if (j > i) {
        tokenize(text.substring(i, j)).forEach(sink);
      }
      i = j;
    }
  }

  /** Tokenizes one run of non-whitespace characters (a "word" in the everyday sense). */
  public List<Token> tokenize(String run) {
    if (isAsciiLettersAndDigits(run)) {
      // Most runs are one plain word: a single atom, with nothing to merge or split (what the general
      // rules below give for it, without building the atom list).
      return List.of(new Token(run, rank(run)));
    }
    return tokenizeAtoms(run);
  }

  /** The rules above, for any run (the general path; {@link #tokenize} skips it for plain words). */
  List<Token> tokenizeAtoms(String run) {
    List<String> atoms = atoms(run);
    List<Token> out = new ArrayList<>(atoms.size());
    int i = 0;
    while (i < atoms.size()) {
      String atom = atoms.get(i);
      if (!isWordAtom(atom)) {
        out.add(new Token(atom, rank(atom)));
        i++;
        continue;
      }
      // Longest vocabulary merge word<c>word<c>word...
      int end = i;
      String merged = atom;
      String candidate = atom;
      for (int j = i; j + 2 < atoms.size() && isConnector(atoms.get(j + 1)) && isWordAtom(atoms.get(j + 2)); j += 2) {
        candidate = candidate + atoms.get(j + 1) + atoms.get(j + 2);
        if (rank(candidate) >= 0) {
          merged = candidate;
          end = j + 2;
        }
      }
      if (end > i) {
        out.add(new Token(merged, rank(merged)));
        i = end + 1;
        continue;
      }
      if (i + 2 < atoms.size() && isApostrophe(atoms.get(i + 1)) && isWordAtom(atoms.get(i + 2))) {
        String suffix = atoms.get(i + 2);
        String lower = suffix.toLowerCase(java.util.Locale.ROOT);
        if (lower.equals("t") && atom.length() > 1 && Character.toLowerCase(atom.charAt(atom.length() - 1)) == 'n') {
          String stem = atom.substring(0, atom.length() - 1);
          String clitic = atom.substring(atom.length() - 1) + atoms.get(i + 1) + suffix;
          out.add(new Token(stem, rank(stem)));
          out.add(new Token(clitic, rank(clitic)));
          i += 3;
          continue;
        }
        if (lower.equals("s") || lower.equals("re") || lower.equals("ll") || lower.equals("ve")
            || lower.equals("m") || lower.equals("d")) {
          String clitic = atoms.get(i + 1) + suffix;
          out.add(new Token(atom, rank(atom)));
          out.add(new Token(clitic, rank(clitic)));
          i += 3;
          continue;
        }
      }
      out.add(new Token(atom, rank(atom)));
      i++;
    }
    return out;
  }

  private static boolean isAsciiLettersAndDigits(String run) {
    int n = run.length();
    for (int i = 0; i < n; i++) {
      if (!isAsciiLetterOrDigit(run.charAt(i))) {
        return false;
      }
    }
    return n > 0;
  }

  /**
   * A word character of ASCII: a run made only of these is one token, {@code rank(run)} (the short path
   * of {@link #tokenize}); {@link TextSanitizer} counts the word atoms of ASCII runs with it.
   */
  static boolean isAsciiLetterOrDigit(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  private static List<String> atoms(String run) {
    List<String> atoms = new ArrayList<>();
    int n = run.length();
    int i = 0;
    while (i < n) {
      int cp = run.codePointAt(i);
      int j = i + Character.charCount(cp);
      if (isWordChar(cp)) {
        while (j < n && isWordChar(run.codePointAt(j))) {
          j += Character.charCount(run.codePointAt(j));
        }
      } else {
        while (j < n && run.codePointAt(j) == cp) {
          j += Character.charCount(cp);
        }
      }
      atoms.add(run.substring(i, j));
      i = j;
    }
    return atoms;
  }

  /**
   * Whitespace for layout purposes: Java whitespace plus the no-break spaces (U+00A0, U+2007, U+202F),
   * which separate words just as well and must not become tokens.
   */
  public static boolean isSpace(int cp) {
    if (cp < 0x80) {
      // What the two calls below answer for ASCII (tab to carriage return, the four separators 0x1C–0x1F,
      // space), without their table lookups: nearly every character of a text is ASCII.
      return cp == ' ' || (cp >= '\t' && cp <= '\r') || (cp >= 0x1C && cp <= 0x1F);
    }
    return Character.isWhitespace(cp) || Character.isSpaceChar(cp);
  }

  static boolean isWordChar(int cp) {
    if (cp < 0x80) {
      return isAsciiLetterOrDigit(cp); // no ASCII character is a combining mark
    }
    if (Character.isLetterOrDigit(cp)) {
      return true;
    }
    int type = Character.getType(cp);
    return type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK
        || type == Character.ENCLOSING_MARK;
  }

  private static boolean isWordAtom(String atom) {
    return isWordChar(atom.codePointAt(0));
  }

  private static boolean isConnector(String atom) {
    return atom.length() == 1 && CONNECTORS.indexOf(atom.charAt(0)) >= 0;
  }

  private static boolean isApostrophe(String atom) {
    return atom.equals("'") || atom.equals("’");
  }
}
