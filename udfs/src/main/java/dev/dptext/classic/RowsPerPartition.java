package dev.dptext.classic;

import java.util.HashMap;
import java.util.Map;
import org.apache.spark.TaskContext;
import org.apache.spark.util.AccumulatorV2;

/**
 * Rows per partition of the stage that runs the check ({@code dev.dptext.job.read.InputGuard}): a task counts its
 * own partition, the driver keeps the last successful count of each, so a partition computed again (a map
 * task re-run after a lost shuffle file) is not counted twice, and a failed attempt is never merged.
 */
public final class RowsPerPartition extends AccumulatorV2<Long, Long> implements RowCounter {
  private static final long serialVersionUID = 1L;

  private final Map<Integer, Long> byPartition = new HashMap<>();
  private int partition = -1;
  private long rows;

  @Override
  public long rows() {
    return value();
  }

  @Override
  public void addRow() {
    add(1L);
  }

  /** {@code n} rows of {@code partition} (a task adds to its own partition only). */
  public void addRows(int partition, long n) {
    if (this.partition >= 0 && this.partition != partition) {
      throw new IllegalStateException("a task counts one partition: " + this.partition + ", then " + partition);
    }
    this.partition = partition;
    rows += n;
  }

  @Override
  public boolean isZero() {
    return byPartition.isEmpty() && partition < 0 && rows == 0;
  }

  @Override
  public AccumulatorV2<Long, Long> copy() {
    RowsPerPartition c = new RowsPerPartition();
    c.byPartition.putAll(byPartition);
    c.partition = partition;
    c.rows = rows;
    return c;
  }

  @Override
  public void reset() {
    byPartition.clear();
    partition = -1;
    rows = 0;
  }

  @Override
  public void add(Long v) {
    addRows(partition >= 0 ? partition : TaskContext.getPartitionId(), v);
  }

  @Override
  public void merge(AccumulatorV2<Long, Long> other) {
    RowsPerPartition o = (RowsPerPartition) other;
    byPartition.putAll(o.byPartition);
    if (o.partition >= 0) {
      byPartition.put(o.partition, o.rows);
    }
  }

  @Override
  public Long value() {
    return byPartition.values().stream().mapToLong(Long::longValue).sum() + (partition >= 0 ? rows : 0);
  }
}
