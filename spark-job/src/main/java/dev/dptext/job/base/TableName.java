package dev.dptext.job.base;

import java.io.IOException;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;

/**
 * Whether an {@code --input}, {@code --output} or {@code --rejects} value names a catalog table
 * ({@code main.support.tickets}, {@code support.tickets}, as Databricks users address them) or a path.
 *
 * <p>The rule, in this order: a value with a {@code /}, a {@code \}, a scheme ({@code s3:}) or a
 * leading {@code .} is a path; a value that exists as a file or directory is a path (so a relative
 * {@code tickets.jsonl} stays one); a value of two or three dot-separated SQL identifiers whose
 * namespace (schema, or catalog and schema) exists in the session's catalog is a table name; anything
 * else is a path. A single bare word is a path, as it always was (write {@code default.tickets} for the
 * table). The run's summary says which one was meant.
 */
public final class TableName {
  /** An unquoted identifier part, or a backquoted one. */
  private static final String PART = "(?:[A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)";
  private static final Pattern NAME = Pattern.compile(PART + "(?:\\." + PART + "){1,2}");
  private static final Pattern PATH_LIKE = Pattern.compile("^\\.|[/\\\\]|^[A-Za-z][A-Za-z0-9+.-]*:");

  private TableName() {}

  /** Whether {@code value} names a catalog table in {@code spark}'s catalog (see the class comment). */
  public static boolean is(SparkSession spark, String value) {
    if (value == null || PATH_LIKE.matcher(value).find() || !NAME.matcher(value).matches()) {
      return false;
    }
    try {
      if (dev.dptext.runtime.Storage.of(spark, value).exists(value)) {
        return false;
      }
    } catch (IOException | IllegalArgumentException e) {
      // Not reachable as a path: decided by the catalog.
    }
    int lastDot = lastUnquotedDot(value);
    return spark.catalog().databaseExists(value.substring(0, lastDot));
  }

  /** The position of the dot before the table part. */
  private static int lastUnquotedDot(String value) {
    boolean quoted = false;
    int last = -1;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '`') {
        quoted = !quoted;
      } else if (c == '.' && !quoted) {
        last = i;
      }
    }
    return last;
  }
}
