package dev.dptext.job.testing;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.stream.Stream;

/**
 * The JVM flags a JVM the tests launch (the job as its own process, a Spark Connect server, the launcher's
 * JVM) takes from the test JVM, which Maven started with the parent pom's {@code test.jvm}: Spark's module
 * flags, without which Spark does not start on Java 17, and the test runner's two CPU settings
 * ({@code test.jvm.cpu}: the serial collector, JIT thresholds ×4). Those two change no behaviour a test
 * checks, only what the JVM spends compiling and collecting: a launched {@code sanitize} of the sample
 * tickets used ~14 CPU-seconds with them against ~19 without (docs/benchmarks-history.md, "Under the aim in
 * five runs of five").
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** Spark's module flags and the CPU settings, as this JVM has them. */
  public static List<String> flags() {
    return inherited().filter(a -> a.startsWith("--add-") || a.startsWith("-XX:+IgnoreUnrecognizedVMOptions")
        || a.startsWith("-Djdk.reflect.useDirectMethodHandle") || a.startsWith("-Dio.netty.") || isCpuSetting(a))
        .toList();
  }

  /** The CPU settings alone (the launcher {@code scripts/dptext} adds Spark's module flags itself). */
  public static String cpuSettings() {
    return String.join(" ", inherited().filter(ChildJvm::isCpuSetting).toList());
  }

  private static boolean isCpuSetting(String arg) {
    return arg.equals("-XX:+UseSerialGC") || arg.startsWith("-XX:CompileThresholdScaling=");
  }

  private static Stream<String> inherited() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream();
  }
}
