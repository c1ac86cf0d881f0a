package dev.dptext.spark;

import java.io.Serializable;
import org.apache.spark.broadcast.Broadcast;

/**
 * Where a task finds its {@link Sanitizer}: what {@link SanitizeFunction} carries into the task
 * closure. Either a broadcast handle, or a {@link PathSanitizer} recipe that each executor JVM builds
 * once ({@link ModelDistribution}).
 */
interface SanitizerSource extends Serializable {
  Sanitizer get();

  /** The sanitizer the driver built and broadcast. */
  static SanitizerSource broadcast(Broadcast<JavaSerialized<Sanitizer>> broadcast) {
    return new Broadcasted(broadcast);
  }

  /** Holds only the broadcast handle: the closure stays small and the key stays inside the broadcast. */
  record Broadcasted(Broadcast<JavaSerialized<Sanitizer>> handle) implements SanitizerSource {
    @Override
    public Sanitizer get() {
      return handle.value().get();
    }

    @Override
    public String toString() {
      return "broadcast sanitizer " + handle.id();
    }
  }
}
