package dev.dptext.job;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;
import scala.tools.nsc.Settings;
import scala.tools.nsc.interpreter.IMain;
import scala.tools.nsc.interpreter.Results;
import scala.tools.nsc.interpreter.shell.ReplReporterImpl;

/**
 * The Scala interpreter that runs notebook cells, configured as Spark's own REPL is: the test JVM's
 * classpath ({@code -usejavacp}), class-based line wrappers ({@code -Yrepl-class-based}, so closures
 * capture what they use rather than whole line objects), and class files written to the directory
 * the SparkContext serves to executors ({@code -Yrepl-outdir}, matching
 * {@code spark.repl.class.outputDir}), so closures defined in a cell can run in tasks.
 *
 * <p>One interpreter serves every notebook of the test JVM: its line classes ({@code $line7.$read}…)
 * are numbered across the whole run, and executors cache REPL classes by name, so a second
 * interpreter restarting at {@code $line1} could run stale classes. Each notebook rebinds
 * {@code spark} to its own session; definitions of earlier notebooks stay visible, which a notebook
 * relying on them would get away with here but not on Databricks.
 */
final class ScalaNotebookInterpreter {
  private final StringWriter output = new StringWriter();
  private final IMain interpreter;

  ScalaNotebookInterpreter(Path classDirectory) {
    Settings settings = new Settings();
    settings.processArgumentString("-usejavacp -Yrepl-class-based -Yrepl-outdir " + classDirectory);
    interpreter = new IMain(settings, new ReplReporterImpl(settings, new PrintWriter(output, true)));
  }

  /** Binds {@code spark} and the Databricks stand-ins for the next notebook. */
  void startNotebook(SparkSession spark, java.util.Map<String, String> secretScopes, String standIns) {
    bind("spark", "org.apache.spark.sql.SparkSession", spark);
    bind("databricksSecretsForTests", "java.util.Map[String, String]", secretScopes);
    run(standIns);
  }

  /**
   * Interprets one cell.
   *
   * @return what the interpreter printed
   * @throws IllegalStateException with the interpreter's output (compiler errors, the exception and
   *     its stack trace) when the cell does not compile, is incomplete, or throws
   */
  String run(String code) {
    output.getBuffer().setLength(0);
    Results.Result result = interpreter.interpret(code);
    String printed = output.toString();
    if (result != Results.Success$.MODULE$) {
      String kind = result == Results.Incomplete$.MODULE$ ? "is incomplete" : "failed";
      throw new IllegalStateException("the Scala cell " + kind + ":\n" + printed);
    }
    return printed;
  }

  private void bind(String name, String type, Object value) {
    // @transient as in Spark's REPL: a closure that captures a line must not try to serialize the session.
    Results.Result r = interpreter.bind(name, type, value,
        CollectionConverters.asScala(List.of("@transient")).toList());
    if (r != Results.Success$.MODULE$) {
      throw new IllegalStateException("cannot bind " + name + ":\n" + output);
    }
  }
}
