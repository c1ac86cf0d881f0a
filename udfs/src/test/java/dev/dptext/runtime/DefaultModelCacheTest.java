package dev.dptext.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.knn.NeighbourTable;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.SecretKey;
import dev.dptext.runtime.DefaultModelCache.Embedded;
import dev.dptext.runtime.DefaultModelCache.Loaded;
import dev.dptext.runtime.DefaultModelCache.Outcome;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.ModelCache;
import dev.dptext.settings.Settings;
import dev.dptext.text.TokenCounts;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machine's cache of the default model: written by the first load, read by the next, refused when it is
 * damaged, of another identity or in a directory others can write, and never a failure. On a 2,000-word
 * embeddings file in place of the embedded 25,000 (K = 8), so that each build takes well under a second; the
 * code path is the default model's.
 */
@Tag("integration")
class DefaultModelCacheTest {
  static final Path FIXTURE = Path.of("src/test/resources/fixtures/glove-top2000.txt.gz");
  static final Embedded SMALL = new Embedded(() -> Files.newInputStream(FIXTURE), "test:glove-top2000");
  static final int K = 8;
  static final String KEY_HEX = "00112233445566778899aabbccddeeff0123456789abcdef0123456789abcdef";

  @TempDir Path tmp;

  private static ModelCache.Location at(Path dir) {
    return new ModelCache.Location(dir, "test");
  }

