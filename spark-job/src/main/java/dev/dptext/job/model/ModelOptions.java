package dev.dptext.job.model;

import dev.dptext.embedding.EmbeddingFormatException;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.model.DpTextModel;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.runtime.ModelLoader;
import dev.dptext.runtime.Storage;
import dev.dptext.settings.Settings;
import org.apache.spark.sql.SparkSession;

/** Loads the model that the settings {@link Settings#MODEL_SETTINGS} name, for every command that needs one. */
public final class ModelOptions {
  private ModelOptions() {}

  /**
   * Loads (or finds in the JVM's cache) the model; a bad one is an input error, one this program's classpath cannot
   * read ({@link #missingClass}) a configuration error.
   */
  public static DpTextModel load(SparkSession spark, DpTextOptions options) {
    try {
      return ModelLoader.load(spark, options.get(Settings.MODEL), options.get(Settings.VOCAB_SIZE),
          options.get(Settings.NEIGHBOURS));
    } catch (Storage.Unreachable e) {
      throw e; // a path this deployment cannot reach: the job's usage error
    } catch (IllegalArgumentException | EmbeddingFormatException e) {
      throw new JobException(ExitCode.INPUT, e.getMessage());
    } catch (LinkageError e) {
      throw missingClass(options.get(Settings.MODEL), e);
    }
  }

  /**
   * A model whose reading needs a class this program's classpath lacks (a {@code NoClassDefFoundError}: e.g. a
   * Spark Connect client's classpath, a Databricks serverless JAR task's, which has neither Hadoop nor Spark's
   * linear algebra): the job's one line and exit 2, a configuration no retry fixes, instead of a stack trace.
   */
  public static JobException missingClass(String source, LinkageError e) {
    String missing = String.valueOf(e.getMessage()).replace('/', '.');
    return new JobException(ExitCode.USAGE, "The model " + source + " cannot be loaded by this program: reading it "
        + "needs the class " + missing + " (" + e.getClass().getSimpleName() + "), which is not on this program's "
        + "classpath (a Spark Connect client's, e.g. a Databricks serverless JAR task's, holds only the client's "
        + "libraries and dptext's jar). Run it with a classic Spark session, or give a model this classpath reads "
        + "(a GloVe/.vec file, or default)");
  }

  /** The model's hash for the audit, read from the manifest for a partitioned model (never loading its vectors). */
  public static String hash(SparkSession spark, DpTextOptions options) {
    dev.dptext.model.PartitionedModel p = dev.dptext.runtime.ModelLoader.partitioned(spark, options);
    return p != null ? p.hash() : load(spark, options).hash();
  }
}
