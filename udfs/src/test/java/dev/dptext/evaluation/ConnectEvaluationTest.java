package dev.dptext.evaluation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.spark.SharedSpark;
import java.io.File;
import java.io.IOException;
import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The evaluations behind tune, privacy-stats and calibrate through a Spark Connect client session give
 * the classic session's figures, bit for bit (same seeds; both sides run local[2], hence the same task
 * slices); the MLlib-based ones (utility, membership inference) refuse a Connect session before reading.
 *
 * <p>Three JVMs: this one (the classic session), a real Spark Connect server ({@code spark-connect_2.13}'s
 * {@code SparkConnectServer}, local[2], this module's classes on its class path as a cluster has the dptext
 * jar) and its client ({@link ConnectEvaluationClient}, the client jar first on its class path). Both are
 * started and stopped here by their PIDs. The model is a file, so the server's tasks load and verify it
 * themselves ({@link ModelFile}); the models only in memory travel in the plan.
 */
class ConnectEvaluationTest {
  private static Path dir;
  private static LinkedHashMap<String, Serializable> onConnect;

  @BeforeAll
  static void runOnConnect() throws Exception {
    SharedSpark.get();
    dir = Files.createTempDirectory("dptext-connect-evaluation");
    EvaluationFigures.writeModel(dir.resolve("glove.txt"));
    String testClassPath = Optional.ofNullable(System.getProperty("surefire.test.class.path"))
        .orElse(System.getProperty("java.class.path"));
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    long start = System.nanoTime();
    Process server = java(List.of(testClassPath, System.getProperty("dptext.test.connectServerJar")), List.of(
        "-Dspark.master=local[2]", "-Dspark.app.name=dptext-connect-evaluation", "-Dspark.connect.grpc.binding.port=" + port,
        "-Dspark.ui.enabled=false", "-Dspark.sql.shuffle.partitions=4", "-Dspark.sql.warehouse.dir=" + dir.resolve("warehouse"),
        "-Dderby.system.home=" + dir.resolve("derby"), "org.apache.spark.sql.connect.service.SparkConnectServer"),
        "connect-evaluation-server.log");
    try {
      awaitListening(server, port);
      System.err.printf("Connect server listening after %.1f s%n", (System.nanoTime() - start) / 1e9);
      Process client = java(List.of(System.getProperty("dptext.test.connectClientJar"), testClassPath), List.of(
          ConnectEvaluationClient.class.getName(), "sc://localhost:" + port, dir.resolve("glove.txt").toString(),
          dir.resolve("figures.bin").toString(), dir.resolve("no-such-table").toString()), "connect-evaluation-client.log");
      if (!client.waitFor(15, TimeUnit.MINUTES)) {
        client.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        throw new IllegalStateException("the Connect client did not finish in 15 minutes; see target/connect-evaluation-client.log");
      }
      assertEquals(0, client.exitValue(), "the Connect client failed; see target/connect-evaluation-client.log");
      System.err.printf("Connect figures after %.1f s%n", (System.nanoTime() - start) / 1e9);
    } finally {
      server.destroy(); // SIGTERM to the server's own PID
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
    onConnect = EvaluationFigures.read(dir.resolve("figures.bin"));
  }

  @AfterAll
  static void cleanUp() throws IOException {
    if (dir != null) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @Test
  void theClientSessionWasSparkConnect() {
    assertEquals(false, onConnect.get("classic"));
    assertTrue(onConnect.get("session class").toString().startsWith("org.apache.spark.sql.connect."),
        onConnect.get("session class").toString());
  }

  @Test
  void tunePrivacyStatsAndCalibrateFiguresAreTheClassicOnes() {
    long start = System.nanoTime();
    LinkedHashMap<String, Serializable> onClassic = EvaluationFigures.compute(SharedSpark.get(), dir.resolve("glove.txt"));
    System.err.printf("classic figures in %.1f s%n", (System.nanoTime() - start) / 1e9);
    for (var e : onClassic.entrySet()) {
      assertEquals(e.getValue(), onConnect.get(e.getKey()), e.getKey());
    }
    assertEquals(onClassic.keySet(), new java.util.HashSet<>(onConnect.keySet()).stream()
        .filter(onClassic::containsKey).collect(Collectors.toSet()));
    assertTrue(((List<?>) onConnect.get("tune points vickrey:t=0.5")).size() > 2, "the tuner evaluated several settings");
  }

  @Test
  void theMllibEvaluationsRefuseConnectBeforeReadingAndNameTheAlternative() {
    for (String which : List.of("utility", "mia")) {
      String outcome = onConnect.get(which).toString();
      // The table does not exist: reading it would have failed with an analysis error instead.
      assertTrue(outcome.startsWith(UnsupportedOperationException.class.getName()), outcome);
      assertTrue(outcome.contains("Spark Connect session") && outcome.contains("classic Spark session: spark-submit"),
          outcome);
    }
  }

  /** Starts {@code java} with Spark's module flags (this JVM's), the class path {@code classPath} and {@code args}. */
  private static Process java(List<String> classPath, List<String> args, String logName) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx2g"));
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-") || arg.startsWith("-Djdk.") || arg.startsWith("-Dio.netty")
          || arg.startsWith("-XX:+IgnoreUnrecognizedVMOptions") || arg.startsWith("-Dlog4j2.configurationFile")) {
        cmd.add(arg);
      }
    }
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, classPath));
    cmd.addAll(args);
    Path log = Path.of("target", logName).toAbsolutePath();
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  private static void awaitListening(Process p, int port) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        throw new IllegalStateException("the Connect server exited with " + p.exitValue()
            + "; see target/connect-evaluation-server.log");
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        Thread.sleep(500);
      }
    }
    throw new IllegalStateException("the Connect server did not listen on " + port + " within 240 s");
  }
}
