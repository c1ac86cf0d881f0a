package dev.dptext.classic;

import java.io.Serializable;

/**
 * Rows counted in tasks and read on the driver, exactly: {@link RowsPerPartition} behind an interface, so
 * that code outside {@code dev.dptext.classic} never names an accumulator (a Spark Connect client has none).
 */
public interface RowCounter extends Serializable {
  /** One more row of the current task's partition (in a task). */
  void addRow();

  /** The rows counted, once the job has run (on the driver). */
  long rows();
}
