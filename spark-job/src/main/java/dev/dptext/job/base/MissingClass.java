package dev.dptext.job.base;

/**
 * A model whose reading needs a class this program's classpath lacks (a {@code NoClassDefFoundError}: e.g. a Spark
 * Connect client's classpath, a Databricks serverless JAR task's, which has neither Hadoop nor Spark's linear
 * algebra): the job's one line and exit 2, a configuration no retry fixes, instead of a stack trace. The same for
 * any class a command needs that the classpath lacks ({@link #command}).
 */
public final class MissingClass {
  private MissingClass() {}

  /** The failure to report for the model {@code source}, whose reading threw {@code e}. */
  public static JobException model(String source, LinkageError e) {
    return JobException.of("MODEL_NEEDS_MISSING_CLASS", "model", source, "class", className(e), "error",
        e.getClass().getSimpleName());
  }

  /**
   * A class this program's classpath lacks, found while a command ran (picocli lets errors through), outside the
   * model's reading: the class, and where dptext needed it.
   */
  public static JobException command(NoClassDefFoundError e) {
    String where = "";
    for (StackTraceElement f : e.getStackTrace()) {
      if (f.getClassName().startsWith("dev.dptext.")) {
        where = " in " + f.getClassName() + "." + f.getMethodName();
        break;
      }
    }
    return JobException.of("CLASSPATH_MISSING_CLASS", "class", className(e), "where", where);
  }

  private static String className(LinkageError e) {
    return String.valueOf(e.getMessage()).replace('/', '.');
  }
}
