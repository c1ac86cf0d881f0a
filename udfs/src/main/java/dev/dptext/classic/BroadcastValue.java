package dev.dptext.classic;

import java.io.Serializable;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import scala.reflect.ClassTag$;

/**
 * A value broadcast to the executors, Java-serialized ({@link JavaSerialized}): the handle a task closure
 * carries (small; the value itself travels by the broadcast). Classic sessions only: a Spark Connect client
 * has no broadcast variables. Held here so that code outside {@code dev.dptext.classic} never names a
 * {@code Broadcast}.
 */
public final class BroadcastValue<T extends Serializable> implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Broadcast<JavaSerialized<T>> handle;

  private BroadcastValue(Broadcast<JavaSerialized<T>> handle) {
    this.handle = handle;
  }

  /**
   * Broadcasts {@code value}.
   *
   * @param feature what needs the broadcast, for the message on Spark Connect
   * @param alternative what to do instead on Spark Connect
   * @throws UnsupportedOperationException on a Spark Connect session
   */
  @SuppressWarnings("unchecked")
  public static <T extends Serializable> BroadcastValue<T> of(SparkSession spark, T value, String feature,
      String alternative) {
    JavaSerialized<T> holder = JavaSerialized.of(value);
    Broadcast<JavaSerialized<T>> b = ClassicContext.context(spark, feature, alternative)
        .broadcast(holder, ClassTag$.MODULE$.apply((Class<JavaSerialized<T>>) holder.getClass()));
    return new BroadcastValue<>(b);
  }

  /**
   * A broadcast of {@code value}, Java-serialized, as the raw handle: for classic-only code that keeps
   * and destroys its broadcasts itself (the partitioned path).
   */
  @SuppressWarnings("unchecked")
  public static <T extends Serializable> Broadcast<JavaSerialized<T>> raw(org.apache.spark.SparkContext sc, T value) {
    JavaSerialized<T> holder = JavaSerialized.of(value);
    return sc.broadcast(holder, ClassTag$.MODULE$.apply((Class<JavaSerialized<T>>) holder.getClass()));
  }

  /** The value (on an executor: read from the broadcast once per JVM). */
  public T get() {
    return handle.value().get();
  }

  /** Whether the broadcast can still be read (it is invalid once destroyed). */
  public boolean isValid() {
    return handle.isValid();
  }

  /** Frees the broadcast on the driver and the executors. */
  public void destroy() {
    handle.destroy();
  }

  @Override
  public String toString() {
    return "broadcast " + handle.id();
  }
}
