package dev.dptext.job.base;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

class JobSessionTest {
  @Test
  void deltaStateIsRebuiltInOnePartitionPerLocalCoreAndAsDeltaDefaultsElsewhere() {
    assertEquals(1, JobSession.localCores("local", 8));
    assertEquals(8, JobSession.localCores("local[*]", 8));
    assertEquals(3, JobSession.localCores("local[3]", 8));
    assertEquals(4, JobSession.localCores("local[4,2]", 8));
    assertEquals(0, JobSession.localCores("local-cluster[2,1,1024]", 8));
    assertEquals(0, JobSession.localCores("spark://host:7077", 8));
    assertEquals(0, JobSession.localCores("yarn", 8));
  }

  /**
   * A local master sizes Delta's state rebuilds and Spark's shuffles to its cores (Spark's 200 shuffle
   * partitions made the evaluations' cached, RDD-trained data ~10× slower on two cores); a value the user set
   * wins; any other master, and a session the job does not start the master of, keeps the defaults.
   */
  @Test
  void aLocalMasterSizesShufflesToItsCoresUnlessTheUserSetThem() {
    int perCore = JobSession.SHUFFLE_PARTITIONS_PER_CORE;
    assertEquals(Map.of(JobSession.DELTA_SNAPSHOT_PARTITIONS, "2", JobSession.SHUFFLE_PARTITIONS,
        String.valueOf(2 * perCore)), JobSession.localSizing(props(), true, 2));
    assertEquals(Map.of(JobSession.DELTA_SNAPSHOT_PARTITIONS, "3", JobSession.SHUFFLE_PARTITIONS,
        String.valueOf(3 * perCore)), JobSession.localSizing(props("spark.master", "local[3]"), true, 8));
    assertEquals(Map.of(JobSession.DELTA_SNAPSHOT_PARTITIONS, "2"),
        JobSession.localSizing(props("spark.sql.shuffle.partitions", "200"), true, 2), "the user's value wins");
    assertEquals(Map.of(JobSession.SHUFFLE_PARTITIONS, String.valueOf(2 * perCore)),
        JobSession.localSizing(props("spark.databricks.delta.snapshotPartitions", "50"), true, 2));
    assertEquals(Map.of(), JobSession.localSizing(props("spark.master", "yarn"), true, 2));
    assertEquals(Map.of(), JobSession.localSizing(props(), false, 2), "a Databricks task's session: no master of ours");
  }

  private static Properties props(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty(keyValues[i], keyValues[i + 1]);
    }
    return p;
  }

  @Test
  void aConnectClientIsWhatTheLaunchAsksFor() {
    // spark-submit --remote sc://… --conf spark.api.mode=connect
    assertTrue(JobSession.connect(props("spark.api.mode", "connect", "spark.remote", "sc://h:15002"), Map.of()));
    assertTrue(JobSession.connect(props("spark.api.mode", " Connect "), Map.of()));
    // A remote address alone (spark.remote, or SPARK_REMOTE as Spark's clients read it).
    assertTrue(JobSession.connect(props("spark.remote", "sc://h:15002"), Map.of()));
    assertTrue(JobSession.connect(props(), Map.of("SPARK_REMOTE", "sc://h:15002")));
    // Classic: nothing asked, or classic asked explicitly (it wins over an address).
    assertFalse(JobSession.connect(props("spark.master", "local[2]"), Map.of()));
    assertFalse(JobSession.connect(props("spark.api.mode", "classic", "spark.remote", "sc://h:15002"),
        Map.of("SPARK_REMOTE", "sc://h:15002")));
  }
}
