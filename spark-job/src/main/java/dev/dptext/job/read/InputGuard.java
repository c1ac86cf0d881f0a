package dev.dptext.job.read;

import dev.dptext.classic.RowCounter;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;

/**
 * The input check of a run carried out by the write's own read of the input, instead of a separate
 * counting pass before it: a filter that passes every sanitizable row, fails the task that reads a
 * rejected one (a malformed record, or text with a null id), and counts the rows it passes.
 *
 * <p>It is used only where a failed check cannot leave anything written
 * ({@link dev.dptext.job.sanitize.BatchSanitize} decides): the check runs in the map stage of the
 * shuffle that spreads the input over the cores, and Spark starts the stage that sanitizes and writes
 * only after every map task has finished, so a rejected record fails the run before any file is
 * written. The failure carries a constant message (never a record's content); the run then counts the
 * input to report what was rejected, as the separate pass would have.
 *
 * <p>On Spark Connect ({@link #onConnect}) the check is SQL's {@code raise_error} and the count the server's.
 *
 * <p>The row count is exact although it is taken inside a transformation: it is kept per partition of
 * the map stage and a partition's count replaces, not adds to, the count of an earlier attempt, so a
 * map task re-run after a lost shuffle file (the same rows again) is not counted twice, and a failed
 * attempt's count is never merged (Spark merges accumulators of successful tasks only).
 */
public final class InputGuard {
  /** The message of the failure a rejected row causes; constant, so no record content can reach it. */
  public static final String REJECTED = "dptext input check: a malformed record, or a row with text and a null id";

  private final RowCounter rows;
  private final UserDefinedFunction check;

  private InputGuard() {
    this.rows = null;
    this.check = null;
  }

  /**
   * A guard for a Spark Connect client, which has neither UDFs of its own classes nor accumulators: the check
   * is SQL's {@code raise_error}, and the rows are counted by the server where they are sanitized
   * ({@link dev.dptext.runtime.ServerSanitizer#rowsSanitized}), not here ({@link #rowsIn} is unsupported).
   */
  public static InputGuard onConnect() {
    return new InputGuard();
  }

  /** A guard for a classic session (its row count is an accumulator, which a Spark Connect client has not). */
  public InputGuard(org.apache.spark.sql.SparkSession spark) {
    this.rows = dev.dptext.classic.ClassicContext.rowCounter(spark, "dptext rows in (checked in the write)");
    RowCounter counter = rows;
    UDF2<Boolean, Boolean, Boolean> body = (malformed, nullId) -> {
      if (Boolean.TRUE.equals(malformed) || Boolean.TRUE.equals(nullId)) {
        throw new Rejected();
      }
      counter.addRow();
      return Boolean.TRUE;
    };
    // Nondeterministic: the optimizer must neither move the check past another filter (a row that
    // --where removes must not be counted) nor evaluate it twice.
    this.check = functions.udf(body, DataTypes.BooleanType).asNondeterministic().withName("dptext_input_check");
  }

  /** The filter: true for a row to sanitize; fails the task for a rejected row. */
  Column passes(Column malformed, Column nullId) {
    if (check == null) {
      // A null flag passes, as in the classic check (Boolean.TRUE.equals).
      return functions.when(malformed.or(nullId), functions.raise_error(functions.lit(REJECTED)))
          .otherwise(functions.lit(true));
    }
    return check.apply(malformed, nullId);
  }

  /** The rows that passed, once the write has run (a classic session's guard). */
  public long rowsIn() {
    if (rows == null) {
      throw new IllegalStateException("A Spark Connect guard does not count: the server counts the rows it sanitizes");
    }
    return rows.rows();
  }

  /** Thrown in a task for a row that cannot be sanitized. */
  public static final class Rejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public Rejected() {
      super(REJECTED, null, false, false);
    }
  }
}
