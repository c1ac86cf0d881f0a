package dev.dptext.job;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
