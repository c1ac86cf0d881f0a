package dev.dptext.job.run;

import dev.dptext.job.base.JobException;
import dev.dptext.spark.TokenAccumulators;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkStageInfo;
import org.apache.spark.SparkStatusTracker;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs, every few seconds while a run works, what Spark's status tracker and the token counters say:
 * tasks done of the running stages, tokens sanitized so far, elapsed time, and the rate. Counts only,
 * never text. Runs on a daemon thread of the driver; {@link #close} stops it.
 */
public final class ProgressReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProgressReporter.class);

  private final ScheduledExecutorService timer;
  private final SparkStatusTracker tracker;
  private final TokenAccumulators counters;
  private final long start = System.nanoTime();

  private ProgressReporter(SparkSession spark, TokenAccumulators counters, int intervalSeconds) {
    this.tracker = dev.dptext.classic.ClassicContext.statusTracker(spark, "Progress from the status tracker");
    this.counters = counters;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "dptext-progress");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleAtFixedRate(this::report, intervalSeconds, intervalSeconds, TimeUnit.SECONDS);
  }

  /** Starts reporting every {@code intervalSeconds}; 0 turns reporting off. */
  public static ProgressReporter start(SparkSession spark, TokenAccumulators counters, int intervalSeconds) {
    if (intervalSeconds < 0) {
      throw JobException.of("PROGRESS_INTERVAL_NEGATIVE", "value", intervalSeconds);
    }
    if (intervalSeconds > 0 && !dev.dptext.classic.Classic.is(spark)) {
      // A Spark Connect client has neither the status tracker nor the token accumulators this reports:
      // the server's Spark UI shows the run's stages.
      LOG.info("progress: not reported on Spark Connect (no status tracker in a Connect client); the Spark UI of "
          + "the Connect server shows the run's stages");
      return null;
    }
    return intervalSeconds == 0 ? null : new ProgressReporter(spark, counters, intervalSeconds);
  }

  /** One progress line, e.g. "progress: 45 s, stage 3: 12/40 tasks, 1,234,567 tokens (27,435 tokens/s)". */
  String line() {
    double seconds = (System.nanoTime() - start) / 1e9;
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "progress: %.0f s", seconds));
    for (int id : tracker.getActiveStageIds()) {
      scala.Option<SparkStageInfo> info = tracker.getStageInfo(id);
      if (info.isDefined()) {
        SparkStageInfo st = info.get();
        s.append(String.format(Locale.ROOT, ", stage %d: %d/%d tasks", id, st.numCompletedTasks(), st.numTasks()));
      }
    }
    long tokens = counters.tokens();
    s.append(String.format(Locale.ROOT, ", %,d tokens sanitized in finished tasks (%,.0f tokens/s)", tokens, tokens / seconds));
    return s.toString();
  }

  private void report() {
    try {
      LOG.info(line());
    } catch (RuntimeException e) {
      LOG.debug("progress report failed: {}", e.getClass().getName());
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
