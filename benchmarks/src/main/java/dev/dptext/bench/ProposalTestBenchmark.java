package dev.dptext.bench;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.knn.RowDistances;
import dev.dptext.mechanism.CandidateEnvelope;
import dev.dptext.mechanism.ExponentialMechanism;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.ProposalTest;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.RandomStream;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The exponential sampler's proposal test, the scalar {@link Embeddings#squaredDistanceBelow} against
 * the Vector API one of {@link RowDistances#squaredDistanceBelow}, side by side in one JVM, alternating
 * round by round ({@code scripts/bench/proposal-test.sh}):
 *
 * <ol>
 *   <li>the test alone, on the (x, y, limit) triples a SanText+ run of real text asks (recorded once,
 *       untimed): ns per test, and a check that both return the same bits for every triple;
 *   <li>the whole sampling of the tokens (SanText+ through its {@link ProposalTest} entry, the two
 *       routines plugged in as the test, envelopes precomputed): tokens/s, and a check that both draw
 *       the same outputs.
 * </ol>
 *
 * <p>Times are the benchmark thread's CPU time, rounds alternate between the two, and the medians are
 * printed last. Also prints what one proposal's random draws cost ({@link RandomStream#nextUniform()},
 * {@link RandomStream#nextInt(int)}, {@link RandomStream#nextLogUniform()}), for scale.
 *
 * <p>Usage: {@code ProposalTestBenchmark <model.dptext> <reviews.jsonl> <max tokens> [epsilon=3]}.
 */
public final class ProposalTestBenchmark {
  private ProposalTestBenchmark() {}

  private static final int WARM_UP = 3;
  private static final int TIMED = 11;
  private static final java.lang.management.ThreadMXBean THREADS =
      java.lang.management.ManagementFactory.getThreadMXBean();

  /**
   * This thread's CPU time: on a machine shared with other work, wall time counts the other work's
   * time slices too, which made the side-by-side rounds swing by 2× either way.
   */
  private static long cpuNanos() {
    return THREADS.getCurrentThreadCpuTime();
  }

  private static double median(double[] x) {
    double[] s = x.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  public static void main(String[] args) throws Exception {
    Path modelPath = Path.of(args[0]);
    int maxTokens = Integer.parseInt(args[2]);
    double epsilon = args.length > 3 ? Double.parseDouble(args[3]) : 3;
    DpTextModel model;
    try (InputStream in = Files.newInputStream(modelPath)) {
      model = ModelArtifact.read(in, modelPath.toString());
    }
    Embeddings emb = model.embeddings();
    float[] v = emb.rawVectors();
    int dim = emb.dim();
    int[] tokens = SamplerBenchmark.tokenRanks(emb, Path.of(args[1]), maxTokens);
    MechanismSpec spec = MechanismSpec.of("santext+", Map.of("epsilon", epsilon, "w", 0.9, "p", 0.3));
    ExponentialMechanism m = (ExponentialMechanism) spec.build(model);
    NeighbourTable table = model.neighbours(m.targetStart());
    Map<Integer, CandidateEnvelope> envelopes = new HashMap<>();
    for (int x : tokens) {
      envelopes.computeIfAbsent(x, w -> {
        int k = table.rowLength(w);
        int[] row = Arrays.copyOfRange(table.rawNeighbours(), table.rowOffset(w), table.rowOffset(w) + k);
        double[] d = new double[k];
        RowDistances.distances(emb, w, row, 0, k, d, 0);
        return m.envelope(row, d, table.outsideBound(w));
      });
    }
    CandidateEnvelope[] env = new CandidateEnvelope[tokens.length];
    for (int t = 0; t < tokens.length; t++) {
      env[t] = envelopes.get(tokens[t]);
    }
    System.out.printf(Locale.ROOT, "java %s; %s; model %d words × %d; %s; %,d in-vocabulary tokens%n",
        System.getProperty("java.version"), RowDistances.path(), emb.size(), dim, m.name() + " ε=" + epsilon
            + " w=0.9 p=0.3", tokens.length);

    // 1. The triples the sampler asks, in its order.
    int[] xs = new int[1 << 20];
    int[] ys = new int[xs.length];
    double[] limits = new double[xs.length];
    int[] count = {0};
    RandomStream r = RandomStream.fromSeed(1);
    for (int t = 0; t < tokens.length && count[0] < xs.length; t++) {
      int x = tokens[t];
      m.sample(x, env[t], (y, limit) -> {
        if (count[0] < xs.length) {
          xs[count[0]] = x * dim;
          ys[count[0]] = y * dim;
          limits[count[0]++] = limit;
        }
        return Embeddings.squaredDistanceBelow(v, x * dim, v, y * dim, dim, limit) < limit;
      }, r);
    }
    int n = count[0];
    int accepted = 0;
    for (int i = 0; i < n; i++) {
      double s = Embeddings.squaredDistanceBelow(v, xs[i], v, ys[i], dim, limits[i]);
      double w = RowDistances.squaredDistanceBelow(v, xs[i], v, ys[i], dim, limits[i], true);
      if (Double.doubleToRawLongBits(s) != Double.doubleToRawLongBits(w)) {
        throw new AssertionError("triple " + i + ": scalar " + s + ", vector " + w);
      }
      accepted += s < limits[i] ? 1 : 0;
    }
    System.out.printf(Locale.ROOT, "%,d proposal tests (%.2f per token), %.1f%% accepted; both routines return"
        + " the same bits for all%n", n, n / (double) tokens.length, 100.0 * accepted / n);
    System.out.println("| round | scalar ns/test | Vector API ns/test | speed-up |");
    System.out.println("|---:|---:|---:|---:|");
    long sink = 0;
    double[][] testNs = new double[2][TIMED];
    for (int round = 0; round < WARM_UP + TIMED; round++) {
      long t0 = cpuNanos();
      for (int i = 0; i < n; i++) {
        sink += Embeddings.squaredDistanceBelow(v, xs[i], v, ys[i], dim, limits[i]) < limits[i] ? 1 : 0;
      }
      long t1 = cpuNanos();
      for (int i = 0; i < n; i++) {
        sink += RowDistances.squaredDistanceBelow(v, xs[i], v, ys[i], dim, limits[i], true) < limits[i] ? 1 : 0;
      }
      long t2 = cpuNanos();
      if (round >= WARM_UP) {
        testNs[0][round - WARM_UP] = (t1 - t0) / (double) n;
        testNs[1][round - WARM_UP] = (t2 - t1) / (double) n;
        System.out.printf(Locale.ROOT, "| %d | %.1f | %.1f | %.2f× |%n", round, (t1 - t0) / (double) n,
            (t2 - t1) / (double) n, (t1 - t0) / (double) (t2 - t1));
      }
    }
    System.out.printf(Locale.ROOT, "| median | %.1f | %.1f | %.2f× |%n", median(testNs[0]), median(testNs[1]),
        median(testNs[0]) / median(testNs[1]));

    // 2. The whole sampling, each routine as the proposal test.
    ProposalTest[] scalar = new ProposalTest[1];
    ProposalTest[] vector = new ProposalTest[1];
    int[] outScalar = new int[tokens.length];
    int[] outVector = new int[tokens.length];
    System.out.println("| round | scalar test tokens/s | Vector API test tokens/s | speed-up |");
    System.out.println("|---:|---:|---:|---:|");
    double[][] rates = new double[2][TIMED];
    for (int round = 0; round < WARM_UP + TIMED; round++) {
      RandomStream rs = RandomStream.fromSeed(100 + round);
      long t0 = cpuNanos();
      for (int t = 0; t < tokens.length; t++) {
        int xo = tokens[t] * dim;
        scalar[0] = (y, limit) -> Embeddings.squaredDistanceBelow(v, xo, v, y * dim, dim, limit) < limit;
        outScalar[t] = m.sample(tokens[t], env[t], scalar[0], rs);
      }
      long t1 = cpuNanos();
      RandomStream rv = RandomStream.fromSeed(100 + round);
      for (int t = 0; t < tokens.length; t++) {
        int xo = tokens[t] * dim;
        vector[0] = (y, limit) -> RowDistances.squaredDistanceBelow(v, xo, v, y * dim, dim, limit, true) < limit;
        outVector[t] = m.sample(tokens[t], env[t], vector[0], rv);
      }
      long t2 = cpuNanos();
      if (!Arrays.equals(outScalar, outVector) || !Arrays.equals(rs.state(), rv.state())) {
        throw new AssertionError("round " + round + ": the two tests drew different outputs");
      }
      if (round >= WARM_UP) {
        rates[0][round - WARM_UP] = tokens.length / ((t1 - t0) / 1e9);
        rates[1][round - WARM_UP] = tokens.length / ((t2 - t1) / 1e9);
        System.out.printf(Locale.ROOT, "| %d | %,.0f | %,.0f | %.2f× |%n", round, tokens.length / ((t1 - t0) / 1e9),
            tokens.length / ((t2 - t1) / 1e9), (t1 - t0) / (double) (t2 - t1));
      }
    }
    System.out.printf(Locale.ROOT, "| median | %,.0f | %,.0f | %.2f× |%n", median(rates[0]), median(rates[1]),
        median(rates[1]) / median(rates[0]));
    System.out.println("outputs identical in every round (and the streams end in the same state)");

    // 3. One proposal's draws, for scale.
    RandomStream d = RandomStream.fromSeed(3);
    int targets = emb.size() - m.targetStart();
    double acc = 0;
    for (int round = 0; round < 6; round++) {
      int draws = 4_000_000;
      long t0 = cpuNanos();
      for (int i = 0; i < draws; i++) {
        acc += d.nextUniform();
      }
      long t1 = cpuNanos();
      for (int i = 0; i < draws; i++) {
        acc += d.nextInt(targets);
      }
      long t2 = cpuNanos();
      for (int i = 0; i < draws; i++) {
        acc += d.nextLogUniform();
      }
      long t3 = cpuNanos();
      if (round >= 2) {
        System.out.printf(Locale.ROOT, "draws, round %d: nextUniform %.1f ns, nextInt %.1f ns, nextLogUniform %.1f ns%n",
            round, (t1 - t0) / (double) draws, (t2 - t1) / (double) draws, (t3 - t2) / (double) draws);
      }
    }
    if (sink == 42 && acc == 42) {
      System.out.println();
    }
  }
}
