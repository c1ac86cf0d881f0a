package dev.dptext.job.testing;

import dev.dptext.job.base.JobSession;
import dev.dptext.testing.ScratchDirectories;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * A real Spark Connect server in a JVM of its own, one per test JVM: started when a test first asks for
 * it, stopped (by its process) when the test JVM exits. It runs {@code SparkConnectServer} on this
 * JVM's classpath (spark-connect, Delta and dptext's classes), with Delta's extension and catalog and
 * dptext's {@code DpTextExtensions} in its {@code spark.sql.extensions}: the shape of a cluster that
 * serves Spark Connect clients (Databricks standard access and serverless, {@code start-connect-server}).
 *
 * <p>{@link #session()} is a Connect CLIENT of it in this JVM, as {@code spark-submit --remote …
 * --conf spark.api.mode=connect} gives an application: no {@code SparkContext}, only what a Connect
 * session offers.
 */
public final class ConnectServer {
  private static final Path ROOT = Path.of("target", "connect-server").toAbsolutePath();
  /** The server's log: what it printed, for a test that fails on the server side. */
  public static final Path LOG = ROOT.resolve("server.log");
  /** The server's Spark event log directory: each job's start, with its description and tags. */
  private static final Path EVENTS = ROOT.resolve("events");
  private static final long START_TIMEOUT_MS = 180_000;

  private static Process process;
  private static int port;
  private static volatile SparkSession client;
  /** Seconds the server took to accept connections, for the report. */
  public static double startSeconds;

  private ConnectServer() {}

