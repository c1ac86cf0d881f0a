package dev.dptext.job.testing;

import java.util.concurrent.locks.ReentrantLock;

/**
 * One lock for the work the integration layer does in this JVM's Spark. That layer runs in two lanes
 * (docs/layout.md): the test classes one after another, each of their test and set-up methods holding this
 * lock ({@link InJvmSparkExtension}), and beside them, one at a time, the {@link ProcessLane} classes, whose
 * tests mostly wait on processes they launched. A lane test takes the lock only around its work in this JVM:
 * the job run in this JVM, reading what a process wrote through {@link SharedSpark}, the Connect client.
 *
 * <p>That work cannot run beside other in-JVM work: the job's output capture swaps {@code System.out}, a new
 * Connect client takes the JVM's default session, and tests count the session's jobs.
 * {@link JobFixtures#capture} takes the lock itself, as do {@link SharedSpark#get} and
 * {@link ConnectServer#session} when they start what they return; a lane test reading tables takes it with
 * {@link #hold}. Fair, so that a lane test waiting to check its processes' output goes next, after the method
 * in progress.
 *
 * <p>{@link #hold} takes the lock only in a lane test's thread. Everywhere else it has nothing to do: a
 * method of the other lane already holds the lock, and the threads such a method starts (the race tests run
 * the job on two threads at once) work under it; outside failsafe's two lanes (the unit layer, an IDE) there
 * is no other lane.
 */
public final class InJvmSpark {
  private static final ReentrantLock LOCK = new ReentrantLock(true);
  private static final ThreadLocal<Boolean> IN_LANE = ThreadLocal.withInitial(() -> false);

  private InJvmSpark() {}

  /**
   * In a {@link ProcessLane} test, takes the lock (waiting for the other lane's method in progress);
   * elsewhere, nothing. {@link Held#close} gives it back.
   */
  public static Held hold() {
    return IN_LANE.get() ? lock() : () -> { };
  }

  /** Takes the lock for one method of a class that is not a lane class. */
  static Held lock() {
    LOCK.lock();
    return LOCK::unlock;
  }

  /** Runs one method of a {@link ProcessLane} class, in which {@link #hold} takes the lock. */
  static void inLane(Body body) throws Throwable {
    IN_LANE.set(true);
    try {
      body.run();
    } finally {
      IN_LANE.set(false);
    }
  }

  /** A method's invocation. */
  @FunctionalInterface
  interface Body {
    void run() throws Throwable;
  }

  /** A held lock, for try-with-resources. */
  @FunctionalInterface
  public interface Held extends AutoCloseable {
    @Override
    void close();
  }
}
