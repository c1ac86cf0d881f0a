package dev.dptext.errors;

import java.util.Map;

/** An exception raised from the catalogue: its entry's name and the parameters its message was rendered with. */
public interface Catalogued {
  /** The entry's name, e.g. {@code OUTPUT_EXISTS}. */
  String errorClass();

  /** The parameters the message was rendered with, by name as rendered (names, paths, numbers, settings: never row text). */
  Map<String, String> parameters();
}
