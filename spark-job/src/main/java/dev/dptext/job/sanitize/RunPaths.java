package dev.dptext.job.sanitize;

import dev.dptext.job.base.JobException;
import dev.dptext.job.write.OutputLocation;
import dev.dptext.job.write.TableWriter;
import dev.dptext.job.write.WriteMode;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * Where a run's paths lie relative to each other ({@code --input}, {@code --output}, {@code --rejects}),
 * checked before anything is read or written: none may hold or lie inside another.
 */
public final class RunPaths {
  private RunPaths() {}

  /**
   * The rejects table holds raw records: it must not be the input or the output, lie inside either
   * (raw records inside the sanitized table's directory, or read again as input) or contain either.
   * Paths are compared resolved (links, {@code file:}, {@code ./}, {@code ..}, slashes).
   */
  public static void checkRejects(SparkSession spark, String rejects, String input, String output,
      String outputFormat) {
    String r = OutputLocation.resolved(spark, rejects);
    String out = OutputLocation.resolved(spark, output);
    if (r.equals(out)) {
      throw JobException.of("REJECTS_ARE_A_RUN_TABLE", "rejects", rejects, "table", "output");
    }
    if (OutputLocation.within(r, out) || OutputLocation.within(out, r)) {
      throw nested(rejects, "--output " + output, r, out);
    }
    for (String in : OutputLocation.resolvedInputs(spark, input)) {
      if (r.equals(in)) {
        throw JobException.of("REJECTS_ARE_A_RUN_TABLE", "rejects", rejects, "table", "input");
      }
      if (OutputLocation.within(r, in) || OutputLocation.within(in, r)) {
        throw nested(rejects, "--input " + input, r, in);
      }
    }
    OutputLocation.inspect(spark, rejects).checkWritable(
        TableWriter.Target.of(rejects, outputFormat, WriteMode.OVERWRITE));
  }

  /**
   * Refuses an output inside the input or an input inside the output (paths resolved: links,
   * {@code file:}, {@code ./}, {@code ..}, slashes), before anything is read or written: a Parquet
   * overwrite of a directory holding the input deletes the raw input, an output written inside an input
   * directory is read back as input next time (and a VACUUM of an input table deletes it), and an input
   * inside a Delta output is deleted by its VACUUM. Not called for the in-place flow
   * ({@link dev.dptext.job.inplace.InPlace}: the output is the input Delta table), which has its own checks.
   */
  public static void checkNesting(SparkSession spark, String input, String output) {
    String out = OutputLocation.resolved(spark, output);
    for (String in : OutputLocation.resolvedInputs(spark, input)) {
      if (in.equals(out)) {
        // Not the in-place flow (InPlace took or refused the same path): a glob of the input matches it.
        throw JobException.of("OUTPUT_IS_THE_INPUT", "output", output, "input", input, "resolved", out);
      }
      if (OutputLocation.within(out, in)) {
        throw JobException.of("OUTPUT_INSIDE_INPUT", "output", output, "input", input, "resolvedOutput", out,
            "resolvedInput", in);
      }
      if (OutputLocation.within(in, out)) {
        throw JobException.of("INPUT_INSIDE_OUTPUT", "input", input, "output", output, "resolvedInput", in,
            "resolvedOutput", out);
      }
    }
  }

  /**
   * Refuses a {@code --ledger} that is, contains or lies inside the input, the output or the rejects table:
   * ledger rows appended there would corrupt that table (or the table would hide the ledger), and a ledger
   * inside a Delta table is deleted by its VACUUM. Links and other spellings are resolved first.
   */
  public static void checkLedger(SparkSession spark, String ledger, String input, String output, String rejects) {
    if (ledger == null) {
      return;
    }
    String at = OutputLocation.resolved(spark, ledger);
    List<String[]> others = new java.util.ArrayList<>();
    for (String in : OutputLocation.resolvedInputs(spark, input)) {
      others.add(new String[] {"--input " + input, in});
    }
    others.add(new String[] {"--output " + output, OutputLocation.resolved(spark, output)});
    if (rejects != null) {
      others.add(new String[] {"--rejects " + rejects, OutputLocation.resolved(spark, rejects)});
    }
    for (String[] o : others) {
      if (at.equals(o[1]) || OutputLocation.within(at, o[1]) || OutputLocation.within(o[1], at)) {
        throw JobException.of("LEDGER_OVERLAP", "ledger", ledger, "other", o[0], "resolved", at, "otherResolved", o[1]);
      }
    }
  }

  /** The rejects inside another of the run's tables ({@code other}, as given), or around it. */
  private static JobException nested(String rejects, String other, String r, String resolvedOther) {
    boolean inside = OutputLocation.within(r, resolvedOther);
    return JobException.of("REJECTS_NEST_WITH_A_RUN_TABLE", "rejects", rejects, "relation",
        inside ? "is inside" : "contains", "other", other, "inner", inside ? r : resolvedOther, "outer",
        inside ? resolvedOther : r);
  }
}
