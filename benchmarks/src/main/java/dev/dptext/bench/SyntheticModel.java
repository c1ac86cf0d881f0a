package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.RowLengths;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.model.PartitionedModel;
import dev.dptext.partitioned.EmbeddingsText;
import dev.dptext.partitioned.PartitionedModelBuilder;
import dev.dptext.random.RandomStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;

/**
 * A SYNTHETIC vocabulary for scale benchmarks beyond real GloVe's 341,479 words, built straight into a
 * partitioned model. Seeded and reproducible; documented as synthetic wherever its figures appear.
 *
 * <p>Structure taken from real vectors: word i's vector is R·(α·g_a + (1 − α)·g_b) + σ·n_i, with g_a,
 * g_b real GloVe 100-d vectors (a drawn with a frequency bias, rank ⌊341,479·u²⌋; b uniform), α ~
 * U(0.5, 1), R a fixed m×100 Gaussian map scaled by 1/√100 (so for m = 300 the vectors lie near a
 * 100-dimensional subspace, with GloVe's clusters and norms), and σ·n_i isotropic noise with σ = 0.1
 * of GloVe's per-coordinate spread. Words are named {@code syn<rank>}; rank order is the public
 * frequency order as for real files. Everything derives from {@code seed}: word i draws from a stream
 * seeded by (seed, i), so the model does not depend on partitioning.
 *
 * <p>Usage: {@code SyntheticModel <glove.6B.100d.txt> <words> <dim> <seed> <out-dir> <tables: none|santext|santext+>
 * [shards]}. Prints the build's wall time.
 */
public final class SyntheticModel {
  public static void main(String[] args) {
    Path glove = Path.of(args[0]);
    int words = Integer.parseInt(args[1]);
    int dim = Integer.parseInt(args[2]);
    long seed = Long.parseLong(args[3]);
    String out = args[4];
    String tables = args[5];
    int shards = args.length > 6 ? Integer.parseInt(args[6]) : 0;
    SparkSession spark = SparkSession.builder().appName("dptext-synthetic").master("local[*]")
        .config("spark.ui.enabled", "false").getOrCreate();
    long t0 = System.nanoTime();
    Embeddings base = EmbeddingReader.all().read(glove);
    float[] source = base.rawVectors();
    int baseDim = base.dim();
    double spread = 0;
    for (float v : source) {
      spread += (double) v * v;
    }
    spread = Math.sqrt(spread / source.length);
    float[] map = new float[dim * baseDim];
    RandomStream r = RandomStream.fromSeed(seed);
    for (int i = 0; i < map.length; i++) {
      map[i] = (float) (gaussian(r) / Math.sqrt(baseDim));
    }
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Broadcast<float[]> sourceB = sc.broadcast(source);
    Broadcast<float[]> mapB = sc.broadcast(map);
    int baseSize = base.size();
    double sigma = 0.1 * spread;
    int slices = Math.max(2, (int) (4L * words * dim / (64L << 20)));
    List<Integer> sliceIds = new ArrayList<>();
    for (int s = 0; s < slices; s++) {
      sliceIds.add(s);
    }
    JavaRDD<Row> rows = sc.parallelize(sliceIds, slices).flatMap(s -> {
      int lo = (int) ((long) words * s / slices);
      int hi = (int) ((long) words * (s + 1) / slices);
      float[] g = sourceB.value();
      float[] m = mapB.value();
      return new Iterator<Row>() {
        int i = lo;

        @Override
        public boolean hasNext() {
          return i < hi;
        }

        @Override
        public Row next() {
          RandomStream w = RandomStream.fromSeed(seed * 0x9E3779B97F4A7C15L + i);
          double u = w.nextDouble();
          int a = (int) (baseSize * u * u);
          int b = w.nextInt(baseSize);
          double alpha = 0.5 + 0.5 * w.nextDouble();
          double[] mixed = new double[baseDim];
          for (int d = 0; d < baseDim; d++) {
            mixed[d] = alpha * g[a * baseDim + d] + (1 - alpha) * g[b * baseDim + d];
          }
          Float[] v = new Float[dim];
          for (int d = 0; d < dim; d++) {
            double x = 0;
            for (int k = 0; k < baseDim; k++) {
              x += m[d * baseDim + k] * mixed[k];
            }
            v[d] = (float) (x + sigma * gaussian(w));
          }
          return RowFactory.create(i, "syn" + (i++), v);
        }
      };
    });
    List<Integer> starts = switch (tables) {
      case "none" -> List.of();
      case "santext" -> List.of(0);
      case "santext+" -> null;
      default -> throw new IllegalArgumentException("tables: none, santext or santext+");
    };
    PartitionedModel model = PartitionedModelBuilder.build(spark, spark.createDataFrame(rows, EmbeddingsText.SCHEMA),
        out, RowLengths.tiered(64), v -> starts != null ? starts : List.of(SanTextPlus.sensitiveStart(v, 0.9)), shards,
        Map.of("source", "SYNTHETIC seed=" + seed + " from GloVe 6B 100-d"));
    System.out.printf(java.util.Locale.ROOT, "synthetic model %s: %,d words × %d dims, %d shards, tables %s, "
        + "sha256 %s, built in %.1f s%n", out, model.size(), model.dim(), model.shards(), model.tables(), model.hash(),
        (System.nanoTime() - t0) / 1e9);
    spark.stop();
  }

  private static double gaussian(RandomStream r) {
    double u1 = 1.0 - r.nextDouble();
    double u2 = r.nextDouble();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
}
