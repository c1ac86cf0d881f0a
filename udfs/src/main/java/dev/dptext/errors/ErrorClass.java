package dev.dptext.errors;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One entry of the catalogue: its name, its exit category, its message template and its fix. Templates name
 * their parameters in angle brackets ({@code Output <path> exists.}); the fix may name parameters too.
 */
public record ErrorClass(String name, Exit exit, String message, String fix) {
  /** A parameter in a template. */
  static final Pattern PARAMETER = Pattern.compile("<([a-zA-Z][a-zA-Z0-9]*)>");

  /** The parameters the message and the fix name, in order of first use. */
  public Set<String> parameters() {
    Set<String> names = new LinkedHashSet<>();
    for (String template : new String[] {message, fix}) {
      Matcher m = PARAMETER.matcher(template);
      while (m.find()) {
        names.add(m.group(1));
      }
    }
    return names;
  }
}
