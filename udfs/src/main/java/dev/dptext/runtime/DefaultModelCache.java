package dev.dptext.runtime;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.knn.NeighbourSearch;
import dev.dptext.knn.RowLengths;
import dev.dptext.mechanism.SanTextPlus;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.model.ModelArtifact;
import dev.dptext.settings.ModelCache;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The default model ({@code --model default}) kept once per machine: the first driver to load it builds its
 * neighbour tables (~13 s on two cores) and writes the model to the machine's cache ({@link ModelCache}); every
 * later driver on the machine reads that file (well under a second), as a run given a {@code build-model} file
 * does. {@link ModelLoader} keeps its per-JVM cache on top; only the driver's load of {@code default} comes here.
 * Executors that load {@code default} themselves ({@code modelDistribution=path}) still hash and parse the
 * embedded file, and the SHA-256 a run records for it is still that of the embedded file.
 *
 * <p><b>What the file holds.</b> What {@link DefaultModelFile#withTables} computes (SanText's table, target start
 * 0, and SanText+'s at its default w), written as a model file ({@link ModelArtifact}, format version
 * {@value DpTextModel#FORMAT_VERSION}), without the covariance: the in-memory default computes it on first use
 * (Mahalanobis only, a fraction of a second), and a file that holds one needs LAPACK to be read (its
 * eigendecomposition is redone on load), which a Spark Connect client's classpath does not have. So reading the
 * cache never makes a run need more than building the model did, and a cached model is the in-memory one: the
 * same vocabulary, vectors and embeddings hash (what runs and audits record), the same metadata, and tables
 * equal bit for bit to the ones the run would compute, so the same sanitized rows. A table the run needs
 * beyond these (another w) is computed on the driver on first use, as before. On a miss the run builds both
 * tables even if it needs neither (e.g. Laplace): that once per machine, so that every later run, whatever its
 * mechanism, reads them.
 *
 * <p><b>Where no table can be computed</b> ({@link NeighbourSearch#available()} false: a Spark Connect client's
 * classpath alone, a Databricks serverless JAR task's, has no netlib BLAS, which the score kernels' class names),
 * the file holds the model without tables, as that JVM builds it in memory, and its identity says so ("tables
 * none", "kernel none"): such a JVM never computes a table (its tasks run on the server), and the file still saves
 * it the parse of the embedded file, most of what a client spends on the model. Such a file is another identity,
 * so a JVM that computes tables never reads it, nor the other way round.
 *
 * <p><b>Its name is its identity.</b> {@code default-k<K>-<hash>.dptext-model}, the hash (SHA-256, 128 bits
 * kept) of everything the content depends on: the embedded file's bytes (SHA-256), the source name models
 * record, dptext's code (its version, and for a snapshot build the jar's size and time: a rebuilt jar may
 * compute other tables), the format version, the row lengths (K, tiered) and tables stored, and the score kernel
 * of this JVM ({@link NeighbourSearch#kernel}: every kernel gives the same rows, but the stored bounds may
 * differ in their last bits). So another release, build, K or kernel looks for another file and never reads
 * this one; a few files of other identities are kept (one machine may run two versions), the older deleted.
 *
 * <p><b>A file is used only when it is whole and is this model.</b> It is written to a temporary file in the
 * same directory, forced to disk and renamed over the name (atomic on one file system): two drivers building at
 * once each write their own file, the later rename wins, and a reader sees a complete file or none, never part
 * of one. Reading checks what a model file's reader checks (magic, version, every array's SHA-256, the
 * embeddings' hash, so a truncated or damaged file is refused) and then the identity the header states: the
 * source, K and tiered rows, exactly the expected tables, no covariance. A file that fails is ignored with one
 * warning line, rebuilt and replaced. It does not parse the embedded file again to compare vectors (that parse,
 * ~0.8 s in a new JVM, is most of what the cache saves besides the tables); instead only files nobody else could
 * have written are read: the directory and file must belong to this user and be writable by no one else (as
 * ssh asks of {@code ~/.ssh}); the directory is created {@code 0700}, the file {@code 0600}.
 *
 * <p><b>It never fails a run.</b> No home directory, a directory that cannot be created or is not private, a
 * read-only or full disk: one line in the log, and the model is built in memory as before (its tables on first
 * use). A cache turned off ({@link ModelCache}: {@code DPTEXT_MODEL_CACHE=off}) is the in-memory build exactly.
 */
public final class DefaultModelCache {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultModelCache.class);

  static final String PREFIX = "default-";
  static final String SUFFIX = ".dptext-model";
  /** Cache files of other identities kept beside the one just written (other versions, K, kernels). */
  static final int KEEP_OTHERS = 3;
  /** A temporary file this old is a writer that died (a write takes seconds). */
  private static final long STALE_TEMPORARY_MILLIS = 3_600_000;
  private static final Set<PosixFilePermission> PRIVATE_DIRECTORY = PosixFilePermissions.fromString("rwx------");

  private DefaultModelCache() {}

  /** What a load did: read the cache, built and wrote it, or built in memory only (off, or could not write). */
  enum Outcome { READ, WRITTEN, IN_MEMORY }

  /** A loaded model, how it was loaded, and the cache file (null when there is none). */
  record Loaded(DpTextModel model, Outcome outcome, Path file) {}

  /** Bytes a model is read from; tests give a small embeddings file in place of the embedded one. */
  interface Bytes {
    InputStream open() throws IOException;
  }

  /** The embeddings the default model is built from: their bytes (gzipped GloVe text) and the source name. */
  record Embedded(Bytes bytes, String source) {
    static final Embedded DEFAULT = new Embedded(EmbeddedDefault::open, EmbeddedDefault.SOURCE);
  }

  /** The default model with rows of {@code neighbours}, from this machine's cache when it has it. */
  public static DpTextModel load(int neighbours) {
    return load(ModelCache.location(), Embedded.DEFAULT, neighbours).model();
  }

  /** {@link #load(ModelCache.Location, Embedded, int, boolean)} with tables where this JVM can compute them. */
  static Loaded load(ModelCache.Location location, Embedded embedded, int neighbours) {
    return load(location, embedded, neighbours, NeighbourSearch.available());
  }

  /**
   * The model from {@code location}'s cache, or built (and cached when the directory allows).
   *
   * @param tables whether the file holds SanText's and SanText+'s tables (this JVM computes them on a miss), or
   *     none (a JVM that cannot compute them)
   */
  static Loaded load(ModelCache.Location location, Embedded embedded, int neighbours, boolean tables) {
    long t0 = System.nanoTime();
    if (!location.enabled()) {
      LOG.debug("dptext default model: built in memory, no cache ({})", location.reason());
      return new Loaded(inMemory(embedded, neighbours), Outcome.IN_MEMORY, null);
    }
    Path dir = location.directory();
    Path file;
    try {
      privateDirectory(dir);
      file = dir.resolve(fileName(embedded, neighbours, tables));
    } catch (IOException | RuntimeException | LinkageError e) {
      LOG.info("dptext default model: built in memory, not cached in {} ({})", dir, reason(e));
      return new Loaded(inMemory(embedded, neighbours), Outcome.IN_MEMORY, null);
    }
    String unusable = null;
    if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      try {
        DpTextModel model = read(file, embedded, neighbours, tables);
        LOG.info("dptext default model read from this machine's cache {} in {} ms", file, millis(t0));
        return new Loaded(model, Outcome.READ, file);
      } catch (IOException | RuntimeException | LinkageError e) {
        unusable = reason(e);
      }
    }
    // Claim a temporary file before building, so that a directory that cannot be written costs no table built
    // ahead of use.
    Path temporary;
    try {
      temporary = Files.createTempFile(dir, file.getFileName() + ".", ".tmp");
    } catch (IOException | RuntimeException e) {
      String why = unusable != null ? "the cached file is unusable (" + unusable + ") and " : "";
      LOG.warn("dptext default model: built in memory, not cached in {} ({}it cannot be written: {})", dir, why,
          reason(e));
      return new Loaded(inMemory(embedded, neighbours), Outcome.IN_MEMORY, null);
    }
    DpTextModel model = tables ? DefaultModelFile.withTables(inMemory(embedded, neighbours))
        : inMemory(embedded, neighbours);
    try {
      write(model, temporary, file);
    } catch (IOException | RuntimeException e) {
      LOG.warn("dptext default model built in memory in {} s, not cached in {} ({})", seconds(t0), dir, reason(e));
      return new Loaded(model, Outcome.IN_MEMORY, null);
    } finally {
      deleteQuietly(temporary);
    }
    if (unusable != null) {
      LOG.warn("dptext default model cache {} was unusable ({}): rebuilt and replaced in {} s", file, unusable,
          seconds(t0));
    } else {
      LOG.info("dptext default model built in {} s and cached in {} for later runs on this machine{} ({}=off turns "
          + "this off)", seconds(t0), file, tables ? "" : ", without neighbour tables (this JVM cannot compute them: "
          + "no netlib BLAS on its classpath)", ModelCache.ENV);
    }
    prune(dir, file);
    return new Loaded(model, Outcome.WRITTEN, file);
  }

  /** The model as {@link ModelLoader} builds it without a cache: tables computed on first use. */
  static DpTextModel inMemory(Embedded embedded, int neighbours) {
    try (InputStream in = embedded.bytes().open()) {
      return DpTextModel.of(EmbeddedDefault.read(in), embedded.source(), neighbours);
    } catch (IOException e) {
      throw DpTextErrors.error(e, "MODEL_SOURCE_UNREADABLE", "model", EmbeddedDefault.NAME, "reason", e.getMessage());
    }
  }

  /** {@link #fileName(Embedded, int, boolean)} with tables where this JVM can compute them. */
  static String fileName(Embedded embedded, int neighbours) throws IOException {
    return fileName(embedded, neighbours, NeighbourSearch.available());
  }

  /** {@code default-k<K>-<hash>.dptext-model}: see the class comment for what the hash covers. */
  static String fileName(Embedded embedded, int neighbours, boolean tables) throws IOException {
    MessageDigest embeddedSha = ModelLoader.sha256();
    try (InputStream in = new DigestInputStream(embedded.bytes().open(), embeddedSha)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    String identity = String.join("\n",
        "dptext default model cache",
        "embedded " + HexFormat.of().formatHex(embeddedSha.digest()),
        "source " + embedded.source(),
        "code " + codeIdentity(),
        "format " + DpTextModel.FORMAT_VERSION,
        "rows " + RowLengths.tiered(neighbours),
        tables ? "tables 0, santext+ w=" + SanTextPlus.W.defaultValue().orElseThrow() : "tables none",
        "covariance none",
        // Not NeighbourSearch.kernel() where no kernel links: it would fail on netlib's missing classes.
        "kernel " + (tables ? NeighbourSearch.kernel() : "none"));
    String hash = HexFormat.of().formatHex(ModelLoader.sha256().digest(identity.getBytes(StandardCharsets.UTF_8)));
    return PREFIX + "k" + neighbours + "-" + hash.substring(0, 32) + SUFFIX;
  }

  /**
   * dptext's code as far as the tables depend on it: the release version (from the jar's Maven descriptor),
   * and for a snapshot (or classes outside a jar, as in a build's tests) also the size and time of the jar or
   * class file, so a rebuilt snapshot, whose table code may have changed, does not read an older build's file.
   */
  static String codeIdentity() {
    String version = null;
    try (InputStream in = DefaultModelCache.class.getResourceAsStream(
        "/META-INF/maven/dev.dptext/dptext-udfs/pom.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        version = p.getProperty("version");
      }
    } catch (IOException e) {
      version = null;
    }
    if (version != null && !version.endsWith("-SNAPSHOT")) {
      return version;
    }
    try {
      Path code = Path.of(NeighbourSearch.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isDirectory(code)) {
        code = code.resolve(NeighbourSearch.class.getName().replace('.', '/') + ".class");
      }
      return version + " " + code.getFileName() + " " + Files.size(code) + " "
          + Files.getLastModifiedTime(code).toMillis();
    } catch (IOException | URISyntaxException | RuntimeException e) {
      return version + " (code source unknown)";
    }
  }

  /**
   * Creates {@code dir} ({@code 0700}) if needed and checks that only this user can write in it: owned by this
   * user, writable by neither group nor others. (Not checked on a file system without POSIX permissions.)
   */
  static void privateDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
      if (posix) {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PRIVATE_DIRECTORY));
      } else {
        Files.createDirectories(dir);
      }
    }
    String problem = notPrivate(dir, true);
    if (problem != null) {
      throw new IOException(problem);
    }
  }

  /** Why {@code path} is not this user's alone to write, or null when it is (or cannot be told). */
  private static String notPrivate(Path path, boolean directory) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(path, PosixFileAttributeView.class,
        directory ? new LinkOption[0] : new LinkOption[] {LinkOption.NOFOLLOW_LINKS});
    if (view == null) {
      return null;
    }
    PosixFileAttributes a = view.readAttributes();
    if (directory ? !a.isDirectory() : !a.isRegularFile()) {
      return path + " is not a " + (directory ? "directory" : "regular file");
    }
    UserPrincipal me;
    try {
      me = path.getFileSystem().getUserPrincipalLookupService()
          .lookupPrincipalByName(System.getProperty("user.name"));
    } catch (IOException | RuntimeException e) {
      return "cannot tell whether " + path + " belongs to this user (" + reason(e) + ")";
    }
    if (!a.owner().equals(me)) {
      return path + " belongs to " + a.owner().getName() + ", not to this user";
    }
    if (a.permissions().contains(PosixFilePermission.GROUP_WRITE)
        || a.permissions().contains(PosixFilePermission.OTHERS_WRITE)) {
      return path + " is writable by other users (" + PosixFilePermissions.toString(a.permissions()) + ")";
    }
    return null;
  }

  /** Reads and checks a cache file (with the tables, or none); any problem is an exception saying what. */
  static DpTextModel read(Path file, Embedded embedded, int neighbours, boolean withTables) throws IOException {
    String problem = notPrivate(file, false);
    if (problem != null) {
      throw new IOException(problem);
    }
    DpTextModel model;
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      model = ModelArtifact.read(in, file.getFileName().toString());
    }
    String mismatch = mismatch(model, embedded, neighbours, withTables);
    if (mismatch != null) {
      throw new IOException(mismatch);
    }
    return model;
  }

  /**
   * How a cache file's model differs from the one this JVM would build, or null: the reason logged when the
   * file is rebuilt (never an error anyone sees: the cache is rebuilt, like a file that is not private).
   */
  private static String mismatch(DpTextModel model, Embedded embedded, int neighbours, boolean withTables) {
    int n = model.embeddings().size();
    Set<Integer> tables = withTables
        ? Set.of(0, SanTextPlus.sensitiveStart(n, SanTextPlus.W.defaultValue().orElseThrow())) : Set.of();
    if (!model.metadata().equals(Map.of("source", embedded.source()))) {
      return "it was built from " + model.metadata() + ", not " + embedded.source();
    }
    if (!model.rowLengths().equals(RowLengths.tiered(neighbours))) {
      return "its rows are " + model.rowLengths() + ", not " + RowLengths.tiered(neighbours);
    }
    if (!model.tables().keySet().equals(tables) || model.hasCovariance()) {
      return "it holds the tables " + model.tables().keySet() + (model.hasCovariance() ? " and a covariance" : "")
          + ", not the tables " + new java.util.TreeSet<>(tables) + " alone";
    }
    return null;
  }

  /** Writes {@code model} to {@code temporary} (its own, {@code 0600}), forces it to disk and renames it. */
  private static void write(DpTextModel model, Path temporary, Path file) throws IOException {
    try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      OutputStream out = Channels.newOutputStream(channel);
      ModelArtifact.write(model, out);
      out.flush();
      channel.force(true);
    }
    // rename(2): atomic, replacing a file of the same name (another driver's, or an unusable one).
    Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  /**
   * Deletes cache files of other identities beyond the {@value #KEEP_OTHERS} most recently written, and
   * temporary files of writers that died. Best effort: a file another driver deletes first is fine.
   */
  private static void prune(Path dir, Path kept) {
    List<Path> others = new ArrayList<>();
    long now = System.currentTimeMillis();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, PREFIX + "*")) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        if (name.endsWith(SUFFIX) && !p.equals(kept)) {
          others.add(p);
        } else if (name.endsWith(".tmp")
            && now - Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS).toMillis() > STALE_TEMPORARY_MILLIS) {
          deleteQuietly(p);
        }
      }
      others.sort(Comparator.comparing((Path p) -> modified(p)).reversed());
      for (Path p : others.subList(Math.min(KEEP_OTHERS, others.size()), others.size())) {
        deleteQuietly(p);
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("dptext default model cache: could not prune {} ({})", dir, reason(e));
    }
  }

  private static FileTime modified(Path p) {
    try {
      return Files.getLastModifiedTime(p, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      return FileTime.fromMillis(0);
    }
  }

  private static void deleteQuietly(Path p) {
    try {
      Files.deleteIfExists(p);
    } catch (IOException | RuntimeException e) {
      LOG.debug("dptext default model cache: could not delete {} ({})", p, reason(e));
    }
  }

  /** An exception as a log line's reason; a file system's (whose message is only the path) with its kind. */
  private static String reason(Throwable e) {
    String m = e.getMessage();
    if (m == null || m.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return e instanceof java.nio.file.FileSystemException ? e.getClass().getSimpleName() + ": " + m : m;
  }

  private static long millis(long t0) {
    return (System.nanoTime() - t0) / 1_000_000;
  }

  private static String seconds(long t0) {
    return String.format(java.util.Locale.ROOT, "%.1f", (System.nanoTime() - t0) / 1e9);
  }
}
