package dev.dptext.job.model;

import dev.dptext.embedding.EmbeddingFormatException;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.knn.RowLengths;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.model.PartitionedModel;
import dev.dptext.classic.partitioned.EmbeddingsText;
import dev.dptext.classic.partitioned.PartitionedModelBuilder;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.ModelLayout;
import dev.dptext.settings.Settings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;

/** {@code build-model} with a partitioned layout: the model built over Spark partitions into a directory. */
public final class PartitionedBuild {
  private PartitionedBuild() {}

  /**
   * Whether the layout setting asks for a partitioned model: partitioned, or auto with an embeddings file
   * whose text exceeds the broadcast limit (text is about 2.5× its float vectors, so this errs towards
   * broadcast).
   */
  public static boolean chosen(SparkSession spark, DpTextOptions o) {
    ModelLayout layout = ModelLayout.parse(o.get(Settings.MODEL_LAYOUT));
    String source = o.get(Settings.MODEL);
    if (layout == ModelLayout.BROADCAST || source.equals(EmbeddedDefault.NAME)) {
      if (layout == ModelLayout.PARTITIONED) {
        throw JobException.of("MODEL_DEFAULT_NOT_PARTITIONED", "setting", Settings.MODEL_LAYOUT.cliName() + " ("
            + Settings.MODEL_LAYOUT.confKey() + ")");
      }
      return false;
    }
    if (layout == ModelLayout.PARTITIONED) {
      return true;
    }
    try {
      Path p = new Path(source);
      long bytes = p.getFileSystem(dev.dptext.runtime.HadoopConf.of(spark)).getFileStatus(p).getLen();
      return layout.partitioned(bytes / 2);
    } catch (IOException e) {
      return false; // the broadcast loader reports a missing file with its own message
    }
  }

  public static int run(SparkSession spark, DpTextOptions o, String output, List<Double> sensitiveFractions,
      boolean tablesOnDemand, long t0) {
    String source = o.get(Settings.MODEL);
    PartitionedModel model;
    try {
      model = PartitionedModelBuilder.build(spark, EmbeddingsText.read(spark, source, o.get(Settings.VOCAB_SIZE)),
          output, RowLengths.tiered(o.get(Settings.NEIGHBOURS)), n -> {
            List<Integer> tables = new ArrayList<>(List.of(0));
            for (double w : sensitiveFractions) {
              int start = SanTextPlus.sensitiveStart(n, w);
              if (!tables.contains(start)) {
                tables.add(start);
              }
            }
            return tables;
          }, tablesOnDemand, 0, Map.of("source", source));
    } catch (EmbeddingFormatException e) {
      throw JobException.wrap(ExitCode.INPUT, e);
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
    System.out.printf(Locale.ROOT,
        "dptext partitioned model written to %s: %,d words × %d dims, K=%d, %d shards, %s, sha256 %s, %.1f s%n",
        output, model.size(), model.dim(), model.rowLengths().k(), model.shards(),
        model.tablesOnDemand() ? "neighbour tables on demand (computed by each run for the words it uses)"
            : model.tables().size() + " neighbour table(s)",
        model.hash(), (System.nanoTime() - t0) / 1e9);
    return 0;
  }
}
