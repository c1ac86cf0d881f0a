package dev.dptext.tools;

import java.util.SplittableRandom;
import java.util.function.IntToLongFunction;

/**
 * How much work two threads do, compared with one, on this machine right now: the ceiling for any
 * two-worker speed-up (scripts/bench/cluster.sh prints it next to the cluster's ratio, because the
 * machine is shared and a busy neighbour takes a core away). Run with
 * {@code java -cp tools/target/dptext-tools-<v>.jar dev.dptext.tools.CpuScaling} (no arguments).
 *
 * <p>Three kinds of work, each run for a fixed time by 1 thread and then by 2 threads: an ALU loop
 * (xorshift: one dependent chain, bound by latency), floating-point throughput (eight independent
 * fused multiply-add chains, bound by the core's FP units, like the samplers' distance sums: two
 * vCPUs that are hyperthreads of one physical core, or a host that throttles, show here and not in
 * the ALU loop), and dependent random reads over a 128 MB table per thread (like the samplers'
 * neighbour-table lookups, whose tables are far larger than the caches). Prints (work done by 2
 * threads) ÷ (work done by 1 thread) in the same time: 2.0 means two full cores.
 */
public class CpuScaling {
  static final long NANOS = 4_000_000_000L;
  static final int TABLE_INTS = 32 << 20; // 128 MB

  public static void main(String[] args) throws Exception {
    if (args.length != 0) {
      System.err.println("usage: CpuScaling (no arguments): prints the 2-thread ÷ 1-thread work ratios, ~40 s");
      System.exit(2);
    }
    int[][] tables = {cycle(1), cycle(2)};
    System.out.printf("ALU loop %.2f, FP throughput %.2f, random reads %.2f%n",
        ratio(t -> alu(t + 1)), ratio(t -> fma(t + 1)), ratio(t -> reads(tables[t])));
  }

  /** Work units done in NANOS by 2 threads ÷ by 1 thread, after a warm-up. */
  static double ratio(IntToLongFunction work) throws Exception {
    run(work, 1);
    return run(work, 2) / (double) run(work, 1);
  }

  static long run(IntToLongFunction work, int threads) throws Exception {
    long[] done = new long[threads];
    Thread[] t = new Thread[threads];
    for (int i = 0; i < threads; i++) {
      int k = i;
      t[i] = new Thread(() -> done[k] = work.applyAsLong(k));
      t[i].start();
    }
    long total = 0;
    for (int i = 0; i < threads; i++) {
      t[i].join();
      total += done[i];
    }
    return total;
  }

  /** Blocks of 1M xorshift steps done in NANOS. */
  static long alu(long seed) {
    long x = seed;
    long blocks = 0;
    long end = System.nanoTime() + NANOS;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1_000_000; i++) {
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
      }
      blocks++;
    }
    return x == 0 ? -1 : blocks; // x is never 0: uses the result
  }

  /** Blocks of 1M steps of eight independent fused multiply-add chains done in NANOS. */
  static long fma(double seed) {
    double a0 = seed, a1 = seed + 1, a2 = seed + 2, a3 = seed + 3;
    double a4 = seed + 4, a5 = seed + 5, a6 = seed + 6, a7 = seed + 7;
    double m = 0.999999;
    double c = 1e-9;
    long blocks = 0;
    long end = System.nanoTime() + NANOS;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 1_000_000; i++) {
        a0 = Math.fma(a0, m, c);
        a1 = Math.fma(a1, m, c);
        a2 = Math.fma(a2, m, c);
        a3 = Math.fma(a3, m, c);
        a4 = Math.fma(a4, m, c);
        a5 = Math.fma(a5, m, c);
        a6 = Math.fma(a6, m, c);
        a7 = Math.fma(a7, m, c);
      }
      blocks++;
    }
    return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 == 0 ? -1 : blocks; // uses the results
  }

  /** Blocks of 100k dependent reads done in NANOS. */
  static long reads(int[] next) {
    int p = 0;
    long blocks = 0;
    long end = System.nanoTime() + NANOS;
    while (System.nanoTime() < end) {
      for (int i = 0; i < 100_000; i++) {
        p = next[p];
      }
      blocks++;
    }
    return p < 0 ? -1 : blocks;
  }

  /** A random cyclic permutation: next[i] is the element after i, so each read depends on the last. */
  static int[] cycle(long seed) {
    int[] order = new int[TABLE_INTS];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = order.length - 1; i > 0; i--) {
      int j = r.nextInt(i + 1);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    int[] next = new int[TABLE_INTS];
    for (int i = 0; i < order.length; i++) {
      next[order[i]] = order[(i + 1) % order.length];
    }
    return next;
  }
}
