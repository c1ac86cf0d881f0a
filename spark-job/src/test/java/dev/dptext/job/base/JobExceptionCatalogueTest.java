package dev.dptext.job.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.dptext.errors.DpTextErrors;
import dev.dptext.errors.ErrorClass;
import dev.dptext.errors.Exit;
import dev.dptext.testing.ErrorAssertions;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job raises from the library's error catalogue: exit codes by category, the name kept end to end. */
class JobExceptionCatalogueTest {
  @Test
  void everyEntrysExitIsAnExitCodeOfTheSameNumber() {
    for (ErrorClass e : DpTextErrors.all().values()) {
      assertEquals(e.exit().code, ExitCode.valueOf(e.exit().name()).code, e.name());
    }
    for (Exit x : Exit.values()) {
      assertEquals(x.code, ExitCode.valueOf(x.name()).code, x.name());
    }
  }

  @Test
  void aCataloguedJobExceptionCarriesItsNameParametersAndExitCode() {
    JobException e = JobException.of("OUTPUT_EXISTS", "path", "/out", "kind", "a Delta table");
    assertEquals(ExitCode.USAGE, e.exitCode);
    ErrorAssertions.assertError(e, "OUTPUT_EXISTS", Map.of("path", "/out", "kind", "a Delta table"));
    assertEquals(DpTextErrors.render("OUTPUT_EXISTS", e.parameters()), e.getMessage());
  }

  @Test
  void theLibrarysErrorMapsByItsCategory() {
    var library = DpTextErrors.error("MECHANISM_PARAMETER_EXCEEDS_MODEL", "mechanism", "custext", "parameter",
        "groupSize", "value", 9, "what", "vocabulary size", "limit", 5);
    JobException e = JobException.wrap(ExitCode.INPUT, library);
    assertEquals(ExitCode.USAGE, e.exitCode, "the catalogue's category, not the call site's fallback");
    assertEquals(library.getMessage(), e.getMessage());
    assertSame(library, e.getCause());
    // Another library's refusal: named by the call site's fallback, quoting its first line only.
    JobException foreign = JobException.wrap(ExitCode.INPUT, new IllegalArgumentException("Wrong FS: s3://b.\nplan"));
    assertEquals(ExitCode.INPUT, foreign.exitCode);
    ErrorAssertions.assertError(foreign, "INPUT_REFUSED", Map.of("reason", "Wrong FS: s3://b", "type",
        "IllegalArgumentException"));
    ErrorAssertions.assertError(JobException.wrap(ExitCode.USAGE, new IllegalArgumentException("x")),
        "CONFIGURATION_REFUSED");
  }

  @Test
  void theNameSurvivesASparkConnectServer() {
    JobException thrown = JobException.of("OUTPUT_EXISTS", "path", "/out", "kind", "a Delta table").onServer();
    assertEquals("OUTPUT_EXISTS", thrown.errorClass());
    RuntimeException received = new RuntimeException("[STREAM_FAILED] Query terminated: "
        + JobException.class.getName() + ": " + thrown.getMessage() + "\n\tat somewhere");
    JobException back = JobException.fromServer(received).orElseThrow();
    assertEquals(ExitCode.USAGE, back.exitCode);
    assertEquals("OUTPUT_EXISTS", back.errorClass());
    assertEquals(JobException.of("OUTPUT_EXISTS", "path", "/out", "kind", "a Delta table").getMessage(),
        back.getMessage());
  }
}
