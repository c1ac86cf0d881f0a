package dev.dptext.job;

import static dev.dptext.job.testing.JobFixtures.SAMPLE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.command.ConfigFile;
import dev.dptext.job.testing.JobFixtures.Output;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The Databricks JAR task entry point, in-process: it runs in the existing session and leaves it
 * running, returns normally on success, and throws (never exits) with the exit code and the message
 * on failure. Also checks that the sample job definition names this class and a valid configuration.
 */
class DatabricksTaskTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;

  @BeforeAll
  static void setUp() throws Exception {
    spark = SharedSpark.get();
    keyFile = JobFixtures.keyFile(tmp, "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0");
    embeddings = JobFixtures.gloveFile(tmp, 2000);
  }

  /** Runs the task with stdout and stderr captured; returns them, or rethrows what it threw. */
  static Output runTask(String... args) {
    return JobFixtures.capture(() -> DatabricksTask.main(args));
  }

  static String[] sanitize(String output, String... extra) {
    List<String> a = new ArrayList<>(List.of("--mechanism", "santext", "--epsilon", "2"));
    a.addAll(List.of(extra));
    return JobFixtures.sanitizeArgs(SAMPLE, output, keyFile, embeddings, a.toArray(new String[0]));
  }

  @Test
  void successReturnsNormallyInTheExistingSession() {
    String out = tmp.resolve("sanitized").toString();
    Output printed = runTask(sanitize(out));
    assertTrue(printed.out().contains("rows in / out      16 / 16"), printed.out() + printed.err());
    assertSame(spark, SparkSession.active(), "the task must use the running session");
    assertFalse(spark.sparkContext().isStopped(), "the task must not stop the cluster's session");
    assertEquals(16, spark.read().format("delta").load(out).count());
  }

  /**
   * A refusal from the error catalogue reaches the task's caller by name, and the run's {@code --summary-json}
   * (where a scheduler reads the outcome) names it too; a run that succeeds says so there.
   */
  @Test
  void aRefusalCarriesItsCatalogueNameToTheFailureAndTheSummary() throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "not a table");
    Path summary = tmp.resolve("failed-summary.json");
    DatabricksTask.Failure refused = assertThrows(DatabricksTask.Failure.class,
        () -> runTask(sanitize(file.toString(), "--summary-json", summary.toString())));
    assertEquals("OUTPUT_IS_A_FILE", refused.errorClass());
    assertEquals(file.toString(), refused.parameters().get("path"));
    assertEquals(ExitCode.USAGE.code, refused.exitCode());
    assertEquals("not a table", Files.readString(file), "a refused run leaves the output as it was");
    JsonNode failed = new ObjectMapper().readTree(summary.toFile());
    assertEquals("failed", failed.at("/outcome").asText());
    assertEquals(ExitCode.USAGE.code, failed.at("/exitCode").asInt());
    assertEquals("OUTPUT_IS_A_FILE", failed.at("/error").asText());
    assertEquals(file.toString(), failed.at("/errorParameters/path").asText());

    String out = tmp.resolve("summarized").toString();
    Path done = tmp.resolve("done-summary.json");
    runTask(sanitize(out, "--summary-json", done.toString()));
    JsonNode succeeded = new ObjectMapper().readTree(done.toFile());
    assertEquals("succeeded", succeeded.at("/outcome").asText(), succeeded.toString());
    assertEquals(0, succeeded.at("/exitCode").asInt());
    assertTrue(succeeded.at("/error").isMissingNode(), succeeded.toString());
  }

  @Test
  void failuresThrowWithTheExitCodeAndTheMessageInsteadOfExiting() {
    String out = tmp.resolve("never").toString();
    DatabricksTask.Failure usage = assertThrows(DatabricksTask.Failure.class,
        () -> runTask(sanitize(out, "--epsilom", "3")));
    assertEquals(ExitCode.USAGE.code, usage.exitCode());
    assertTrue(usage.getMessage().contains("exit code 2") && usage.getMessage().contains("--epsilom")
        && usage.getMessage().contains("retrying will not help"), usage.getMessage());
    assertFalse(usage.getMessage().contains("Usage:"), "the usage help belongs in the log, not the message");

    DatabricksTask.Failure input = assertThrows(DatabricksTask.Failure.class,
        () -> runTask(sanitize(out, "--text-column", "body")));
    assertEquals(ExitCode.INPUT.code, input.exitCode());
    ErrorAssertions.assertErrorText(input.getMessage(), "COLUMN_NOT_IN_INPUT");
    assertTrue(input.getMessage().contains("'body'") && input.getMessage().contains("customer"), input.getMessage());

    DatabricksTask.Failure noCommand = assertThrows(DatabricksTask.Failure.class, () -> runTask());
    assertEquals(ExitCode.USAGE.code, noCommand.exitCode());
    assertFalse(spark.sparkContext().isStopped());
  }

  @Test
  void theSampleJobDefinitionRunsThisClassWithAValidConfiguration() throws Exception {
    JsonNode job = new ObjectMapper().readTree(Path.of("../conf/databricks-job.json").toFile());
    JsonNode cluster = job.at("/job_clusters/0/new_cluster");
    assertTrue(cluster.at("/spark_version").asText().startsWith("17."), "DBR 17 is Spark 4.0 on Scala 2.13");
    String keyReference = cluster.at("/spark_env_vars/DPTEXT_KEY").asText();
    assertTrue(keyReference.matches("\\{\\{secrets/[^/]+/[^/]+}}"), "the key must be a secret reference: " + keyReference);
    assertTrue(job.at("/schedule/quartz_cron_expression").isTextual());

    JsonNode task = job.at("/tasks/0");
    assertEquals("dptext", task.at("/job_cluster_key").asText());
    assertEquals(DatabricksTask.class.getName(), task.at("/spark_jar_task/main_class_name").asText());
    assertTrue(task.at("/libraries/0/jar").asText().endsWith("-shaded.jar"));
    List<String> parameters = new ArrayList<>();
    task.at("/spark_jar_task/parameters").forEach(p -> parameters.add(p.asText()));
    assertEquals("sanitize", parameters.get(0));
    String config = parameters.get(parameters.indexOf("--config") + 1);
    // Idempotent: every retry of a job run passes the same transaction version.
    assertTrue(parameters.get(parameters.indexOf("--txn-version") + 1).startsWith("{{job.start_time."), parameters.toString());

    // The configuration it names is the one in conf/, and every key in it is a sanitize option.
    Path local = Path.of("../conf").resolve(Path.of(config).getFileName());
    assertTrue(Files.exists(local), "conf/ has no " + local.getFileName());
    CommandLine sanitizeCommand = DpTextJob.commandLine().getSubcommands().get("sanitize");
    ConfigFile.load(local).validateAgainst(sanitizeCommand.getCommandSpec());
    assertFalse(Files.readString(local).matches("(?s).*[0-9a-fA-F]{32}.*"), "a key-like value in " + local);
  }
}