  /**
   * The server's Spark event log so far (JSON lines: Spark flushes each job's start as it happens), for a
   * test that checks what the Spark UI would show of the server's jobs.
   */
  public static String eventLog() throws java.io.IOException {
    StringBuilder all = new StringBuilder();
    try (java.util.stream.Stream<Path> files = Files.walk(EVENTS)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        all.append(Files.readString(f));
      }
    }
    return all.toString();
  }

  /**
   * The Connect client session of this JVM's server, started on the first call, which holds {@link InJvmSpark}
   * (creating a client swaps the JVM's default session; the lock is taken before this class's monitor).
   */
  public static SparkSession session() {
    SparkSession started = client;
    if (started != null) {
      return started;
    }
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      return sessionOrStart();
    }
  }

  private static synchronized SparkSession sessionOrStart() {
    if (client == null) {
      // This JVM's classic session (the other job tests', the classic side of the comparisons) first.
      SharedSpark.get();
      start();
      client = SparkSession.builder().config(JobSession.API_MODE, "connect").remote("sc://localhost:" + port)
          .getOrCreate();
      giveBackClassicSession();
    }
    return client;
  }

  /** The server's port (starting it first if needed). */
  public static int port() {
    session();
    return port;
  }

  /**
   * Makes this JVM's classic session the active and default one again. Spark 4 keeps ONE active and default
   * session per JVM for classic and Connect sessions alike, and a new Connect client takes both: classic
   * code that asks for the active session (Delta's writer does) would get the Connect client. Only a test
   * JVM holds both kinds.
   */
  public static void giveBackClassicSession() {
    SparkSession classic = SharedSpark.get();
    SparkSession.setActiveSession(classic);
    SparkSession.setDefaultSession(classic);
  }

  private static void start() {
    long t0 = System.nanoTime();
    try {
      port = freePort();
      process = launch(ROOT, System.getProperty("java.class.path"),
          JobSession.DELTA_EXTENSION + "," + dev.dptext.spark.DpTextExtensions.class.getName(), port);
      Process started = process;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(started), "stop-connect-server"));
      awaitPort(process, port, LOG);
      startSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf("Spark Connect test server (pid %d) ready on port %d in %.1f s%n", process.pid(), port,
          startSeconds);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A Spark Connect server WITHOUT dptext: this JVM's classpath less dptext's own classes and jars (and the
   * Connect client), Delta's extension only. The shape of a Databricks serverless cluster that a JAR task's
   * client talks to, where the client ships dptext's classes as a session artifact. Its own JVM and
   * directory; {@link #close} stops it.
   */
  public static final class Bare implements AutoCloseable {
    public final int port;
    private final Process process;
    public final Path log;

    private Bare(int port, Process process, Path log) {
      this.port = port;
      this.process = process;
      this.log = log;
    }

    public static Bare start() {
      Path root = Path.of("target", "connect-server-bare").toAbsolutePath();
      List<String> kept = new ArrayList<>();
      for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
        String name = Path.of(entry).toString();
        boolean dptext = name.contains("dptext") || name.endsWith(Path.of("udfs", "target", "classes").toString())
            || name.endsWith(Path.of("spark-job", "target", "classes").toString()) || name.contains("test-classes");
        if (!dptext && !name.contains("spark-connect-client-jvm")) {
          kept.add(entry);
        }
      }
      try {
        int port = freePort();
        Process p = launch(root, String.join(File.pathSeparator, kept), JobSession.DELTA_EXTENSION, port);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(p), "stop-bare-connect-server"));
        Path log = root.resolve("server.log");
        awaitPort(p, port, log);
        return new Bare(port, p, log);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      stop(process);
    }
  }

  /** Starts {@code SparkConnectServer} in {@code root} (its log: {@code root/server.log}) and returns its process. */
  private static Process launch(Path root, String classpath, String extensions, int port) throws IOException {
    ScratchDirectories.wipe(root);
    Files.createDirectories(root);
    Path log = root.resolve("server.log");
    {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.add("-Xmx1536m");
      cmd.addAll(ChildJvm.flags());
      cmd.add("-cp");
      cmd.add(classpath);
      // spark.* system properties are what SparkConf reads: the --conf of a spark-submit launch.
      cmd.add("-Dspark.master=local[2]");
      cmd.add("-Dspark.app.name=dptext-connect-test-server");
      cmd.add("-Dspark.connect.grpc.binding.port=" + port);
      cmd.add("-Dspark.connect.grpc.binding.address=127.0.0.1");
      cmd.add("-Dspark.driver.host=127.0.0.1");
      cmd.add("-Dspark.ui.enabled=false");
      // The event log: what the Spark UI (and the history server) would show of each job, its tags included.
      cmd.add("-Dspark.eventLog.enabled=true");
      cmd.add("-Dspark.eventLog.compress=false");
      cmd.add("-Dspark.eventLog.rolling.enabled=false");
      cmd.add("-Dspark.eventLog.dir=" + Files.createDirectories(EVENTS).toUri());
      cmd.add("-Dspark.sql.shuffle.partitions=4");
      cmd.add("-Dspark.databricks.delta.snapshotPartitions=2");
      cmd.add("-Dspark.sql.extensions=" + extensions);
      cmd.add("-Dspark.sql.catalog.spark_catalog=" + JobSession.DELTA_CATALOG);
      cmd.add("-Dspark.sql.warehouse.dir=" + root.resolve("warehouse"));
      cmd.add("-Dderby.system.home=" + root.resolve("derby"));
      cmd.add("-Djava.io.tmpdir=" + Files.createDirectories(root.resolve("tmp")));
      cmd.add("org.apache.spark.sql.connect.service.SparkConnectServer");
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile());
      // The server resolves keys itself: this JVM's environment (a DPTEXT_KEY of the developer's shell) is
      // not the server's business.
      pb.environment().remove("DPTEXT_KEY");
      pb.environment().remove("SPARK_REMOTE");
      return pb.start();
    }
  }

  /** Stops the server's process (this JVM started it; nothing else is touched) and waits for it. */
  private static void stop(Process p) {
    if (p.isAlive()) {
      p.destroy();
      try {
        if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void awaitPort(Process process, int port, Path log) {
    long deadline = System.currentTimeMillis() + START_TIMEOUT_MS;
    while (System.currentTimeMillis() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("The Spark Connect test server exited with " + process.exitValue()
            + "; its log: " + log + "\n" + tail(log));
      }
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.1", port), 500);
        return;
      } catch (IOException notYet) {
        try {
          Thread.sleep(250);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    }
    stop(process);
    throw new IllegalStateException("The Spark Connect test server did not listen within " + START_TIMEOUT_MS / 1000
        + " s; its log: " + log + "\n" + tail(log));
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
