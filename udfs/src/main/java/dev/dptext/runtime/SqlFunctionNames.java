package dev.dptext.runtime;

/**
 * The names a Spark session knows dptext's SQL functions by, and the class of the session extension
 * that registers them.
 *
 * <p>Why here: the Spark Connect route ({@link ServerSanitizer}) calls the server's functions by name and
 * names the extension in its messages, and it sits below the public API that declares them
 * ({@code dev.dptext.spark.DpText#SQL_FUNCTION}, which is this constant). The extension's class is
 * written out rather than taken from the class itself for the same reason; a test checks the two agree.
 */
public final class SqlFunctionNames {
  private SqlFunctionNames() {}

  /** {@code dp_sanitize(text[, id][, options])}. */
  public static final String SANITIZE = "dp_sanitize";

  /** {@code dp_sanitize_counted(text[, id][, options])}: the text with the row's token counts. */
  public static final String SANITIZE_COUNTED = "dp_sanitize_counted";

  /** The value of {@code spark.sql.extensions} that registers both ({@code dev.dptext.spark.DpTextExtensions}). */
  public static final String EXTENSIONS = "dev.dptext.spark.DpTextExtensions";
}
