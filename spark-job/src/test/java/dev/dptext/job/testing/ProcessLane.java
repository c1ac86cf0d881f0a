package dev.dptext.job.testing;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class whose integration tests mostly wait on processes they launched (the job's own JVM through
 * {@code scripts/dptext} or {@link JobProcess}, a Connect server): failsafe runs these classes one at a
 * time BESIDE the other classes, which run one after another in this JVM (each of their invocations
 * holding {@link InJvmSpark}: {@link InJvmSparkExtension}). A JVM starting or a job running
 * on two cores leaves the other lane's single driver thread room, and the reverse.
 *
 * <p>The class's in-JVM work (running the job in this JVM, reading tables through {@link SharedSpark})
 * holds {@link InJvmSpark}: {@code JobFixtures.run} takes it itself, as do {@code SharedSpark.get()} and
 * {@code ConnectServer.session()} when they start what they return; a read of a table is wrapped in
 * {@code try (var held = InJvmSpark.hold())}. Waiting on a process, reading its files and killing it need
 * nothing. The unit layer ({@code ./mvnw test}) runs everything in one thread and ignores this.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(ProcessLane.LANE)
public @interface ProcessLane {
  /** JUnit's resource lock that keeps these classes to one at a time. */
  String LANE = "dptext.process-lane";
}
