package dev.dptext.job.base;

import dev.dptext.classic.Classic;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;

/**
 * Names a run's Spark jobs in the Spark UI after its command, its table and the phase it is in, on every
 * kind of session:
 *
 * <ul>
 *   <li>a classic session describes them ({@code spark.job.description}: the Jobs tab's Description
 *       column), e.g. {@code dptext sanitize /data/clean/tickets: write};
 *   <li>every session tags them: {@value #TAG}, {@code dptext-sanitize} and {@code dptext-phase-write}
 *       (classic: the {@code SparkContext}'s job tags, {@code sc.cancelJobsWithTag("dptext")} cancels a
 *       run's jobs; Spark Connect: the session's tags, {@link SparkSession#addTag}, and
 *       {@code spark.interruptTag("dptext")}). The Spark UI shows a job's tags on its page; a Connect server
 *       describes each job by its plan itself, so there the tags are the name.
 * </ul>
 *
 * <p>A command opens a {@link Scope} for its run; the steps of the run then say which phase they enter
 * ({@link #enter}), also from packages that know nothing of the run (the write path names its commit
 * check). Outside a scope (the library's DataFrame API, a user's own jobs) {@link #enter} does nothing. A
 * scope belongs to the thread that opened it, as Spark's job descriptions and tags do. Names carry the
 * command, the output's path or table name and the phase: never a key, a setting's value or any text.
 */
public final class RunPhases {
  /** The tag of every dptext job. */
  public static final String TAG = "dptext";

  private static final ThreadLocal<Scope> CURRENT = new ThreadLocal<>();

  private RunPhases() {}

  /**
   * Opens the scope of one run of {@code command} (e.g. {@code "sanitize"}, {@code "evaluate utility"})
   * writing to {@code table} (a path or a table name; null when it writes none).
   */
  public static Scope begin(SparkSession spark, String command, String table) {
    return new Scope(spark, command, table);
  }

  /** Names the jobs that follow after {@code phase}, within the thread's open scope (else nothing). */
  public static void enter(SparkSession spark, String phase) {
    Scope s = CURRENT.get();
    if (s != null && s.spark == spark) {
      s.enter(phase);
    }
  }

  /**
   * A tag from free words: lower case, each run of characters other than letters, digits and {@code +} one
   * hyphen (a tag takes no comma).
   */
  static String tagOf(String words) {
    return words.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9+]+", "-").replaceAll("(^-|-$)", "");
  }

  /** One run's naming; closing it restores the description, the tags and the scope it found. */
  public static final class Scope implements AutoCloseable {
    private final SparkSession spark;
    private final String run;
    private final String commandTag;
    private final String descriptionBefore;
    private final Scope outer;
    private final boolean tagged;
    private String phaseTag;

    private Scope(SparkSession spark, String command, String table) {
      this.spark = spark;
      this.run = "dptext " + command + (table == null ? "" : " " + table);
      this.commandTag = TAG + "-" + tagOf(command);
      this.outer = CURRENT.get();
      this.descriptionBefore = Classic.describeJobs(spark, run);
      this.tagged = !jobsTagged(TAG);
      if (tagged) {
        tagJobs(TAG, true);
      }
      tagJobs(commandTag, true);
      CURRENT.set(this);
    }

    private void enter(String phase) {
      Classic.describeJobs(spark, run + ": " + phase);
      if (phaseTag != null) {
        tagJobs(phaseTag, false);
      }
      phaseTag = TAG + "-phase-" + tagOf(phase);
      tagJobs(phaseTag, true);
    }

    /**
     * Tags this thread's jobs: a classic session through its SparkContext (its own tags would make the
     * session unserializable, see {@link Classic#tagJobs}), a Spark Connect session through its tags.
     */
    private void tagJobs(String t, boolean add) {
      if (Classic.is(spark)) {
        Classic.tagJobs(spark, t, add);
      } else if (add) {
        spark.addTag(t);
      } else {
        spark.removeTag(t);
      }
    }

    private boolean jobsTagged(String t) {
      return Classic.is(spark) ? Classic.jobsTagged(spark, t) : spark.getTags().contains(t);
    }

    @Override
    public void close() {
      if (phaseTag != null) {
        tagJobs(phaseTag, false);
      }
      if (outer == null || !outer.commandTag.equals(commandTag)) {
        tagJobs(commandTag, false);
      }
      if (tagged) {
        tagJobs(TAG, false);
      }
      Classic.describeJobs(spark, descriptionBefore);
      if (outer != null) {
        CURRENT.set(outer);
      } else {
        CURRENT.remove();
      }
    }
  }
}
