package dev.dptext.job.model;

import dev.dptext.embedding.EmbeddingFormatException;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.job.base.MissingClass;
import dev.dptext.model.DpTextModel;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.runtime.ModelLoader;
import dev.dptext.settings.Settings;
import org.apache.spark.sql.SparkSession;

/** Loads the model that the settings {@link Settings#MODEL_SETTINGS} name, for every command that needs one. */
public final class ModelOptions {
  private ModelOptions() {}

  /**
   * Loads (or finds in the JVM's cache) the model; a bad one is an input error, one this program's classpath cannot
   * read ({@link MissingClass}) a configuration error.
   */
  public static DpTextModel load(SparkSession spark, DpTextOptions options) {
    try {
      return ModelLoader.load(spark, options.get(Settings.MODEL), options.get(Settings.VOCAB_SIZE),
          options.get(Settings.NEIGHBOURS));
    } catch (IllegalArgumentException | EmbeddingFormatException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    } catch (LinkageError e) {
      throw MissingClass.model(options.get(Settings.MODEL), e);
    }
  }

  /** The model's hash for the audit, read from the manifest for a partitioned model (never loading its vectors). */
  public static String hash(SparkSession spark, DpTextOptions options) {
    dev.dptext.model.PartitionedModel p = dev.dptext.runtime.ModelLoader.partitioned(spark, options);
    return p != null ? p.hash() : load(spark, options).hash();
  }
}
