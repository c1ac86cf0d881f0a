package dev.dptext.runtime;

import dev.dptext.classic.BroadcastValue;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.settings.ModelDistribution;
import java.io.Serializable;

/**
 * Where a task finds its {@link Sanitizer}: what {@link SanitizeFunction} carries into the task
 * closure. Either a broadcast handle, or a {@link PathSanitizer} recipe that each executor JVM builds
 * once ({@link ModelDistribution}), or, in local mode, the number of the driver's own sanitizer
 * ({@link LocalSanitizers}).
 */
public interface SanitizerSource extends Serializable {
  Sanitizer get();

  /** The sanitizer the driver built and broadcast. */
  static SanitizerSource broadcast(BroadcastValue<Sanitizer> broadcast) {
    return new Broadcasted(broadcast);
  }

  /** Holds only the broadcast handle: the closure stays small and the key stays inside the broadcast. */
  record Broadcasted(BroadcastValue<Sanitizer> handle) implements SanitizerSource {
    @Override
    public Sanitizer get() {
      return handle.get();
    }

    @Override
    public String toString() {
      return "sanitizer " + handle;
    }
  }

  /**
   * In local mode: the driver's sanitizer, found in this JVM by number ({@link LocalSanitizers}). The
   * driver's instance holds the sanitizer (a transient field: a task's copy, made by serializing the
   * closure, carries only the number and looks it up), so the closure stays small and carries no key.
   */
  final class Local implements SanitizerSource {
    private static final long serialVersionUID = 1L;

    private final long id;
    private final transient Sanitizer held;

    Local(long id, Sanitizer held) {
      this.id = id;
      this.held = held;
    }

    long id() {
      return id;
    }

    @Override
    public Sanitizer get() {
      return held != null ? held : LocalSanitizers.get(id);
    }

    @Override
    public String toString() {
      return "local sanitizer " + id;
    }
  }
}
