package dev.dptext.job.base;

/**
 * A model whose reading needs a class this program's classpath lacks (a {@code NoClassDefFoundError}: e.g. a Spark
 * Connect client's classpath, a Databricks serverless JAR task's, which has neither Hadoop nor Spark's linear
 * algebra): the job's one line and exit 2, a configuration no retry fixes, instead of a stack trace.
 */
public final class MissingClass {
  private MissingClass() {}

  /** The failure to report for the model {@code source}, whose reading threw {@code e}. */
  public static JobException model(String source, LinkageError e) {
    String missing = String.valueOf(e.getMessage()).replace('/', '.');
    return new JobException(ExitCode.USAGE, "The model " + source + " cannot be loaded by this program: reading it "
        + "needs the class " + missing + " (" + e.getClass().getSimpleName() + "), which is not on this program's "
        + "classpath (a Spark Connect client's, e.g. a Databricks serverless JAR task's, holds only the client's "
        + "libraries and dptext's jar). Run it with a classic Spark session, or give a model this classpath reads "
        + "(a GloVe/.vec file, or default)");
  }
}
