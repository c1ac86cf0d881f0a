package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.ConnectServer;
import dev.dptext.job.testing.InJvmSpark;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobProcess;
import dev.dptext.job.testing.ProcessLane;
import dev.dptext.job.testing.SharedSpark;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job as a Databricks serverless JAR task runs it: a JVM whose classpath is the Spark Connect client alone
 * (spark-connect-client-jvm and its dependencies, Spark's connect shims; no catalyst, no spark-core, no
 * Hadoop, no netlib BLAS or LAPACK: the connect-client module) plus dptext's shaded jar, against a real Spark
 * Connect server that has Delta and nothing of dptext (the job ships its jar as a session artifact). Every
 * command docs/databricks.md lists for that deployment: sanitize with a GloVe file (a batch run to Parquet with
 * a malformed record, an in-place run into Delta, a stream into Delta with a ledger), with a build-model file and
 * with {@code default} (the machine's cache of it written, then read); the ledger report; privacy-stats,
 * calibrate and tune. Rows and figures equal the classic job's. One job JVM per command, as a task runs it (nine,
 * each shipping its jar; one server for all): the heaviest end-to-end test of the suite, kept to that.
 */
@Tag("integration")
@ProcessLane
class ConnectClientClasspathTest {
  @TempDir static Path tmp;
  static ConnectServer.Bare server;
  static String classpath;
  static Path key;
  static Path input;
  static Path model;

  @BeforeAll
  static void setUp() throws IOException {
    Path module = Path.of("..", "connect-client", "target").toAbsolutePath().normalize();
    String client = Files.readString(module.resolve("client-classpath.txt")).strip();
    Path shaded;
    try (Stream<Path> jars = Files.list(Path.of("target"))) {
      shaded = jars.filter(p -> p.getFileName().toString().endsWith("-shaded.jar")).findFirst().orElseThrow()
          .toAbsolutePath();
    }
    classpath = String.join(File.pathSeparator, client, module.resolve("classes").toString(), shaded.toString());
    for (String entry : classpath.split(File.pathSeparator)) {
      String name = Path.of(entry).getFileName().toString();
      assertFalse(name.startsWith("spark-catalyst") || name.startsWith("spark-core") || name.startsWith("hadoop"),
          "the client's classpath holds " + name);
    }
    key = JobFixtures.keyFile(tmp, "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    // A small GloVe file, not the default model: each job's session loads dptext's classes anew on the server
    // (a session artifact), so each would build the default model's tables again (~13 s here).
    model = JobFixtures.gloveFile(tmp, 3000);
    input = tmp.resolve("tickets.jsonl");
    Files.write(input, List.of("{\"id\": 1, \"text\": \"the delivery was late and the box was damaged\"}",
        "{\"id\": 2, \"text\": \"please refund my order today\"}",
        "{\"id\": 3, \"text\": \"great service from the support team\"}",
        "{\"id\": 4, \"text\": broken"));
    server = ConnectServer.Bare.start();
  }

  @AfterAll
  static void tearDown() {
    if (server != null) {
      server.close();
    }
  }

  record Result(int exitCode, String out, String err) {}

  static Result job(String... args) throws Exception {
    return job(List.of(), args);
  }

  /** The job on the client's classpath, with {@code properties} ({@code key=value}) as system properties. */
  static Result job(List<String> properties, String... args) throws Exception {
    Path dir = Files.createTempDirectory(tmp, "run");
    List<String> session = new ArrayList<>(List.of("spark.remote=sc://127.0.0.1:" + server.port,
        "spark.api.mode=connect"));
    session.addAll(properties);
    Process p = JobProcess.start(dir.resolve("out"), dir.resolve("err"), "1g", session, classpath, args);
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the job ran over 5 minutes");
    return new Result(p.exitValue(), Files.readString(dir.resolve("out"), StandardCharsets.UTF_8),
        Files.readString(dir.resolve("err"), StandardCharsets.UTF_8));
  }

  static List<String> sanitize(String output, String... extra) {
    List<String> a = new ArrayList<>(List.of("sanitize", "--input", input.toString(), "--input-format", "json",
        "--input-schema", "id BIGINT, text STRING", "--text-column", "text", "--id-column", "id", "--model",
        model.toString(), "--neighbours", "32",
        "--key-file", key.toString(), "--output", output, "--mode", "overwrite", "--on-corrupt", "reject",
        "--rejects", output + "-rejects", "--progress-interval", "0"));
    a.addAll(List.of(extra));
    return a;
  }

  /** The classic job in this JVM's shared session, its output captured. */
  static JobFixtures.Run classic(String... args) {
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      return JobFixtures.run(SharedSpark.get(), args);
    }
  }

