package dev.dptext.runtime;

import dev.dptext.classic.Classic;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.SparkSession;

/**
 * The file system as the job's driver program reaches it: what is at a path, what a directory holds,
 * reading, writing, deleting and renaming. Every check the job makes on a path goes through here, so that
 * the same check runs on a classic session and on a Spark Connect client's classpath alone, which has no
 * Hadoop (a Databricks serverless JAR task). The job's path checks and the model loader use it.
 *
 * <p>Which implementation ({@link #of}): on a classic session, the application's Hadoop file system (its
 * {@code spark.hadoop.*} settings and credentials: HDFS, object stores, links on HDFS). On a Spark Connect
 * client, a local path ({@code /…}, {@code file:…}, a Databricks volume at {@code /Volumes}) through
 * {@code java.nio}, which follows symbolic links as the local Hadoop file system does; any other scheme through
 * Hadoop when the client has it on its classpath, and otherwise refused with a message naming what to do.
 * docs/writes.md lists which check uses which, per deployment.
 *
 * <p>Paths are strings as the user wrote them, or as an earlier call returned them; results are qualified
 * ({@code file:/…} for local paths), without a trailing slash.
 */
public interface Storage {

  /** An entry of a directory, or the status of a path. */
  record Entry(String path, String name, boolean directory, long length, long modified) {}

  /** The qualified form of {@code path}: scheme, authority, absolute, normalized, no trailing slash. */
  String qualified(String path) throws IOException;

  /**
   * {@code path} qualified and with every symbolic link resolved, in any component, dangling links included;
   * the components that do not exist yet are kept as given.
   */
  String resolved(String path) throws IOException;

  /** What is at {@code path}, or empty when nothing is. */
  Optional<Entry> status(String path) throws IOException;

  /** The entries of the directory {@code dir}. */
  List<Entry> list(String dir) throws IOException;

  /** Every file at or under {@code path}, recursively. */
  List<Entry> files(String path) throws IOException;

  /** The paths {@code pattern} (a Hadoop glob: {@code *}, {@code ?}, {@code [..]}, {@code {a,b}}) matches. */
  List<String> glob(String pattern) throws IOException;

  InputStream open(String path) throws IOException;

  /** Creates (or replaces, when {@code overwrite}) the file {@code path}, its parents created. */
  OutputStream create(String path, boolean overwrite) throws IOException;

  void mkdirs(String path) throws IOException;

  boolean delete(String path, boolean recursive) throws IOException;

  /** Renames {@code from} to {@code to} (atomic where the file system has atomic renames); false if it could not. */
  boolean rename(String from, String to) throws IOException;

  /** The parent of {@code path} (qualified), or null at the root. */
  String parent(String path);

  /** {@code child} below {@code dir}. */
  default String child(String dir, String child) {
    return dir.endsWith("/") ? dir + child : dir + "/" + child;
  }

  /** Whether something is at {@code path}. */
  default boolean exists(String path) throws IOException {
    return status(path).isPresent();
  }

  /**
   * The storage that reaches {@code path} from {@code spark}'s driver program.
   *
   * @throws Unreachable on a Spark Connect client without Hadoop, for a path that is not local
   */
  static Storage of(SparkSession spark, String path) {
    if (Classic.is(spark)) {
      return HadoopStorage.of(spark);
    }
    if (LocalStorage.isLocal(path)) {
      return LocalStorage.INSTANCE;
    }
    if (HADOOP_ON_CLASSPATH) {
      return HadoopStorage.of(spark);
    }
    throw new Unreachable(path);
  }

  /** Whether Hadoop's file system client is on this program's classpath (a Spark Connect client may lack it). */
  boolean HADOOP_ON_CLASSPATH = Probe.hadoop();

  /**
   * A path this program cannot reach from where it runs ({@code PATH_NOT_LOCAL_ON_CONNECT}: what to do instead is
   * in the message); a type of its own for the callers that go on without the path.
   */
  final class Unreachable extends dev.dptext.errors.DpTextException {
    private static final long serialVersionUID = 1L;

    Unreachable(String path) {
      super("PATH_NOT_LOCAL_ON_CONNECT", dev.dptext.errors.DpTextErrors.pairs("path", path), null);
    }
  }

  /** Looks for Hadoop without loading anything of it. */
  final class Probe {
    private Probe() {}

    static boolean hadoop() {
      return Storage.class.getClassLoader().getResource("org/apache/hadoop/fs/FileSystem.class") != null;
    }
  }
}
