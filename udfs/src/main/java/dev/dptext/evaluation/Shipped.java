package dev.dptext.evaluation;

import dev.dptext.classic.BroadcastValue;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What an evaluation's tasks need from the driver — a mechanism or a metric built from the model — and
 * how a task gets it. The evaluations hand this to a {@code Dataset} function ({@code spark.range(n)}
 * and {@code mapPartitions}), which is all a Spark Connect session offers: no broadcast, no RDD.
 *
 * <p>The ways ({@link EvaluationTasks#ship} picks one):
 * <ul>
 *   <li>{@link Held}: a classic session in local mode. Tasks run in the driver's JVM and find the
 *       driver's own object by number; nothing is serialized (as a local broadcast's value was the
 *       driver's object, so the figures are those of the broadcast).
 *   <li>{@link Broadcasted}: a classic cluster, as before.
 *   <li>{@link FromModelFile}: a Spark Connect session with the model's file known. Each executor JVM
 *       loads the model from its path once, checks its SHA-256 against the driver's and rebuilds the
 *       value ({@link ModelFile}); the plan carries only that recipe.
 *   <li>{@link Carried}: a Spark Connect session with a model that exists only in memory. The value
 *       itself travels inside the function, hence inside the plan: fine for small models, and the
 *       only way without a path (a large model should be given by path).
 * </ul>
 *
 * None of them carries a secret: evaluation mechanisms draw from streams of public evaluation seeds.
 */
public interface Shipped<T> extends Serializable {
  /** The value, in a task (or on the driver). */
  T get();

  /** Frees what the driver holds for the tasks (a broadcast); nothing for the other ways. */
  default void release() {}

  /** The driver's object, found by number in this JVM (classic local mode). */
  final class Held<T> implements Shipped<T> {
    private static final long serialVersionUID = 1L;
    private static final AtomicLong NEXT = new AtomicLong();
    /** Weakly: the driver's instance holds the value strongly while an evaluation can still run a task. */
    private static final Map<Long, WeakReference<Object>> HELD = new ConcurrentHashMap<>();

    private final long id;
    private final transient T value;

    Held(T value) {
      HELD.values().removeIf(r -> r.get() == null);
      this.id = NEXT.incrementAndGet();
      this.value = value;
      HELD.put(id, new WeakReference<>(value));
    }

    @Override
    @SuppressWarnings("unchecked")
    public T get() {
      if (value != null) {
        return value;
      }
      WeakReference<Object> r = HELD.get(id);
      Object v = r == null ? null : r.get();
      if (v == null) {
        throw new IllegalStateException("evaluation value " + id + " is not held in this JVM: the task runs in "
            + "another JVM or class loader than the local-mode driver that made it");
      }
      return (T) v;
    }

    @Override
    public String toString() {
      return "held evaluation value " + id;
    }
  }

  /**
   * A broadcast of the value ({@code dev.dptext.classic.ClassicEvaluation#broadcast}): a classic cluster. Holds
   * only the broadcast handle, so the task's function stays small.
   */
  record Broadcasted<T extends Serializable>(BroadcastValue<T> value) implements Shipped<T> {
    @Override
    public T get() {
      return value.get();
    }

    @Override
    public void release() {
      value.destroy();
    }

    @Override
    public String toString() {
      return value.toString();
    }
  }

  /** The value inside the task's function (Spark Connect without a model path). */
  record Carried<T extends Serializable>(T value) implements Shipped<T> {
    @Override
    public T get() {
      return value;
    }

    @Override
    public String toString() {
      return "carried " + value.getClass().getSimpleName();
    }
  }

  /** The recipe: the model's file and what to build from it, rebuilt once per executor JVM. */
  record FromModelFile<T>(ModelFile file, String what, ModelFile.Builder<T> builder) implements Shipped<T> {
    @Override
    public T get() {
      return file.build(what, builder);
    }

    @Override
    public String toString() {
      return what + " of " + file;
    }
  }
}
