package dev.dptext.job.inplace;

import static dev.dptext.job.testing.JobFixtures.canaryFound;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.testing.CanaryTickets;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write path's holes an adversarial operator found, each tried through the CLI:
 * a purge through a symbolic link, other spellings of the input's path, an output nested in the input
 * (or the reverse), and rejected raw records inside the output or the input.
 */
@Tag("integration")
class WritePathHolesTest {
  static final String CANARY = JobFixtures.CANARY;

  @TempDir static Path tmp;
  static CanaryTickets fx;
  static SparkSession spark;
  static Path keyFile;
  static Path embeddings;
  static Path tickets;
  /** The same tickets with two malformed records, for the rejects runs. */
  static Path broken;

  @BeforeAll
  static void setUp() throws Exception {
    fx = CanaryTickets.in(tmp);
    spark = SharedSpark.get();
    keyFile = fx.keyFile();
    embeddings = fx.embeddings();
    tickets = fx.tickets();
    broken = tmp.resolve("broken.jsonl");
    List<String> withBad = new ArrayList<>(Files.readAllLines(tickets));
    withBad.add("{\"id\": 98, \"text\": \"" + CANARY + " not closed");
    withBad.add("not json at all " + CANARY);
    Files.write(broken, withBad);
  }

  static Run sanitize(Path input, String output, String... extra) {
    return fx.sanitize(input, output, extra);
  }

  /** A raw Delta table of the tickets at {@code dir}. */
  static Path rawTable(Path dir) {
    fx.rawTableAt(dir.toString());
    return dir;
  }

  static List<String> texts(String path) {
    return fx.texts(path);
  }

  static long versions(Path table) {
    return spark.sql("DESCRIBE HISTORY delta.`" + table + "`").count();
  }

  static List<String> names(Path dir) throws Exception {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
  }

  /**
   * A purge through a link must purge the table the link points to: afterwards nothing at the real
   * location holds raw text (Parquet rows, the log, checksums), and the link still leads to it.
   */
  @Test
  void purgeThroughALinkedOutputOrInputPurgesTheRealTable() throws Exception {
    for (boolean linkIsOutput : List.of(true, false)) {
      String name = linkIsOutput ? "out" : "in";
      Path store = Files.createDirectories(tmp.resolve("store-" + name));
      Path views = Files.createDirectories(tmp.resolve("views-" + name));
      Path real = rawTable(store.resolve("tickets"));
      Path link = Files.createSymbolicLink(views.resolve("tickets"), real);
      Run r = linkIsOutput
          ? sanitize(real, link.toString(), "--mode", "overwrite", "--in-place", "purge-history")
          : sanitize(link, real.toString(), "--mode", "overwrite", "--in-place", "purge-history");
      assertEquals(0, r.exitCode(), name + ": " + r.err());
      assertTrue(r.out().contains("the raw table and its whole history were deleted"), r.out());
      // The claim is true at the real location.
      assertTrue(Files.isSymbolicLink(link) && Files.readSymbolicLink(link).equals(real), "the link stays a link");
      assertTrue(Files.isDirectory(real) && !Files.isSymbolicLink(real));
      assertEquals(List.of(), canaryFound(real), name + ": raw text left in the real table");
      // No earlier version exists: every version time travel reaches, version 0 included, is the new
      // table's (sanitized rows only).
      for (long v = 0; v < versions(real); v++) {
        assertFalse(spark.read().format("delta").option("versionAsOf", v).load(real.toString()).collectAsList()
            .toString().contains(CANARY), name + ": raw rows at version " + v);
      }
      List<String> texts = texts(real.toString());
      assertEquals(20, texts.size());
      assertFalse(texts.stream().anyMatch(t -> t.contains(CANARY)), name);
      // Through the link: the same sanitized table.
      assertEquals(texts, texts(link.toString()));
      // No staging or raw copy left anywhere, beside the link or beside the real table.
      assertEquals(List.of("tickets"), names(store), name);
      assertEquals(List.of("tickets"), names(views), name);
    }
  }

