package dev.dptext.runtime;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import dev.dptext.spark.DpText;
import dev.dptext.spark.DpTextExtensions;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a Spark Connect client may name to the server for the key, and how it names paths. */
class ServerSanitizerTest {
  private static final DpTextOptions KEY_FILE = DpTextOptions.defaults().with(Settings.KEY_FILE, "/keys/dptext");

  @Test
  void aKeyOfThisProgramsEnvironmentIsRefusedWithTheSourcesThatWork() {
    IllegalArgumentException given = assertThrows(IllegalArgumentException.class,
        () -> ServerSanitizer.checkKeySource(KEY_FILE.with(Settings.KEY_ENV, "MY_KEY"), true, Map.of()));
    ErrorAssertions.assertError(given, "CONNECT_KEY_ENV", Map.of("keyEnvKey", Settings.KEY_ENV.confKey(),
        "variable", "MY_KEY", "sources", ServerSanitizer.KEY_SOURCES));
    // The default variable holds a key here and nothing else names one: a classic run would use it.
    IllegalArgumentException inEnv = assertThrows(IllegalArgumentException.class,
        () -> ServerSanitizer.checkKeySource(DpTextOptions.defaults(), false, Map.of("DPTEXT_KEY", "x")));
    ErrorAssertions.assertError(inEnv, "CONNECT_KEY_IN_ENVIRONMENT", Map.of("variable", "DPTEXT_KEY",
        "sources", ServerSanitizer.KEY_SOURCES));
    assertTrue(!inEnv.getMessage().contains("=x"), "the message must not hold the key");
  }

  @Test
  void namedSourcesFreshRandomnessAndTheServersOwnKeyPass() {
    assertDoesNotThrow(() -> ServerSanitizer.checkKeySource(KEY_FILE, false, Map.of("DPTEXT_KEY", "x")));
    assertDoesNotThrow(() -> ServerSanitizer.checkKeySource(
        DpTextOptions.defaults().with(Settings.DATABRICKS_SECRET, "scope/key"), false, Map.of()));
    assertDoesNotThrow(() -> ServerSanitizer.checkKeySource(
        DpTextOptions.defaults().with(Settings.FRESH_RANDOMNESS, true), false, Map.of("DPTEXT_KEY", "x")));
    // Nothing named and nothing here: the server's own key (spark.dptext.secretKey at its start).
    assertDoesNotThrow(() -> ServerSanitizer.checkKeySource(DpTextOptions.defaults(), false, Map.of()));
  }

  @Test
  void localRelativePathsBecomeThisProgramsAbsolutePaths() {
    assertEquals(Path.of("models/m.bin").toAbsolutePath().toString(), ServerSanitizer.absolute("models/m.bin"));
    assertEquals("/Volumes/main/x/key", ServerSanitizer.absolute("/Volumes/main/x/key"));
    assertEquals("s3://bucket/key", ServerSanitizer.absolute("s3://bucket/key"));
    assertEquals("default", ServerSanitizer.absolute("default"));
  }

  /** The names the Connect route calls the server's functions by are the public API's. */
  @Test
  void theFunctionAndExtensionNamesAreThePublicApis() {
    assertEquals(DpText.SQL_FUNCTION, SqlFunctionNames.SANITIZE);
    assertEquals(DpText.SQL_FUNCTION_COUNTED, SqlFunctionNames.SANITIZE_COUNTED);
    assertEquals(DpTextExtensions.class.getName(), SqlFunctionNames.EXTENSIONS);
  }
}
