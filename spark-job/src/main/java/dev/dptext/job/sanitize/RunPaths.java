package dev.dptext.job.sanitize;

import dev.dptext.job.base.ExitCode;
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
    String fix = "; rejected records are raw, unsanitized text: give them a path of their own, outside the output "
        + "and the input and not around them (e.g. a sibling of the output, stored like the input)";
    if (r.equals(out)) {
      throw new JobException(ExitCode.USAGE, "--rejects " + rejects + " is the output" + fix);
    }
    if (OutputLocation.within(r, out) || OutputLocation.within(out, r)) {
      throw new JobException(ExitCode.USAGE, "--rejects " + rejects + (OutputLocation.within(r, out)
          ? " is inside --output " + output + realPaths(r, out) : " contains --output " + output + realPaths(out, r))
          + fix);
    }
    for (String in : OutputLocation.resolvedInputs(spark, input)) {
      if (r.equals(in)) {
        throw new JobException(ExitCode.USAGE, "--rejects " + rejects + " is the input" + fix);
      }
      if (OutputLocation.within(r, in) || OutputLocation.within(in, r)) {
        throw new JobException(ExitCode.USAGE, "--rejects " + rejects + (OutputLocation.within(r, in)
            ? " is inside --input " + input + realPaths(r, in) : " contains --input " + input + realPaths(in, r))
            + fix);
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
        throw new JobException(ExitCode.USAGE, "--output " + output + " is read by --input " + input + " (resolved: "
            + out + "): the run would overwrite or append to what it reads. Choose an --output the input does not "
            + "match. Nothing was read or written");
      }
      if (OutputLocation.within(out, in)) {
        throw new JobException(ExitCode.USAGE, "--output " + output + " is inside --input " + input + realPaths(out, in)
            + ": the sanitized table would be written into the raw input (and read back as input by the next run; "
            + "a VACUUM of an input table would delete it). Choose an --output outside the input, e.g. a sibling of "
            + "it. Nothing was read or written");
      }
      if (OutputLocation.within(in, out)) {
        throw new JobException(ExitCode.USAGE, "--input " + input + " is inside --output " + output + realPaths(in, out)
            + ": writing the output there would delete or hide the raw input (a Parquet overwrite deletes the "
            + "directory's files, a Delta VACUUM deletes files the table does not list), and the raw text would sit "
            + "inside the sanitized table's directory. Choose an --output that does not contain the input, or move "
            + "the input out of it first. Nothing was read or written");
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
        throw new JobException(ExitCode.USAGE, "--ledger " + ledger + " is, contains or lies inside " + o[0]
            + " (resolved: " + at + " and " + o[1] + "): the ledger is a table of its own. Give it a path or table "
            + "name of its own, outside the run's tables (docs/ledger.md). Nothing was read or written");
      }
    }
  }

  /** " (resolved: A inside B)": the real paths, which may differ from the spellings given. */
  private static String realPaths(String inner, String outer) {
    return " (resolved: " + inner + " inside " + outer + ")";
  }
}
