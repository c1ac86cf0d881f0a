package dev.dptext.job.base;


import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.job.read.InputGuard;
import org.junit.jupiter.api.Test;

class JobExceptionTest {
  @Test
  void aTaskFailureIsFoundByItsCauseOrByTheNameInASparkMessage() {
    Exception attached = new RuntimeException("Job aborted", new IllegalStateException("wrapped", new OutOfMemoryError()));
    Exception named = new RuntimeException("Job aborted due to stage failure: ... java.lang.OutOfMemoryError: Java heap space");
    Exception other = new RuntimeException("Job aborted", new IllegalStateException("no space left on device"));
    assertTrue(JobException.taskFailedWith(attached, OutOfMemoryError.class, "java.lang.OutOfMemoryError"));
    assertTrue(JobException.taskFailedWith(named, OutOfMemoryError.class, "java.lang.OutOfMemoryError"));
    assertFalse(JobException.taskFailedWith(other, OutOfMemoryError.class, "java.lang.OutOfMemoryError"));
    assertTrue(JobException.taskFailedWith(new RuntimeException("x", new InputGuard.Rejected()),
        InputGuard.Rejected.class, InputGuard.REJECTED));
  }
}
