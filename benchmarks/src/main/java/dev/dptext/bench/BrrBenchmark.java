package dev.dptext.bench;

import dev.dptext.embedding.BinaryCodes;
import dev.dptext.embedding.EmbeddingReader;
import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NearestCodes;
import dev.dptext.mechanism.BrrMechanism;
import dev.dptext.random.RandomStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * BRR on one thread, batched per review as the job batches it, next to the plain algorithm it
 * replaced (a 53-bit uniform per bit, then a full scan of every 256-bit code per token), in one run.
 * Prints tokens/s for the flip step, the search step and the whole mechanism at several ε; the search
 * three ways on the same flipped codes, answers checked equal: the plain scan, the scalar kernel
 * (bound + chunk index / pruned tiled {@code Long.bitCount} scan) and the kernel this JVM chooses
 * ({@link NearestCodes.Kernel#best()}: {@code -Ddptext.brr.kernel=scalar|vector} forces one; the vector
 * kernel's width is fixed per JVM, {@code -Ddptext.knn.vectorBits=256|512}, so widths are compared in
 * separate JVMs).
 *
 * <p>Usage: {@code BrrBenchmark <glove.txt> <reviews.jsonl> <vocab size> <reviews> [ε …]}.
 */
public final class BrrBenchmark {
  public static void main(String[] args) throws Exception {
    Embeddings emb = EmbeddingReader.top(Integer.parseInt(args[2])).read(Path.of(args[0]));
    List<int[]> batches = ReviewTokens.perReview(emb, Path.of(args[1]), Integer.parseInt(args[3]));
    long tokens = batches.stream().mapToLong(b -> b.length).sum();
    long t0 = System.nanoTime();
    BinaryCodes codes = BinaryCodes.of(emb, 256, BinaryCodes.DEFAULT_SEED);
    NearestCodes scalar = new NearestCodes(codes, NearestCodes.Kernel.SCALAR);
    NearestCodes search = new NearestCodes(codes);
    System.out.printf(Locale.ROOT, "%,d words; 256-bit codes built in %.1f s (%,d bytes); %d reviews, %,d tokens%n",
        emb.size(), (System.nanoTime() - t0) / 1e9, codes.bytes(), batches.size(), tokens);
    System.out.println("CPU vector flags: " + cpuFlags() + "; JVM: " + vmOption("UseAVX") + ", "
        + vmOption("MaxVectorSize"));
    System.out.println("full-scan kernel: old = " + scalar.describeKernel() + "; new = " + search.kernel().key()
        + " (" + search.describeKernel() + ")");
    long[] rowMajor = new long[codes.size() * 4];
    for (int y = 0; y < codes.size(); y++) {
      codes.copyCode(y, rowMajor, 4 * y);
    }
    double[] epsilons = args.length > 4
        ? java.util.Arrays.stream(args, 4, args.length).mapToDouble(Double::parseDouble).toArray()
        : new double[] {0.57, 1, 2, 4};
    for (double eps : epsilons) {
      BrrMechanism m = new BrrMechanism(codes, eps);
      double p = m.flipProbability();
      // Flipped queries for every token, by the old per-bit loop (for the plain-scan baseline).
      List<long[]> queries = new ArrayList<>();
      RandomStream r = RandomStream.fromSeed(1);
      for (int round = 0; round < 2; round++) { // first round warms up
        queries.clear();
        long f0 = System.nanoTime();
        for (int[] b : batches) {
          long[] q = new long[4 * b.length];
          for (int i = 0; i < b.length; i++) {
            codes.copyCode(b[i], q, 4 * i);
            for (int bit = 0; bit < 256; bit++) {
              if (r.nextDouble() < p) {
                q[4 * i + (bit >>> 6)] ^= 1L << (bit & 63);
              }
            }
          }
          queries.add(q);
        }
        double oldFlip = (System.nanoTime() - f0) / 1e9;
        long s0 = System.nanoTime();
        long checksum = 0;
        for (long[] q : queries) {
          for (int i = 0; i < q.length / 4; i++) {
            checksum += plainScan(rowMajor, q, 4 * i);
          }
        }
        double oldScan = (System.nanoTime() - s0) / 1e9;
        int[] out = new int[4096];
        long s1 = System.nanoTime();
        long checksum1 = search(scalar, batches, queries, out);
        double oldSearch = (System.nanoTime() - s1) / 1e9;
        long s2 = System.nanoTime();
        long checksum2 = search(search, batches, queries, out);
        double newSearch = (System.nanoTime() - s2) / 1e9;
        if (checksum != checksum1 || checksum != checksum2) {
          throw new AssertionError("the searches disagree with the plain scan");
        }
        long m0 = System.nanoTime();
        RandomStream rm = RandomStream.fromSeed(2);
        for (int[] b : batches) {
          m.sanitize(b, b.length, rm, out);
        }
        double whole = (System.nanoTime() - m0) / 1e9;
        long g0 = System.nanoTime();
        long[] buf = new long[4];
        for (int[] b : batches) {
          for (int w : b) {
            m.flip(w, rm, buf, 0);
          }
        }
        double newFlip = (System.nanoTime() - g0) / 1e9;
        if (round == 1) {
          System.out.printf(Locale.ROOT,
              "ε=%-5s p=%.4f | flip: per-bit uniforms %,10.0f tok/s, lane masks %,10.0f tok/s | "
                  + "search: plain scan %,7.0f tok/s, scalar kernel %,9.0f tok/s, %s kernel %,9.0f tok/s "
                  + "(%.2fx the scalar kernel; same answers) | BRR mechanism, batched per review: %,9.0f tokens/s%n",
              eps, p, tokens / oldFlip, tokens / newFlip, tokens / oldScan, tokens / oldSearch,
              search.kernel().key(), tokens / newSearch, oldSearch / newSearch, tokens / whole);
        }
      }
    }
  }

  private static long search(NearestCodes search, List<int[]> batches, List<long[]> queries, int[] out) {
    long checksum = 0;
    for (int k = 0; k < batches.size(); k++) {
      int[] b = batches.get(k);
      search.nearest(queries.get(k), b, b.length, out);
      for (int i = 0; i < b.length; i++) {
        checksum += out[i];
      }
    }
    return checksum;
  }

  /** The CPU's vector and popcount flags (Linux), as the kernel's choice depends on them. */
  private static String cpuFlags() {
    try {
      for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("flags")) {
          List<String> kept = new ArrayList<>();
          for (String f : line.substring(line.indexOf(':') + 1).trim().split("\\s+")) {
            if (f.equals("popcnt") || f.startsWith("avx") || f.equals("sse4_2")) {
              kept.add(f);
            }
          }
          return String.join(" ", kept);
        }
      }
    } catch (java.io.IOException | RuntimeException e) {
      return "unknown (" + e + ")";
    }
    return "unknown";
  }

  private static String vmOption(String name) {
    try {
      return name + "=" + java.lang.management.ManagementFactory
          .getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption(name).getValue();
    } catch (RuntimeException e) {
      return name + "=?";
    }
  }

  /** The plain algorithm: every word's full distance, one query at a time, ties to the lower rank. */
  private static int plainScan(long[] c, long[] q, int offset) {
    long q0 = q[offset];
    long q1 = q[offset + 1];
    long q2 = q[offset + 2];
    long q3 = q[offset + 3];
    int best = Integer.MAX_VALUE;
    int bestWord = -1;
    for (int base = 0; base < c.length; base += 4) {
      int d = Long.bitCount(q0 ^ c[base]) + Long.bitCount(q1 ^ c[base + 1])
          + Long.bitCount(q2 ^ c[base + 2]) + Long.bitCount(q3 ^ c[base + 3]);
      if (d < best) {
        best = d;
        bestWord = base >>> 2;
      }
    }
    return bestWord;
  }
}
