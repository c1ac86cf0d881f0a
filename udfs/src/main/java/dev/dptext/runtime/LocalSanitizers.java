package dev.dptext.runtime;

import dev.dptext.sanitizer.Sanitizer;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sanitizers of a local-mode Spark context, found by number in this JVM.
 *
 * <p>Why: in local mode every task runs in the driver's JVM and a broadcast's value on an "executor"
 * is the driver's own object, yet {@code SparkContext.broadcast} still serializes and compresses the
 * whole sanitizer into blocks that nothing reads (the SanText+ sanitizer of the default model is
 * ~112 MB: 0.6–0.9 s of CPU in a small run). A local task instead finds the driver's object here
 * through {@link SanitizerSource.Local}, which carries only the number into the task — the same object
 * a broadcast would have handed it, so the same outputs; the key stays in memory as before.
 *
 * <p>Life cycle: this table holds each sanitizer weakly. The driver's {@link SanitizerSource.Local} —
 * the one inside a UDF, a plan and the RDDs of a running job — holds it strongly, so a sanitizer stays
 * while anything that can still run a task refers to it, and is collected after (the JVM's cache of
 * sanitizers in {@link SanitizerCache} holds the source softly: kept for reuse until memory runs short, as a
 * broadcast's value was kept by Spark's block manager until evicted).
 */
final class LocalSanitizers {
  private LocalSanitizers() {}

  private static final AtomicLong NEXT = new AtomicLong();
  private static final Map<Long, WeakReference<Sanitizer>> HELD = new ConcurrentHashMap<>();

  /** Registers {@code sanitizer} and returns the driver's source for it (which holds it). */
  static SanitizerSource.Local hold(Sanitizer sanitizer) {
    HELD.values().removeIf(r -> r.get() == null); // the numbers of collected sanitizers
    long id = NEXT.incrementAndGet();
    HELD.put(id, new WeakReference<>(sanitizer));
    return new SanitizerSource.Local(id, sanitizer);
  }

  /**
   * The sanitizer registered under {@code id}.
   *
   * @throws IllegalStateException if there is none (nothing on the driver refers to it any more, or the
   *     task runs in another class loader than the driver's)
   */
  static Sanitizer get(long id) {
    WeakReference<Sanitizer> r = HELD.get(id);
    Sanitizer s = r == null ? null : r.get();
    if (s == null) {
      throw new IllegalStateException("local sanitizer " + id + " is not held in this JVM: nothing on the driver "
          + "refers to it any more, or the task runs in another class loader than the driver's");
    }
    return s;
  }
}