  /**
   * A purge through a relative link that crashed between its two renames: the link dangles (the real
   * table was renamed away), the raw table and the ready staging table are beside the real path. The
   * re-run through the link finishes the swap at the real path, not beside the link.
   */
  @Test
  void aPurgeInterruptedBehindADanglingLinkIsFinishedAtTheRealPath() throws Exception {
    Path store = Files.createDirectories(tmp.resolve("store-crash"));
    Path views = Files.createDirectories(tmp.resolve("views-crash"));
    Path real = rawTable(store.resolve("tickets"));
    Path link = Files.createSymbolicLink(views.resolve("tickets"), Path.of("..", "store-crash", "tickets"));
    Path staging = store.resolve(".tickets.dptext-staging");
    assertEquals(0, sanitize(real, staging.toString()).exitCode());
    Files.writeString(staging.resolve(InPlaceSwap.READY), "ready\n");
    Files.move(real, store.resolve(".tickets.dptext-raw"));
    assertFalse(Files.exists(link), "the link dangles");
    Run r = sanitize(link, link.toString(), "--mode", "overwrite", "--in-place", "purge-history");
    assertEquals(0, r.exitCode(), r.out() + r.err());
    assertTrue(r.out().contains("Completed the interrupted in-place run"), r.out());
    assertTrue(Files.isSymbolicLink(link) && Files.isDirectory(real) && !Files.isSymbolicLink(real));
    assertEquals(List.of("tickets"), names(store), "the raw copy and the staging table are gone");
    assertEquals(List.of("tickets"), names(views));
    assertEquals(List.of(), canaryFound(real));
    assertEquals(20, texts(link.toString()).size());
  }

  /** Other spellings of the input's own path are the input: refused by default like the path itself. */
  @Test
  void everySpellingOfTheInputsPathIsRecognisedAsInPlace() throws Exception {
    Path table = rawTable(tmp.resolve("spelled"));
    Path linkedParent = Files.createSymbolicLink(tmp.resolve("spelled-parent-link"), tmp);
    Path cwd = Path.of("").toAbsolutePath();
    List<String> spellings = List.of(
        "./" + cwd.relativize(table), // ./ and ../.. (relative to the working directory)
        table + "/",
        table + "//",
        "file:" + table,
        "file://" + table,
        tmp + "//spelled",
        tmp + "/./x/../spelled",
        linkedParent.resolve("spelled").toString());
    long before = versions(table);
    for (String spelling : spellings) {
      Run r = sanitize(table, spelling, "--mode", "overwrite");
      assertEquals(2, r.exitCode(), spelling + ": " + r.out() + r.err());
      assertTrue(r.err().contains("is the input") && r.err().contains("--in-place purge-history"), spelling + ": "
          + r.err());
    }
    assertEquals(before, versions(table), "nothing may be written");
    // A name with a space, spelled through a link to its parent and with a file: prefix.
    Path spaced = rawTable(tmp.resolve("spelled table"));
    for (String spelling : List.of("file:" + linkedParent.resolve("spelled table"), spaced + "/")) {
      Run r = sanitize(spaced, spelling, "--mode", "overwrite");
      assertEquals(2, r.exitCode(), spelling + ": " + r.out() + r.err());
      assertTrue(r.err().contains("is the input"), spelling + ": " + r.err());
    }
    assertEquals(1, versions(spaced));
  }

