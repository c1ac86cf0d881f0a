package dev.dptext.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.databricks.dbutils_v1.DBUtilsHolder$;
import dev.dptext.random.SecretKey;
import dev.dptext.testing.ErrorAssertions;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The key from a Databricks secret scope, through the runtime's dbutils (a test stand-in here). */
class DatabricksSecretsTest {
  static final String KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";

  @AfterEach
  void clear() {
    DBUtilsHolder$.SECRETS.clear();
  }

  @Test
  void keyComesFromTheSecretScopeAndWinsOverEnvironmentAndFile() {
    DBUtilsHolder$.SECRETS.put("dptext/rng-key", KEY);
    DpTextOptions o = DpTextOptions.fromMap(Map.of(
        Settings.DATABRICKS_SECRET.confKey(), "dptext/rng-key",
        Settings.KEY_ENV.confKey(), "DPTEXT_TEST_UNSET_VARIABLE"));
    SecretKey key = o.resolveKey();
    assertEquals(SecretKey.parse(KEY, "test"), key);
    assertEquals("Databricks secret dptext/rng-key", key.source());
    assertFalse(key.toString().contains(KEY.substring(0, 16)), key.toString());
    assertFalse(o.describe().contains(KEY.substring(0, 16)));
  }

  @Test
  void errorsNameScopeAndKeyNeverTheValue() {
    DpTextOptions missing = DpTextOptions.fromMap(Map.of(Settings.DATABRICKS_SECRET.confKey(), "dptext/other"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, missing::resolveKey);
    ErrorAssertions.assertError(e, "DATABRICKS_SECRET_UNREADABLE");
    assertEquals("dptext/other", ((dev.dptext.errors.Catalogued) e).parameters().get("secret"));

    // A malformed name fails when it is read, before any key is looked for.
    e = assertThrows(IllegalArgumentException.class,
        () -> DpTextOptions.fromMap(Map.of(Settings.DATABRICKS_SECRET.confKey(), "no-slash")));
    ErrorAssertions.assertError(e, "SETTING_INVALID");
    assertTrue(e.getMessage().contains("SCOPE/KEY") && e.getMessage().contains("'no-slash'"), e.getMessage());

    DBUtilsHolder$.SECRETS.put("dptext/short", "abcd");
    DpTextOptions tooShort = DpTextOptions.fromMap(Map.of(Settings.DATABRICKS_SECRET.confKey(), "dptext/short"));
    e = assertThrows(IllegalArgumentException.class, tooShort::resolveKey);
    assertTrue(e.getMessage().contains("Databricks secret dptext/short"), e.getMessage());
    assertFalse(e.getMessage().contains("abcd"), e.getMessage());
  }
}
