package dev.dptext.job.write;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import dev.dptext.runtime.Storage;
import org.apache.spark.sql.SparkSession;

/**
 * What is at the output path before a run writes there, found from the file system alone (no Spark
 * job, no model): a run checks it first, so a wrong {@code --output} fails in a second with a message
 * naming what was found and the fix, instead of after minutes of sanitizing, and never by writing
 * beside data it would then hide.
 *
 * <p>Why each refusal matters:
 *
 * <ul>
 *   <li>A Delta write into a directory of plain Parquet (or other) files creates a new table beside
 *       them: Delta readers no longer see the earlier rows, and a later VACUUM deletes them.
 *   <li>A Parquet write into a Delta table adds files the Delta log does not list: Delta readers
 *       never see them (append), or the log lists files that no longer exist (overwrite).
 *   <li>A path that is a file: Spark would replace it by a directory (Parquet) or fail deep in Delta.
 * </ul>
 *
 * <p>The leftovers of a crash before a first commit are not a table and are not refused: a
 * {@code _delta_log} with no committed version (Delta files written before the crash are not part of
 * any version; they hold sanitized rows only), or a Parquet directory holding only Spark's
 * {@code _temporary} staging. A retry of the same command then simply runs.
 */
public final class OutputLocation {
  /** The run summary's file name in an output directory ({@code --summary-json}'s default): not data. */
  public static final String SUMMARY_FILE = "_dptext_summary.json";
  /** Delta log entries that make a committed version: a commit file or a checkpoint. */
  private static final Pattern COMMITTED = Pattern.compile("\\d{20}\\.(json|checkpoint.*\\.parquet)");

  /** What was found at the path. */
  public enum Kind {
    /** Nothing there. */
    ABSENT,
    /** An empty directory, or only the leftovers of a crashed first write. */
    EMPTY,
    /** A regular file. */
    FILE,
    /** A Delta table with at least one committed version. */
    DELTA_TABLE,
    /** A Parquet directory written by Spark (a {@code _SUCCESS} marker, or part files). */
    FILES
  }

  final String path;
  public final Kind kind;
  /** For {@link Kind#FILES}: a few of the names found, for the message. */
  private final List<String> examples;

  private OutputLocation(String path, Kind kind, List<String> examples) {
    this.path = path;
    this.kind = kind;
    this.examples = examples;
  }