  /** A command's printout without its wall-clock times. */
  static String untimed(String out) {
    return out.replaceAll("; \\d+ s\\.", "; _ s.").replaceAll("sampling took [0-9.]+ s", "sampling took _ s");
  }

  static List<String> rows(String path, String format) {
    SparkSession spark = SharedSpark.get();
    return spark.read().format(format).load(path).orderBy("id").collectAsList().stream()
        .map(r -> r.getAs("id") + "|" + r.getAs("text")).toList();
  }

  @Test
  void theJobRunsOnTheClientClasspathAloneWithTheClassicJobsRows() throws Exception {
    String classic = tmp.resolve("classic").toString();
    String parquet = tmp.resolve("client-parquet").toString();
    // In place, keeping history: a raw Delta table sanitized where it is.
    String raw = tmp.resolve("raw").toString();
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      JobFixtures.Run c = JobFixtures.run(SharedSpark.get(), sanitize(classic, "--output-format", "parquet")
          .toArray(new String[0]));
      assertEquals(0, c.exitCode(), c.err());
      SharedSpark.get().read().schema("id BIGINT, text STRING").json(input.toString()).where("text IS NOT NULL")
          .write().format("delta").save(raw);
    }

    Result r = job(sanitize(parquet, "--output-format", "parquet").toArray(new String[0]));
    assertEquals(0, r.exitCode(), r.err());
    assertFalse(r.err().contains("NoClassDefFoundError"), r.err());
    assertTrue(r.err().contains("adding"), "the server had no dptext: the job shipped its jar " + r.err());
    List<String> inPlace = new ArrayList<>(sanitize(raw, "--in-place", "keep-history"));
    inPlace.set(inPlace.indexOf(input.toString()), raw);
    inPlace.remove("--input-format");
    inPlace.remove("json");
    inPlace.remove("--input-schema");
    inPlace.remove("id BIGINT, text STRING");
    Result i = job(inPlace.toArray(new String[0]));
    assertEquals(0, i.exitCode(), i.err());

    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      assertEquals(rows(classic, "parquet"), rows(parquet, "parquet"), "the classic job's rows");
      assertEquals(3, rows(parquet, "parquet").size());
      assertEquals(1, SharedSpark.get().read().format("parquet").load(parquet + "-rejects").count(), "the bad record");
      assertEquals(rows(classic, "parquet"), rows(raw, "delta"), "sanitized in place, as the classic job would");
    }
  }

  @Test
  void aStreamWithALedgerRunsOnTheClientClasspathAlone() throws Exception {
    Path landing = Files.createDirectories(tmp.resolve("landing"));
    Files.copy(input, landing.resolve("a.jsonl"));
    String output = tmp.resolve("client-stream").toString();
    List<String> a = new ArrayList<>(sanitize(output, "--stream", "--checkpoint", tmp.resolve("checkpoint").toString(),
        "--ledger", tmp.resolve("ledger").toString()));
    a.set(a.indexOf(input.toString()), landing.toString());
    a.remove("--mode");
    a.remove("overwrite");
    Result s = job(a.toArray(new String[0]));
    assertEquals(0, s.exitCode(), s.err());
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      assertEquals(3, rows(output, "delta").size());
      List<Row> ledger = SharedSpark.get().read().format("delta").load(tmp.resolve("ledger").toString())
          .where("event = 'intended'").collectAsList();
      assertEquals(1, ledger.size(), "the micro-batch is recorded");
    }
    // The ledger report, on the client's classpath: the classic report of the same ledger.
    Result report = job("ledger", "--ledger", tmp.resolve("ledger").toString());
    assertEquals(0, report.exitCode(), report.err());
    JobFixtures.Run classicReport = classic("ledger", "--ledger", tmp.resolve("ledger").toString());
    assertEquals(0, classicReport.exitCode(), classicReport.err());
    assertEquals(classicReport.out(), report.out());
    assertTrue(report.out().contains("largest ε per row"), report.out());
  }

  /**
   * A build-model file (it stores a covariance) on the client's classpath, with the classic job's rows: its
   * covariance's eigendecomposition is plain Java (it needed LAPACK's {@code org.netlib.util.intW} before).
   */
  @Test
  void aBuildModelFileRunsOnTheClientClasspathAlone() throws Exception {
    String built = tmp.resolve("built.dptext-model").toString();
    JobFixtures.Run b = classic("build-model", "--model", model.toString(), "--neighbours", "32", "--output", built);
    assertEquals(0, b.exitCode(), b.err());
    String output = tmp.resolve("built-client").toString();
    List<String> args = new ArrayList<>(sanitize(output, "--output-format", "parquet"));
    args.set(args.indexOf(model.toString()), built);
    args.remove("--neighbours");
    args.remove("32");
    Result r = job(args.toArray(new String[0]));
    assertEquals(0, r.exitCode(), r.err());
    args.set(args.indexOf(output), tmp.resolve("built-classic").toString());
    args.set(args.indexOf(output + "-rejects"), tmp.resolve("built-classic") + "-rejects");
    JobFixtures.Run c = classic(args.toArray(new String[0]));
    assertEquals(0, c.exitCode(), c.err());
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      assertEquals(rows(tmp.resolve("built-classic").toString(), "parquet"), rows(output, "parquet"));
    }
  }

  /**
   * {@code --model default} on the client's classpath: the classic job's rows (Laplace, which needs no neighbour
   * table, keeps the server's and this JVM's work small), and the machine's cache of the model written by that run
   * and read by the next (privacy-stats on {@code default}: the classic table).
   */
  @Test
  void theDefaultModelIsCachedOnTheClientAndPrivacyStatsRuns() throws Exception {
    List<String> cache = List.of("dptext.modelCache=" + tmp.resolve("model-cache"));
    List<String> args = new ArrayList<>(sanitize(tmp.resolve("default-classic").toString(), "--output-format",
        "parquet", "--mechanism", "laplace"));
    args.set(args.indexOf(model.toString()), "default");
    args.remove("--neighbours");
    args.remove("32");
    JobFixtures.Run c = classic(args.toArray(new String[0]));
    assertEquals(0, c.exitCode(), c.err());
    String output = tmp.resolve("default-client").toString();
    args.set(args.indexOf(tmp.resolve("default-classic").toString()), output);
    args.set(args.indexOf(tmp.resolve("default-classic").toString() + "-rejects"), output + "-rejects");
    Result r = job(cache, args.toArray(new String[0]));
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.err().contains("dptext default model built in") && r.err().contains("without neighbour tables"),
        "cached, as this JVM builds it: " + r.err());
    try (InJvmSpark.Held held = InJvmSpark.hold()) {
      assertEquals(rows(tmp.resolve("default-classic").toString(), "parquet"), rows(output, "parquet"));
    }

    String[] stats = {"privacy-stats", "--model", "default", "--mechanisms", "laplace", "--epsilons", "10", "--words",
        "20", "--runs", "10", "--seed", "3"};
    Result s = job(cache, stats);
    assertEquals(0, s.exitCode(), s.err());
    assertTrue(s.err().contains("dptext default model read from this machine's cache"), s.err());
    JobFixtures.Run classicStats = classic(stats);
    assertEquals(0, classicStats.exitCode(), classicStats.err());
    assertEquals(untimed(classicStats.out()), untimed(s.out()));
  }

  /** calibrate and tune on the client's classpath print the classic runs' figures. */
  @Test
  void calibrateAndTuneRunOnTheClientClasspathAlone() throws Exception {
    String[] calibrate = {"calibrate", "--model", model.toString(), "--neighbours", "32", "--mechanism-a", "laplace",
        "--epsilon-a", "10", "--mechanism-b", "brr:bits=64"};
    Result r = job(calibrate);
    assertEquals(0, r.exitCode(), r.err());
    JobFixtures.Run c = classic(calibrate);
    assertEquals(0, c.exitCode(), c.err());
    assertEquals(untimed(c.out()), untimed(r.out()));

    Path lexicon = tmp.resolve("lexicon.csv");
    Files.writeString(lexicon, "word,label\ngood,1\ngreat,1\nbest,1\nbad,0\nworst,0\npoor,0\n");
    String[] tune = {"tune", "--max-utility-loss", "0.2", "--lexicon", lexicon.toString(), "--uniform-prior",
        "--model", model.toString(), "--neighbours", "32", "--mechanisms", "santext laplace", "--draws", "200",
        "--max-draws", "200", "--refine", "2", "--output", tmp.resolve("tune-client").toString()};
    Result t = job(tune);
    assertEquals(0, t.exitCode(), t.err());
    tune[tune.length - 1] = tmp.resolve("tune-classic").toString();
    JobFixtures.Run ct = classic(tune);
    assertEquals(0, ct.exitCode(), ct.err());
    assertEquals(untimed(ct.out()).replace("tune-classic", "tune-client"), untimed(t.out()));
    assertTrue(t.out().contains("Recommended: "), t.out());
    assertEquals(Files.readString(tmp.resolve("tune-classic/tune-points.csv")),
        Files.readString(tmp.resolve("tune-client/tune-points.csv")));
  }
}
