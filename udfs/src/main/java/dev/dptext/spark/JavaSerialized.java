package dev.dptext.spark;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import org.apache.spark.SparkContext;
import org.apache.spark.broadcast.Broadcast;
import scala.reflect.ClassTag$;

/**
 * A broadcast value that reaches the executors through Java serialization whatever
 * {@code spark.serializer} says.
 *
 * <p>Why: many clusters set {@code spark.serializer} to Kryo, and Spark broadcasts with that
 * serializer. Kryo copies an object's fields itself and never calls {@code readObject}, which is
 * where the model rebuilds what it does not ship (the word index of {@code Embeddings}, the
 * nearest-word kernels): executors would get a sanitizer that fails on its first row. Kryo honours
 * {@link DefaultSerializer} on a class, so this holder, and everything it holds, goes through
 * {@link java.io.ObjectOutputStream} inside Kryo's stream. The cost is that of Java serialization,
 * paid once per executor.
 */
@DefaultSerializer(JavaSerializer.class)
public final class JavaSerialized<T extends Serializable> implements Serializable {
  private static final long serialVersionUID = 1L;

  private final T value;

  private JavaSerialized(T value) {
    this.value = value;
  }

  /**
   * Broadcasts {@code value} so that executors deserialize it with Java serialization.
   *
   * <p>Names {@code SparkContext} and {@code Broadcast} outside {@code dev.dptext.classic}: callers move to
   * {@code dev.dptext.classic.BroadcastValue.of(spark, value, feature, alternative)}, then this goes.
   */
  @SuppressWarnings("unchecked")
  public static <T extends Serializable> Broadcast<JavaSerialized<T>> broadcast(SparkContext sc, T value) {
    JavaSerialized<T> holder = of(value);
    return sc.broadcast(holder, ClassTag$.MODULE$.apply((Class<JavaSerialized<T>>) holder.getClass()));
  }

  /** The holder alone, without broadcasting it ({@code dev.dptext.classic.BroadcastValue} broadcasts it). */
  public static <T extends Serializable> JavaSerialized<T> of(T value) {
    if (value == null) {
      throw new IllegalArgumentException("nothing to broadcast: the value is null");
    }
    return new JavaSerialized<>(value);
  }

  /** The value held. */
  public T get() {
    return value;
  }

  @Override
  public String toString() {
    return "JavaSerialized[" + value.getClass().getSimpleName() + "]";
  }
}
