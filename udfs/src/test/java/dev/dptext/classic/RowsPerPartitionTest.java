package dev.dptext.classic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.spark.SharedSpark;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext$;
import org.apache.spark.TaskContextImpl;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.serializer.JavaSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.util.AccumulatorV2;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * {@link RowsPerPartition} as an executor sees it. Spark registers an accumulator with its task while the task
 * is being deserialized ({@code AccumulatorV2.readObject}), before the subclass's own fields are read; from then
 * on the executor's heartbeat thread calls {@code isZero} and the driver {@code value} on it. An exception there
 * kills the heartbeat thread, and the driver later removes the executor for lack of heartbeats.
 */
class RowsPerPartitionTest {

  /**
   * A task's context that, when an accumulator registers, does at once what the heartbeat may do at that moment:
   * every accumulator of the task checked with {@code isZero}, read with {@code value} (Executor.reportHeartBeat,
   * TaskSchedulerImpl.executorHeartbeatReceived), and merged both ways with a driver-side copy.
   */
  private static final class HeartbeatAtRegistration extends TaskContextImpl {
    private final RowsPerPartition driverCopy;
    final List<String> seen = new ArrayList<>();

    HeartbeatAtRegistration(RowsPerPartition driverCopy) {
      super(0, 0, 0, 0L, 0, 1, null, new Properties(), null, TaskMetrics.empty(), 1,
          TaskContextImpl.$lessinit$greater$default$12());
      this.driverCopy = driverCopy;
    }

    @Override
    public void registerAccumulator(AccumulatorV2<?, ?> a) {
      super.registerAccumulator(a);
      for (AccumulatorV2<?, ?> acc : CollectionConverters.asJava(taskMetrics().accumulators())) {
        boolean zero = acc.isZero();
        Object value = acc.value();
        if (acc instanceof RowsPerPartition rows) {
          driverCopy.merge(rows);
          rows.merge(new RowsPerPartition());
          seen.add("zero " + zero + ", value " + value);
        }
      }
    }
  }

  @Test
  void anAccumulatorRegisteredMidDeserializationCanBeCheckedReadAndMerged() {
    RowsPerPartition registered = (RowsPerPartition) ClassicContext.rowCounter(SharedSpark.get(), "rows mid-read");
    SerializerInstance java = new JavaSerializer(new SparkConf()).newInstance();
    ByteBuffer bytes = java.serialize(registered, ClassTag$.MODULE$.apply(RowsPerPartition.class));

    RowsPerPartition driver = (RowsPerPartition) registered.copyAndReset();
    HeartbeatAtRegistration task = new HeartbeatAtRegistration(driver);
    RowsPerPartition inTask;
    TaskContext$.MODULE$.setTaskContext(task);
    try {
      inTask = java.deserialize(bytes, ClassTag$.MODULE$.apply(RowsPerPartition.class));
    } finally {
      TaskContext$.MODULE$.unset();
    }

    assertEquals(List.of("zero true, value 0"), task.seen, "the accumulator registered once, as a zero");
    assertTrue(inTask.isZero());
    inTask.addRows(2, 5);
    driver.merge(inTask);
    assertEquals(5L, driver.value(), "the whole read copy counts as before");
    assertEquals(5L, inTask.value());
  }
}