  /**
   * An output directory that contains the input, or lies inside it, is refused before anything is read
   * or written, for Parquet and Delta, and through a link as well.
   */
  @Test
  void anOutputContainingTheInputOrInsideItIsRefusedAndNothingIsDeleted() throws Exception {
    // Parquet overwrite of the directory holding the input file: it would delete the raw input.
    Path dir1 = Files.createDirectories(tmp.resolve("nest-1"));
    Path in1 = Files.copy(tickets, dir1.resolve("tickets.jsonl"));
    Path link1 = Files.createSymbolicLink(tmp.resolve("nest-1-link"), dir1);
    for (String output : List.of(dir1.toString(), link1.toString(), dir1 + "/")) {
      for (String format : List.of("parquet", "delta")) {
        Run r = sanitize(in1, output, "--mode", "overwrite", "--output-format", format);
        assertEquals(2, r.exitCode(), output + " " + format + ": " + r.out() + r.err());
        assertTrue(r.err().contains("--input " + in1) && r.err().contains("--output " + output)
            && r.err().contains("inside"), r.err());
        assertEquals(List.of("tickets.jsonl"), names(dir1), "nothing written or deleted");
        assertEquals(Files.readAllLines(tickets), Files.readAllLines(in1));
      }
    }

    // A glob input: an output directory matched by it, or holding what it matches.
    Path dir5 = Files.createDirectories(tmp.resolve("nest-5"));
    Files.copy(tickets, dir5.resolve("tickets.jsonl"));
    Files.createDirectories(dir5.resolve("out"));
    Files.writeString(dir5.resolve("out").resolve("old.json"), "{\"id\": 0, \"text\": \"older output\"}\n");
    for (String[] glob : List.of(new String[] {dir5 + "/*", dir5.resolve("out").toString()},
        new String[] {dir5 + "/*.jsonl", dir5.toString()})) {
      Run g = JobFixtures.run("sanitize", "--input", glob[0], "--input-format", "json", "--output",
          glob[1], "--output-format", "parquet", "--mode", "overwrite", "--id-column", "id", "--model",
          embeddings.toString(), "--key-file", keyFile.toString());
      assertEquals(2, g.exitCode(), glob[0] + " -> " + glob[1] + ": " + g.out() + g.err());
      assertTrue(g.err().contains("--input " + glob[0]) && g.err().contains("--output " + glob[1]), g.err());
      assertEquals(List.of("out", "tickets.jsonl"), names(dir5));
      assertEquals(List.of("old.json"), names(dir5.resolve("out")));
    }

    // Parquet output inside a Parquet input directory.
    Path in2 = tmp.resolve("nest-2");
    spark.read().json(tickets.toString()).write().parquet(in2.toString());
    List<String> in2Files = names(in2);
    Run p = sanitize(in2, in2.resolve("sanitized").toString(), "--input-format", "parquet",
        "--output-format", "parquet", "--mode", "overwrite");
    assertEquals(2, p.exitCode(), p.out() + p.err());
    assertTrue(p.err().contains("inside") && p.err().contains(in2.toString()), p.err());
    assertEquals(in2Files, names(in2));

    // Delta output inside a Delta input table: the input's VACUUM would delete the output's files.
    Path in3 = rawTable(tmp.resolve("nest-3"));
    List<String> in3Files = names(in3);
    Run d = sanitize(in3, in3.resolve("sanitized").toString());
    assertEquals(2, d.exitCode(), d.out() + d.err());
    assertTrue(d.err().contains("inside"), d.err());
    assertEquals(in3Files, names(in3));
    assertEquals(1, versions(in3));

    // An input file inside an existing Delta output table: an overwrite there, then a VACUUM, would
    // delete it.
    Path out4 = rawTable(tmp.resolve("nest-4"));
    Path in4 = Files.copy(tickets, out4.resolve("tickets.jsonl"));
    Run d4 = sanitize(in4, out4.toString(), "--mode", "overwrite");
    assertEquals(2, d4.exitCode(), d4.out() + d4.err());
    assertTrue(d4.err().contains("inside"), d4.err());
    assertEquals(1, versions(out4));
    assertTrue(Files.exists(in4));
  }

  /** Rejected records are raw: never inside the output or the input, nor in a directory holding either. */
  @Test
  void rejectsInsideOrAroundTheOutputOrTheInputAreRefused() throws Exception {
    Path base = Files.createDirectories(tmp.resolve("rej"));
    Path inDir = Files.createDirectories(base.resolve("in"));
    Files.copy(broken, inDir.resolve("broken.jsonl"));
    Path out = base.resolve("out");
    Path outLink = base.resolve("out-link");
    Files.createDirectories(out);
    Files.createSymbolicLink(outLink, out);
    List<String> rejectsPaths = List.of(
        out.resolve("_rejects").toString(), // inside the output
        outLink.resolve("rejects").toString(), // inside the output, through a link
        out + "/./rejects/", // inside the output, spelled otherwise
        base.toString(), // holds the output and the input
        inDir.resolve("rejects").toString()); // inside the input (a directory of JSON files)
    for (String format : List.of("delta", "parquet")) {
      for (String rejects : rejectsPaths) {
        Run r = sanitize(inDir, out.toString(), "--input-format", "json", "--mode", "overwrite",
            "--output-format", format, "--on-corrupt", "reject", "--rejects", rejects);
        assertEquals(2, r.exitCode(), rejects + " " + format + ": " + r.out() + r.err());
        assertTrue(r.err().contains("--rejects " + rejects) && r.err().contains("raw"), r.err());
        assertTrue(r.err().contains(rejects.equals(base.toString()) ? "contains --output " + out + " (resolved: "
            + "file:" + out.toRealPath() + " inside file:" + base.toRealPath() + ")" : "is inside --"), r.err());
        assertFalse(r.err().contains(CANARY));
        assertEquals(List.of(), names(out), rejects + ": nothing written");
        assertEquals(List.of("broken.jsonl"), names(inDir));
      }
    }
    // The control: rejects beside the output run, and hold the two malformed records.
    Path rejects = base.resolve("rejects");
    Run ok = sanitize(inDir, out.toString(), "--input-format", "json", "--mode", "overwrite",
        "--on-corrupt", "reject", "--rejects", rejects.toString());
    assertEquals(0, ok.exitCode(), ok.err());
    assertEquals(2, spark.read().format("delta").load(rejects.toString()).count());
    assertEquals(20, spark.read().format("delta").load(out.toString()).count());
  }
}