  /** Looks at {@code path} on its file system. */
  public static OutputLocation inspect(SparkSession spark, String path) {
    if (TableName.is(spark, path)) {
      return inspectTable(spark, path);
    }
    try {
      Storage fs = Storage.of(spark, path);
      Optional<Storage.Entry> status = fs.status(path);
      if (status.isEmpty()) {
        return new OutputLocation(path, Kind.ABSENT, List.of());
      }
      if (!status.get().directory()) {
        return new OutputLocation(path, Kind.FILE, List.of());
      }
      String log = fs.child(path, "_delta_log");
      if (fs.exists(log)) {
        for (Storage.Entry f : fs.list(log)) {
          if (COMMITTED.matcher(f.name()).matches()) {
            return new OutputLocation(path, Kind.DELTA_TABLE, List.of());
          }
        }
        // No committed version: the leftovers of a crashed first Delta write, not a table.
        return new OutputLocation(path, Kind.EMPTY, List.of());
      }
      List<String> data = new ArrayList<>();
      for (Storage.Entry f : fs.list(path)) {
        String name = f.name();
        // Spark's staging directory of an uncommitted write, and the summary dptext leaves next to a
        // run's output, are not data.
        if (!name.equals("_temporary") && !name.equals(SUMMARY_FILE) && !name.startsWith(".")) {
          data.add(name);
        }
      }
      return data.isEmpty() ? new OutputLocation(path, Kind.EMPTY, List.of())
          : new OutputLocation(path, Kind.FILES, data.subList(0, Math.min(3, data.size())));
    } catch (IOException e) {
      throw JobException.of(e, "OUTPUT_NOT_INSPECTABLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
    }
  }

  /** The example of a catalog table of another format than Delta: the prefix of its format. */
  private static final String CATALOG_TABLE = "catalog table in format ";

  /** A catalog table: absent, a Delta table, or a table of another format (refused for Delta output). */
  private static OutputLocation inspectTable(SparkSession spark, String name) {
    if (!spark.catalog().tableExists(name)) {
      return new OutputLocation(name, Kind.ABSENT, List.of());
    }
    String format = String.valueOf(spark.sql("DESCRIBE DETAIL " + name).first().<Object>getAs("format"));
    return format.equalsIgnoreCase("delta") ? new OutputLocation(name, Kind.DELTA_TABLE, List.of())
        : new OutputLocation(name, Kind.FILES, List.of(CATALOG_TABLE + format));
  }

  /**
   * Removes what a failed first write left at {@code path} when none of it holds a file: Spark's
   * {@code _temporary} and Delta's {@code _delta_log} directories, then the directory itself. Anything
   * holding a file is left as it is (it is not this run's, or not empty).
   */
  public static void removeEmptyLeftovers(SparkSession spark, String path) {
    try {
      Storage fs = Storage.of(spark, path);
      Optional<Storage.Entry> status = fs.status(path);
      if (status.isEmpty() || !status.get().directory()) {
        return;
      }
      for (Storage.Entry f : fs.list(path)) {
        if (f.directory() && (f.name().equals("_temporary") || f.name().equals("_delta_log"))
            && fs.files(f.path()).isEmpty()) {
          fs.delete(f.path(), true); // directories only: no file is in it
        }
      }
      if (fs.list(path).isEmpty()) {
        fs.delete(path, false);
      }
    } catch (IOException | IllegalArgumentException e) {
      // Best effort: a leftover directory without data is not a table, and a retry writes over it.
    }
  }

  /** Whether a table or data is there (a run in {@code errorifexists} mode must not write). */
  public boolean holdsData() {
    return kind == Kind.DELTA_TABLE || kind == Kind.FILES;
  }

  /**
   * Refuses a write of {@code target} that would lose or hide rows at this location.
   *
   * @throws JobException (usage) naming the path, what is there and the fix
   */
  public void checkWritable(TableWriter.Target target) {
    switch (kind) {
      case FILE -> throw JobException.of("OUTPUT_IS_A_FILE", "path", path);
      case FILES -> {
        if (target.delta() && examples.size() == 1 && examples.get(0).startsWith(CATALOG_TABLE)) {
          throw JobException.of("OUTPUT_IS_A_CATALOG_TABLE", "path", path, "kind", examples.get(0));
        }
        if (target.delta()) {
          throw JobException.of("OUTPUT_NOT_A_DELTA_TABLE", "path", path,
              "files", String.join(", ", examples) + (examples.size() == 3 ? ", …" : ""));
        }
      }
      case DELTA_TABLE -> {
        if (!target.delta()) {
          throw JobException.of("OUTPUT_IS_A_DELTA_TABLE", "path", path);
        }
      }
      default -> {
        // Absent or empty: anything may be written.
      }
    }
    if (target.mode() == WriteMode.ERROR_IF_EXISTS && holdsData()) {
      throw JobException.of("OUTPUT_EXISTS", "path", path,
          "kind", kind == Kind.DELTA_TABLE ? "a Delta table" : "a directory of files");
    }
  }

  /**
   * The qualified form of {@code path} (scheme, authority, absolute, no trailing slash), for telling
   * whether two paths name the same place.
   */
  public static String qualified(SparkSession spark, String path) {
    if (TableName.is(spark, path)) {
      // A catalog table: its full name (catalog, schema, table), lower case as the catalog compares them.
      if (spark.catalog().tableExists(path)) {
        try {
          org.apache.spark.sql.catalog.Table t = spark.catalog().getTable(path);
          return ("table:" + t.catalog() + "." + String.join(".", t.namespace()) + "." + t.name())
              .toLowerCase(java.util.Locale.ROOT);
        } catch (org.apache.spark.sql.AnalysisException e) {
          // Dropped in between: compared by the name as given.
        }
      }
      return "table:" + path.toLowerCase(java.util.Locale.ROOT);
    }
    try {
      return Storage.of(spark, path).qualified(path);
    } catch (IOException e) {
      throw JobException.of(e, "PATH_NOT_ACCESSIBLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
    }
  }

  /**
   * The canonical location of {@code path}: qualified (scheme, authority, absolute; {@code ./},
   * {@code ..}, duplicate and trailing slashes gone) and, on the local file system, with every symbolic
   * link resolved, in any component, dangling links included; the components that do not exist yet are
   * kept as given. Two paths name the same place exactly when their resolved forms are equal, and one
   * lies inside the other exactly when its resolved form starts with the other's and a slash
   * ({@link #within}). Every decision about what is in place, what is nested and what is deleted uses it.
   *
   * <p>Other file systems have no links (object stores), or resolve them with Hadoop's
   * {@code FileSystem.resolvePath} (HDFS with links enabled, ViewFs mount points), which is asked for
   * the longest part of the path that exists ({@link Storage#resolved}).
   */
  public static String resolved(SparkSession spark, String path) {
    if (TableName.is(spark, path)) {
      // A catalog table is where its files are: its location, resolved like a path (so that a path
      // spelling of the same table, or one inside it, is recognised); its name while it does not exist.
      String location = tableLocation(spark, path);
      return location == null ? qualified(spark, path) : resolved(spark, location);
    }
    try {
      return Storage.of(spark, path).resolved(path);
    } catch (IOException | java.io.UncheckedIOException | IllegalArgumentException e) {
      throw JobException.of(e, "PATH_NOT_RESOLVABLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
    }
  }

  /** The location of the catalog table {@code name} ({@code DESCRIBE TABLE EXTENDED}), or null if it has none. */
  private static String tableLocation(SparkSession spark, String name) {
    if (!spark.catalog().tableExists(name)) {
      return null;
    }
    for (org.apache.spark.sql.Row r : spark.sql("DESCRIBE TABLE EXTENDED " + name).collectAsList()) {
      if ("Location".equals(r.getString(0)) && r.getString(1) != null && !r.getString(1).isBlank()) {
        return r.getString(1);
      }
    }
    return null;
  }

  /** Whether the resolved location {@code child} is {@code parent} or lies inside it. */
  public static boolean within(String child, String parent) {
    return child.equals(parent) || child.startsWith(parent.endsWith("/") ? parent : parent + "/");
  }

  /**
   * The resolved locations an input path reads: the path itself or, for a glob ({@code *}, {@code ?},
   * {@code [..]}, <code>{a,b}</code>), every path it matches (none when it matches nothing: then the run
   * fails on reading the input anyway).
   */
  public static List<String> resolvedInputs(SparkSession spark, String path) {
    if (!path.matches(".*[*?\\[{].*")) {
      return List.of(resolved(spark, path));
    }
    try {
      List<String> out = new ArrayList<>();
      for (String m : Storage.of(spark, path).glob(path)) {
        out.add(resolved(spark, m));
      }
      return out;
    } catch (IOException | IllegalArgumentException e) {
      // Not a glob after all (or not readable): the path as written is what the reader will try.
      return List.of(resolved(spark, path));
    }
  }

  /**
   * The Delta table id at {@code path} (stable across renames of the path, different for a table
   * created anew there), or empty when there is no committed Delta table.
   */
  public static Optional<String> deltaTableId(SparkSession spark, String path) {
    if (inspect(spark, path).kind != Kind.DELTA_TABLE) {
      return Optional.empty();
    }
    return Optional.of(DeltaTables.detail(spark, path).id());
  }
}
