package dev.dptext.classic;

import java.io.IOException;
import java.io.ObjectInputStream;
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
  private static final long serialVersionUID = 2L;

  // Spark registers an accumulator with its task in the middle of deserializing it (AccumulatorV2.readObject
  // runs before this class's fields are read), and from then on the executor's heartbeat thread calls isZero
  // and the driver value on it: the fields may still hold the JVM's defaults (null, false, 0). So each
  // default means "nothing counted", and no method assumes byPartition is set (as Spark's own
  // CollectionAccumulator does); readObject sets it once the fields are read.
  private Map<Integer, Long> byPartition = new HashMap<>();
  private boolean counting; // whether partition is set: a task's copy that has counted
  private int partition;
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
    if (counting && this.partition != partition) {
      throw new IllegalStateException("a task counts one partition: " + this.partition + ", then " + partition);
    }
    this.partition = partition;
    counting = true;
    rows += n;
  }

  @Override
  public boolean isZero() {
    Map<Integer, Long> done = byPartition;
    return (done == null || done.isEmpty()) && !counting && rows == 0;
  }

  @Override
  public AccumulatorV2<Long, Long> copy() {
    RowsPerPartition c = new RowsPerPartition();
    Map<Integer, Long> done = byPartition;
    if (done != null) {
      c.byPartition.putAll(done);
    }
    c.counting = counting;
    c.partition = partition;
    c.rows = rows;
    return c;
  }

  @Override
  public void reset() {
    byPartition = new HashMap<>();
    counting = false;
    partition = 0;
    rows = 0;
  }

  @Override
  public void add(Long v) {
    addRows(counting ? partition : TaskContext.getPartitionId(), v);
  }

  @Override
  public void merge(AccumulatorV2<Long, Long> other) {
    RowsPerPartition o = (RowsPerPartition) other;
    if (byPartition == null) {
      byPartition = new HashMap<>();
    }
    if (o.byPartition != null) {
      byPartition.putAll(o.byPartition);
    }
    if (o.counting) {
      byPartition.put(o.partition, o.rows);
    }
  }

  @Override
  public Long value() {
    Map<Integer, Long> done = byPartition;
    long sum = counting ? rows : 0;
    if (done != null) {
      for (long n : done.values()) {
        sum += n;
      }
    }
    return sum;
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (byPartition == null) {
      byPartition = new HashMap<>();
    }
  }
}
