package dev.dptext.bench;

import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowLengths;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;

/**
 * The model build's SanText neighbour table alone: {@link NeighbourSearch#compute} over the first V
 * GloVe words (targets = the whole vocabulary, the build's tiered rows of K = 64), on a pool of the
 * given number of threads, timed from the call to the table. Uses only API that every version of
 * {@code NeighbourSearch} has, so that scripts/bench/model-build.sh can run it on the BLAS build too.
 * Prints seconds, a digest of the rows and one of the bounds; can dump the table and compare two dumps.
 *
 * <p>Usage: {@code ModelBuildBenchmark <glove.txt> <V> <threads> [repeats=1] [dump file]}, or
 * {@code ModelBuildBenchmark compare <dump a> <dump b>}.
 */
public final class ModelBuildBenchmark {
  public static void main(String[] args) throws Exception {
    if (args[0].equals("compare")) {
      compare(Path.of(args[1]), Path.of(args[2]));
      return;
    }
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[1])).read(Path.of(args[0]));
    int threads = Integer.parseInt(args[2]);
    int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 1;
    RowLengths rows = RowLengths.tiered(64);
    System.out.println("scores: " + scoring(emb));
    ForkJoinPool pool = new ForkJoinPool(threads);
    NeighbourTable table = null;
    for (int r = 0; r < repeats; r++) {
      long t0 = System.nanoTime();
      table = pool.submit(() -> NeighbourSearch.compute(emb, 0, rows)).get();
      double s = (System.nanoTime() - t0) / 1e9;
      System.out.printf(Locale.ROOT, "V=%,d m=%d threads=%d run %d: %.2f s (%.1f GFLOP/s for the products)"
          + "  rows %s  bounds %s%n", emb.size(), emb.dim(), threads, r + 1, s,
          2.0 * emb.size() * emb.size() * (emb.dim() + 1) / s / 1e9, digest(table.rawNeighbours()),
          digest(table.rawOutsideBounds()));
    }
    pool.shutdown();
    if (args.length > 4) {
      try (DataOutputStream out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(Path.of(args[4]))))) {
        int[] o = table.rawOffsets();
        int[] nb = table.rawNeighbours();
        double[] b = table.rawOutsideBounds();
        out.writeInt(b.length);
        for (int v : o) {
          out.writeInt(v);
        }
        for (int v : nb) {
          out.writeInt(v);
        }
        for (double v : b) {
          out.writeDouble(v);
        }
      }
    }
  }

  /**
   * What scores the products in this build: NearestWords's kernel where NeighbourSearch takes a backend
   * (this build), else BLAS SGEMM (earlier builds).
   */
  private static String scoring(Embeddings emb) {
    try {
      NeighbourSearch.class.getMethod("compute", Embeddings.class, int.class, RowLengths.class,
          dev.dptext.knn.NearestWords.Backend.class);
      return "NearestWords's score kernel, " + new dev.dptext.knn.NearestWords(emb.topWords(Math.min(64, emb.size())))
          .describeKernel();
    } catch (NoSuchMethodException | NoClassDefFoundError e) {
      return "BLAS sgemm, " + dev.ludovic.netlib.blas.BLAS.getInstance().getClass().getSimpleName();
    }
  }

  private static String digest(int[] a) throws Exception {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    for (int v : a) {
      md.update(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }
    return HexFormat.of().formatHex(md.digest()).substring(0, 12);
  }

  private static String digest(double[] a) throws Exception {
    long[] bits = new long[a.length];
    int[] ints = new int[2 * a.length];
    for (int i = 0; i < a.length; i++) {
      bits[i] = Double.doubleToLongBits(a[i]);
      ints[2 * i] = (int) (bits[i] >>> 32);
      ints[2 * i + 1] = (int) bits[i];
    }
    return digest(ints);
  }

  private record Dump(int[] offsets, int[] neighbours, double[] bounds) {
    static Dump read(Path p) throws Exception {
      try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(p)))) {
        int n = in.readInt();
        int[] o = new int[n + 1];
        for (int i = 0; i <= n; i++) {
          o[i] = in.readInt();
        }
        int[] nb = new int[o[n]];
        for (int i = 0; i < nb.length; i++) {
          nb[i] = in.readInt();
        }
        double[] b = new double[n];
        for (int i = 0; i < n; i++) {
          b[i] = in.readDouble();
        }
        return new Dump(o, nb, b);
      }
    }
  }

  /** Rows that differ, bounds that differ and by how much (relative). */
  private static void compare(Path pa, Path pb) throws Exception {
    Dump a = Dump.read(pa);
    Dump b = Dump.read(pb);
    int n = a.bounds.length;
    int rowsDiffer = 0;
    int boundsDiffer = 0;
    double maxRel = 0;
    for (int x = 0; x < n; x++) {
      boolean same = a.offsets[x + 1] - a.offsets[x] == b.offsets[x + 1] - b.offsets[x];
      for (int j = a.offsets[x]; same && j < a.offsets[x + 1]; j++) {
        same = a.neighbours[j] == b.neighbours[j - a.offsets[x] + b.offsets[x]];
      }
      rowsDiffer += same ? 0 : 1;
      if (Double.doubleToLongBits(a.bounds[x]) != Double.doubleToLongBits(b.bounds[x])) {
        boundsDiffer++;
        maxRel = Math.max(maxRel, Math.abs(a.bounds[x] - b.bounds[x]) / Math.max(a.bounds[x], b.bounds[x]));
      }
    }
    System.out.printf(Locale.ROOT, "%,d words: %d rows differ, %d bounds differ (largest relative difference %.2e)%n",
        n, rowsDiffer, boundsDiffer, maxRel);
  }
}
