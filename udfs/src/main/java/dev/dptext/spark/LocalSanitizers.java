package dev.dptext.spark;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The sanitizers of a local-mode Spark context, held in this JVM and found by number.
 *
 * <p>Why: in local mode every task runs in the driver's JVM and a broadcast's value on an "executor"
 * is the driver's own object, yet {@code SparkContext.broadcast} still serializes and compresses the
 * whole sanitizer into blocks that nothing reads (the SanText+ sanitizer of the default model is
 * ~112 MB: 0.6–0.9 s of CPU in a small run). A local task instead finds the driver's object here
 * through {@link SanitizerSource.Local}, which carries only the number — the same object a broadcast
 * would have handed it, so the same outputs, and the key stays in memory as before.
 *
 * <p>Life cycle: entries are added and removed only by {@link DpText}'s cache of sanitizers, which
 * keeps one per configuration and Spark application and drops the entries of other applications (a
 * JVM has one active Spark context, so those contexts have stopped) when it builds a new one.
 */
final class LocalSanitizers {
  private LocalSanitizers() {}

  private static final AtomicLong NEXT = new AtomicLong();
  private static final Map<Long, Sanitizer> HELD = new ConcurrentHashMap<>();

  /** Holds {@code sanitizer} and returns the source that finds it. */
  static SanitizerSource.Local hold(Sanitizer sanitizer) {
    long id = NEXT.incrementAndGet();
    HELD.put(id, sanitizer);
    return new SanitizerSource.Local(id);
  }

  static void release(SanitizerSource.Local source) {
    HELD.remove(source.id());
  }

  /**
   * The sanitizer held under {@code id}.
   *
   * @throws IllegalStateException if it is not held (a UDF of a stopped Spark context)
   */
  static Sanitizer get(long id) {
    Sanitizer s = HELD.get(id);
    if (s == null) {
      throw new IllegalStateException("local sanitizer " + id + " is not held here: its Spark context has "
          + "stopped (build the sanitizer again in the active one), or the task runs in another class loader");
    }
    return s;
  }
}