  @Test
  void theFirstLoadWritesTheCacheAndTheNextReadsTheSameModel() throws Exception {
    Path dir = tmp.resolve("cache/dptext/models");
    Loaded first = DefaultModelCache.load(at(dir), SMALL, K);
    assertEquals(Outcome.WRITTEN, first.outcome());
    assertTrue(Files.isRegularFile(first.file()), "written");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(first.file())));
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(List.of(first.file()), files.toList(), "no temporary file left");
    }

    Loaded second = DefaultModelCache.load(at(dir), SMALL, K); // as a new JVM would: not ModelLoader's map
    assertEquals(Outcome.READ, second.outcome());
    assertEquals(first.file(), second.file());
    DpTextModel memory = DefaultModelCache.inMemory(SMALL, K); // what a run without the cache builds
    for (DpTextModel m : List.of(first.model(), second.model())) {
      assertEquals(memory.hash(), m.hash(), "the identity runs and audits record");
      assertEquals(memory.metadata(), m.metadata());
      assertEquals(memory.rowLengths(), m.rowLengths());
      assertArrayEquals(memory.embeddings().rawVectors(), m.embeddings().rawVectors());
      assertFalse(m.hasCovariance(), "computed on first use, as in memory: reading needs no LAPACK");
    }
    assertEquals(first.model().tables().keySet(), second.model().tables().keySet());
    for (int start : second.model().tables().keySet()) {
      NeighbourTable read = second.model().tables().get(start);
      NeighbourTable computed = memory.neighbours(start);
      assertArrayEquals(computed.rawOffsets(), read.rawOffsets());
      assertArrayEquals(computed.rawNeighbours(), read.rawNeighbours());
      assertArrayEquals(computed.rawOutsideBounds(), read.rawOutsideBounds(), "bit for bit (no tolerance)");
    }
  }

  /** Same tables, same rows: santext, santext+ (both tables cached) and mahalanobis (covariance on first use). */
  @Test
  void sanitizedRowsAreTheSameWithAndWithoutTheCache() throws Exception {
    Path dir = tmp.resolve("models");
    DefaultModelCache.load(at(dir), SMALL, K);
    DpTextModel cached = DefaultModelCache.load(at(dir), SMALL, K).model();
    DpTextModel memory = DefaultModelCache.load(new ModelCache.Location(null, "off"), SMALL, K).model();
    SecretKey key = SecretKey.parse(KEY_HEX, "test");
    List<String> rows = List.of("the quick brown fox jumps over the lazy dog",
        "My order 12345 never arrived and the support line was closed on Monday",
        "Please refund the payment; the product broke after two days.");
    for (String mechanism : List.of("santext", "santext+", "mahalanobis")) {
      DpTextOptions o = DpTextOptions.defaults().with(Settings.MECHANISM, mechanism)
          .with(Settings.ID_MODE, "column");
      Sanitizer withCache = Sanitizer.build(o, cached, key);
      Sanitizer without = Sanitizer.build(o, memory, key);
      for (int i = 0; i < rows.size(); i++) {
        for (int repeat = 0; repeat < 5; repeat++) {
          String id = i + "-" + repeat;
          assertEquals(without.sanitize(rows.get(i), id, new TokenCounts()),
              withCache.sanitize(rows.get(i), id, new TokenCounts()), mechanism + " row " + id);
        }
      }
    }
  }

  /**
   * A JVM that cannot compute tables (no netlib BLAS: a Spark Connect client's classpath alone, where the in-memory
   * default has none either) caches the model without them, under an identity of its own: read back as the model
   * that JVM builds, and never read by a JVM that computes tables (nor the other way round).
   */
  @Test
  void aJvmWithoutScoreKernelsCachesTheModelWithoutTables() throws Exception {
    Path dir = tmp.resolve("models");
    Loaded written = DefaultModelCache.load(at(dir), SMALL, K, false);
    assertEquals(Outcome.WRITTEN, written.outcome());
    assertTrue(written.model().tables().isEmpty(), "no table built ahead");
    Loaded read = DefaultModelCache.load(at(dir), SMALL, K, false);
    assertEquals(Outcome.READ, read.outcome());
    DpTextModel memory = DefaultModelCache.inMemory(SMALL, K);
    assertEquals(memory.hash(), read.model().hash(), "the identity runs and audits record");
    assertEquals(memory.metadata(), read.model().metadata());
    assertEquals(memory.rowLengths(), read.model().rowLengths());
    assertArrayEquals(memory.embeddings().rawVectors(), read.model().embeddings().rawVectors());
    assertTrue(read.model().tables().isEmpty() && !read.model().hasCovariance());

    assertNotEquals(DefaultModelCache.fileName(SMALL, K, true), DefaultModelCache.fileName(SMALL, K, false));
    Loaded withTables = DefaultModelCache.load(at(dir), SMALL, K, true);
    assertEquals(Outcome.WRITTEN, withTables.outcome(), "a file of its own");
    assertEquals(Outcome.READ, DefaultModelCache.load(at(dir), SMALL, K, false).outcome(), "both kept");
  }

  @Test
  void aCorruptedOrTruncatedFileIsRebuiltAndReplaced() throws Exception {
    Path dir = tmp.resolve("models");
    Path file = DefaultModelCache.load(at(dir), SMALL, K).file();
    long size = Files.size(file);

    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) { // one bit of the vectors
      c.write(java.nio.ByteBuffer.wrap(new byte[] {0x55}), size / 3);
    }
    Loaded afterFlip = DefaultModelCache.load(at(dir), SMALL, K);
    assertEquals(Outcome.WRITTEN, afterFlip.outcome(), "the damaged file is not used");
    assertEquals(size, Files.size(file), "replaced by a whole one");
    assertEquals(Outcome.READ, DefaultModelCache.load(at(dir), SMALL, K).outcome());

    try (FileChannel c = FileChannel.open(file, StandardOpenOption.WRITE)) { // as a crashed copy would leave it
      c.truncate(size / 2);
    }
    assertEquals(Outcome.WRITTEN, DefaultModelCache.load(at(dir), SMALL, K).outcome());
    assertEquals(Outcome.READ, DefaultModelCache.load(at(dir), SMALL, K).outcome());
  }

  @Test
  void aFileOfAnotherIdentityIsNotUsed() throws Exception {
    Path dir = tmp.resolve("models");
    String name = DefaultModelCache.fileName(SMALL, K);
    assertNotEquals(name, DefaultModelCache.fileName(SMALL, K + 1), "another K looks for another file");
    assertNotEquals(name, DefaultModelCache.fileName(new Embedded(SMALL.bytes(), "test:other"), K));
    assertNotEquals(name, DefaultModelCache.fileName(new Embedded(() -> new java.io.ByteArrayInputStream(
        Files.readAllBytes(FIXTURE), 0, (int) Files.size(FIXTURE) - 1), SMALL.source()), K),
        "other embedded bytes look for another file");

    // Valid model files, put under this identity's name: another K, another source, a covariance (which would
    // need LAPACK to read), tables that are not the expected ones.
    DpTextModel otherK = DefaultModelFile.withTables(DefaultModelCache.inMemory(SMALL, K + 1));
    DpTextModel otherSource = DefaultModelFile.withTables(
        DefaultModelCache.inMemory(new Embedded(SMALL.bytes(), "test:other"), K));
    DpTextModel withCovariance = DefaultModelFile.withTables(DefaultModelCache.inMemory(SMALL, K));
    withCovariance.covariance();
    DpTextModel oneTable = DefaultModelCache.inMemory(SMALL, K);
    oneTable.neighbours(0);
    for (DpTextModel foreign : List.of(otherK, otherSource, withCovariance, oneTable)) {
      Files.createDirectories(dir);
      Path file = dir.resolve(name);
      try (OutputStream out = Files.newOutputStream(file)) {
        ModelArtifact.write(foreign, out);
      }
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
      Loaded loaded = DefaultModelCache.load(at(dir), SMALL, K);
      assertEquals(Outcome.WRITTEN, loaded.outcome(), foreign.rowLengths() + " " + foreign.metadata());
      assertEquals(DefaultModelCache.inMemory(SMALL, K).rowLengths(), loaded.model().rowLengths());
      assertEquals(Outcome.READ, DefaultModelCache.load(at(dir), SMALL, K).outcome(), "replaced by this one");
    }
  }

  @Test
  void aFileOrDirectoryOthersCanWriteIsNotRead() throws Exception {
    Path dir = tmp.resolve("models");
    Path file = DefaultModelCache.load(at(dir), SMALL, K).file();
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-rw-"));
    assertEquals(Outcome.WRITTEN, DefaultModelCache.load(at(dir), SMALL, K).outcome(), "refused and replaced");

    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Loaded loaded = DefaultModelCache.load(at(dir), SMALL, K);
    assertEquals(Outcome.IN_MEMORY, loaded.outcome(), "neither read nor written");
    assertNull(loaded.file());
    assertEquals(8, loaded.model().neighbourCount());
  }

  @Test
  void anUnwritableDirectoryDoesNotFailTheRun() throws Exception {
    Path notADirectory = Files.writeString(tmp.resolve("home"), "a file where the cache's parent would be");
    Loaded loaded = DefaultModelCache.load(at(notADirectory.resolve(".cache/dptext/models")), SMALL, K);
    assertEquals(Outcome.IN_MEMORY, loaded.outcome());
    assertTrue(loaded.model().tables().isEmpty(), "as without a cache: tables on first use, none built ahead");
    assertEquals(DefaultModelCache.inMemory(SMALL, K).hash(), loaded.model().hash());

    Path readOnly = Files.createDirectories(tmp.resolve("read-only"));
    Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("r-x------"));
    try {
      if (!Files.isWritable(readOnly)) { // (root writes anyway)
        assertEquals(Outcome.IN_MEMORY, DefaultModelCache.load(at(readOnly), SMALL, K).outcome());
      }
    } finally {
      Files.setPosixFilePermissions(readOnly, PosixFilePermissions.fromString("rwx------"));
    }
  }

  @Test
  void theSettingTurnsTheCacheOffOrMovesIt() {
    Properties home = new Properties();
    home.setProperty("user.home", "/home/ada");
    assertEquals(Path.of("/home/ada/.cache/dptext/models"), ModelCache.location(home, Map.of()).directory());
    assertEquals(Path.of("/xdg/dptext/models"),
        ModelCache.location(home, Map.of("XDG_CACHE_HOME", "/xdg")).directory());
    assertEquals(Path.of("/home/ada/.cache/dptext/models"),
        ModelCache.location(home, Map.of("XDG_CACHE_HOME", "relative")).directory(), "invalid: ignored");
    assertEquals(Path.of("/srv/cache"),
        ModelCache.location(home, Map.of(ModelCache.ENV, "/srv/cache")).directory());
    for (String off : List.of("off", "OFF", "0", "false")) {
      ModelCache.Location l = ModelCache.location(home, Map.of(ModelCache.ENV, off));
      assertFalse(l.enabled(), off);
      assertTrue(l.reason().contains(ModelCache.ENV), l.reason());
    }
    Properties property = new Properties(home);
    property.setProperty(ModelCache.PROPERTY, "off");
    assertFalse(ModelCache.location(property, Map.of(ModelCache.ENV, "/srv/cache")).enabled(), "property wins");
    Properties noHome = new Properties();
    noHome.setProperty("user.home", "?");
    assertFalse(ModelCache.location(noHome, Map.of()).enabled());
    assertEquals(Path.of("/srv/cache"), ModelCache.location(noHome, Map.of(ModelCache.ENV, "/srv/cache")).directory());

    Path dir = tmp.resolve("models");
    Loaded off = DefaultModelCache.load(ModelCache.location(property, Map.of()), SMALL, K);
    assertEquals(Outcome.IN_MEMORY, off.outcome());
    assertFalse(Files.exists(dir), "nothing written");
  }

  /** Files of other identities are pruned to a few, the newest kept. */
  @Test
  void otherIdentitiesArePrunedToAFew() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("models"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    for (int i = 0; i < 5; i++) {
      Path old = Files.writeString(dir.resolve("default-k8-old" + i + ".dptext-model"), "an older release's");
      Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.fromMillis(1_000_000L * (i + 1)));
    }
    Path unrelated = Files.writeString(dir.resolve("notes.txt"), "not ours");
    Path written = DefaultModelCache.load(at(dir), SMALL, K).file();
    try (Stream<Path> files = Files.list(dir)) {
      assertEquals(java.util.Set.of(written, unrelated, dir.resolve("default-k8-old4.dptext-model"),
          dir.resolve("default-k8-old3.dptext-model"), dir.resolve("default-k8-old2.dptext-model")),
          java.util.Set.copyOf(files.toList()));
    }
  }
}
