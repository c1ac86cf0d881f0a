package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dptext.job.testing.SharedSpark;
import dev.dptext.settings.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Executes every notebook in {@code notebooks/} cell by cell against local Spark, so a notebook that
 * stops working fails the build: SQL cells (and {@code %sql} cells) statement by statement through
 * {@code spark.sql}, Scala cells (and {@code %scala} cells) through the Scala interpreter, markdown
 * skipped; any other language fails, as it could not be checked here. A failing cell fails the test
 * naming the notebook and the cell number.
 *
 * <p>Each notebook runs in its own session (as on Databricks), on a simulated cluster configured as
 * the notebooks' prerequisites say: a secret scope {@code dptext} with the key {@code rng-key}, and
 * the cluster Spark conf {@code spark.dptext.secretKey {{secrets/dptext/rng-key}}} already resolved.
 * Scala cells also find stand-ins for {@code dbutils.secrets} and {@code display} (a test fixture:
 * {@code databricks-runtime-stand-ins.scala}). Every notebook must end with the Delta table
 * {@value #SANITIZED_TABLE} holding one sanitized row per row of the view {@value #SAMPLE_VIEW}.
 */
@Tag("integration")
class NotebooksTest {
  static final Path NOTEBOOKS = Path.of("../notebooks");
  static final String SAMPLE_VIEW = "support_tickets";
  static final String SANITIZED_TABLE = "support_tickets_sanitized";
  static final String KEY_HEX = "5a17c0ffee5a17c0ffee5a17c0ffee5a17c0ffee5a17c0ffee5a17c0ffee5a17";
  static final Map<String, String> SECRET_SCOPES = Map.of("dptext/rng-key", KEY_HEX);

  private static ScalaNotebookInterpreter interpreter;

  @Test
  void theRequiredNotebooksExist() {
    assertTrue(Files.exists(NOTEBOOKS.resolve("dptext-sql.sql")));
    assertTrue(Files.exists(NOTEBOOKS.resolve("dptext-scala.scala")));
  }

  @Test
  void cellsAndStatementsAreSplitAsDatabricksDoes(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("example.sql");
    Files.writeString(file, String.join("\n",
        "-- Databricks notebook source",
        "-- MAGIC %md",
        "-- MAGIC # Title; not SQL",
        "",
        "-- COMMAND ----------",
        "",
        "-- DBTITLE 1,Two statements",
        "SELECT 'a;b' AS x; -- a comment; with a semicolon",
        "/* a block; comment */ SELECT `c;d` FROM t;",
        "-- only a comment;",
        "",
        "-- COMMAND ----------",
        "",
        "-- MAGIC %scala",
        "-- MAGIC val x = 1",
        "-- MAGIC",
        "-- MAGIC println(x)",
        ""));
    List<DatabricksNotebook.Cell> cells = DatabricksNotebook.parse(file).cells();
    assertEquals(List.of("md", "sql", "scala"), cells.stream().map(DatabricksNotebook.Cell::language).toList());
    assertEquals("# Title; not SQL", cells.get(0).source());
    assertEquals("val x = 1\n\nprintln(x)", cells.get(2).source());
    List<String> statements = DatabricksNotebook.sqlStatements(cells.get(1).source());
    assertEquals(2, statements.size(), statements.toString());
    assertEquals("SELECT 'a;b' AS x", statements.get(0));
    assertTrue(statements.get(1).endsWith("SELECT `c;d` FROM t"), statements.get(1));
  }

  @Test
  void aFailingCellFailsTheTestNamingTheNotebookAndTheCell(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("broken.sql");
    Files.writeString(file, "-- Databricks notebook source\nSELECT 1\n\n-- COMMAND ----------\n\n"
        + "SELECT * FROM no_such_table\n");
    AssertionError e = assertThrows(AssertionError.class, () -> runNotebook(file));
    assertTrue(e.getMessage().contains("notebooks/broken.sql cell 2 (sql) failed")
        && e.getMessage().contains("no_such_table"), e.getMessage());
  }

  @Test
  void closuresDefinedInAScalaCellRunInTasks() throws IOException {
    SparkSession session = SharedSpark.get().newSession();
    interpreter().startNotebook(session, SECRET_SCOPES, standIns());
    String out = interpreter().run(String.join("\n",
        "val offset = 3",
        "val shifted = spark.sparkContext.parallelize(1 to 4, 2).map(_ + offset).collect().toList"));
    assertTrue(out.contains("List(4, 5, 6, 7)"), out);
  }

  @TestFactory
  Stream<DynamicTest> everyNotebookRunsCellByCellAndEndsWithTheSanitizedDeltaTable() throws IOException {
    List<Path> notebooks;
    try (Stream<Path> files = Files.list(NOTEBOOKS)) {
      // Python notebooks run under real PySpark, in the Python module's tests (python/tests/classic).
      notebooks = files.filter(p -> !p.getFileName().toString().endsWith(".md") && !p.getFileName().toString().endsWith(".py"))
          .sorted().collect(Collectors.toList());
    }
    return notebooks.stream().map(p -> DynamicTest.dynamicTest(p.getFileName().toString(), () -> runNotebook(p)));
  }

  static void runNotebook(Path path) {
    DatabricksNotebook notebook = DatabricksNotebook.parse(path);
    SparkSession cluster = SharedSpark.get();
    cluster.sql("DROP TABLE IF EXISTS " + SANITIZED_TABLE);
    SparkSession session = cluster.newSession();
    // The cluster's Spark config names the secret; dbutils (a stand-in here) reads it.
    com.databricks.dbutils_v1.DBUtilsHolder$.SECRETS.putAll(SECRET_SCOPES);
    session.conf().set(Settings.DATABRICKS_SECRET.confKey(), "dptext/rng-key");
    SparkSession.setActiveSession(session);
    boolean scalaStarted = false;
    StringBuilder printed = new StringBuilder();
    long start = System.nanoTime();
    try {
      for (DatabricksNotebook.Cell cell : notebook.cells()) {
        long cellStart = System.nanoTime();
        try {
          switch (cell.language()) {
            case "md" -> {
              continue;
            }
            case "sql" -> show(printed, runSql(session, cell.source()));
            case "scala" -> {
              if (!scalaStarted) {
                interpreter().startNotebook(session, SECRET_SCOPES, standIns());
                scalaStarted = true;
              }
              show(printed, interpreter().run(cell.source()));
            }
            default -> throw new IllegalStateException(
                "cells in '" + cell.language() + "' cannot be executed by the tests; use SQL or Scala");
          }
        } catch (Throwable e) {
          fail("notebooks/" + path.getFileName() + " cell " + cell.number() + " (" + cell.language()
              + ") failed: " + e.getMessage(), e);
        }
        System.out.printf(Locale.ROOT, "notebooks/%s cell %d (%s): %.1f s%n",
            path.getFileName(), cell.number(), cell.language(), (System.nanoTime() - cellStart) / 1e9);
      }
      System.out.printf(Locale.ROOT, "notebooks/%s: %d cells in %.1f s%n",
          path.getFileName(), notebook.cells().size(), (System.nanoTime() - start) / 1e9);
      assertFalse(printed.toString().toLowerCase(Locale.ROOT).contains(KEY_HEX),
          path.getFileName() + " shows the key in a result or an interpreter echo");
      assertSanitizedTable(session, path.getFileName().toString());
    } finally {
      SparkSession.setActiveSession(cluster);
    }
  }

  private static void show(StringBuilder printed, String cellOutput) {
    printed.append(cellOutput);
    System.out.print(cellOutput);
  }

  /** Runs a SQL cell's statements; returns the rows they produced, as the notebook would show them. */
  static String runSql(SparkSession session, String cell) {
    StringBuilder shown = new StringBuilder();
    for (String statement : DatabricksNotebook.sqlStatements(cell)) {
      Dataset<Row> result = session.sql(statement);
      List<Row> rows = result.collectAsList(); // a query runs only when its rows are read
      if (!rows.isEmpty()) {
        shown.append(String.join(" | ", result.columns())).append('\n');
        rows.forEach(r -> shown.append(r.mkString(" | ")).append('\n'));
      }
    }
    return shown.toString();
  }

  /** The table every notebook must end with: Delta, one row per input row, text rewritten, no key. */
  static void assertSanitizedTable(SparkSession session, String notebook) {
    assertTrue(session.catalog().tableExists(SANITIZED_TABLE), notebook + " did not create " + SANITIZED_TABLE);
    Row detail = session.sql("DESCRIBE DETAIL " + SANITIZED_TABLE).first();
    assertEquals("delta", detail.getAs("format"), notebook);
    long rowsIn = session.table(SAMPLE_VIEW).count();
    assertTrue(rowsIn > 0, notebook);
    assertEquals(rowsIn, session.table(SANITIZED_TABLE).count(), notebook + ": rows out ≠ rows in");

    List<Row> pairs = session.sql("SELECT i.body, o.body FROM " + SAMPLE_VIEW + " i JOIN " + SANITIZED_TABLE
        + " o USING (ticket_id)").collectAsList();
    assertEquals(rowsIn, pairs.size(), notebook + ": ticket ids lost or duplicated");
    long texts = 0;
    long changed = 0;
    for (Row pair : pairs) {
      if (pair.isNullAt(0)) {
        assertNull(pair.get(1), notebook + ": a null text must stay null");
      } else if (pair.getString(0).isEmpty()) {
        assertEquals("", pair.getString(1), notebook + ": an empty text must stay empty");
      } else {
        texts++;
        changed += pair.getString(0).equals(pair.getString(1)) ? 0 : 1;
      }
    }
    assertTrue(changed * 2 > texts, notebook + ": only " + changed + " of " + texts + " texts changed");

    Map<String, String> properties = session.sql("SHOW TBLPROPERTIES " + SANITIZED_TABLE).collectAsList().stream()
        .collect(Collectors.toMap(r -> r.getString(0), r -> r.getString(1)));
    assertEquals("santext+", properties.get("dptext.mechanism"), notebook + ": " + properties);
    assertEquals(3.0, Double.parseDouble(properties.get("dptext.epsilon")), notebook + ": " + properties);
    String history = session.sql("DESCRIBE HISTORY " + SANITIZED_TABLE).collectAsList().toString();
    for (String metadata : List.of(properties.toString(), history, detail.toString())) {
      assertFalse(metadata.toLowerCase(Locale.ROOT).contains(KEY_HEX), notebook + ": the key reached the table's metadata");
    }
  }

  private static synchronized ScalaNotebookInterpreter interpreter() {
    if (interpreter == null) {
      interpreter = new ScalaNotebookInterpreter(SharedSpark.REPL_CLASSES);
    }
    return interpreter;
  }

  private static String standIns() throws IOException {
    try (InputStream in = NotebooksTest.class.getResourceAsStream("databricks-runtime-stand-ins.scala")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
