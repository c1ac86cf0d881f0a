package dev.dptext.classic;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;

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

  /** The holder of {@code value} ({@code dev.dptext.classic.BroadcastValue} broadcasts it). */
  public static <T extends Serializable> JavaSerialized<T> of(T value) {
    if (value == null) {
      throw new IllegalStateException("nothing to broadcast: the value is null");
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
