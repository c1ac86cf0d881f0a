package dev.dptext.settings;

import dev.dptext.errors.DpTextErrors;
import java.lang.reflect.InvocationTargetException;
import java.util.List;

/**
 * Reads the RNG key from a Databricks secret scope ({@code scope/key}), on a Databricks cluster.
 *
 * <p>dptext does not depend on Databricks jars: the runtime's {@code dbutils} is found by reflection,
 * first the cluster's own holder ({@code com.databricks.dbutils_v1.DBUtilsHolder.dbutils}), then the
 * Databricks Utilities for Scala library ({@code com.databricks.sdk.scala.dbutils.DBUtils.getDBUtils},
 * e.g. with Databricks Connect). Off Databricks neither exists and the error says which other key
 * sources to use. The secret's value never appears in a message; only the scope and key names do,
 * which are not secret (they are in the job's configuration).
 */
final class DatabricksSecrets {
  /** Scala objects exposing dbutils, and the accessor returning it, tried in order. */
  static final List<String[]> PROVIDERS = List.of(
      new String[] {"com.databricks.dbutils_v1.DBUtilsHolder$", "dbutils"},
      new String[] {"com.databricks.sdk.scala.dbutils.DBUtils$", "getDBUtils"});

  private DatabricksSecrets() {}

  /**
   * The secret named {@code scopeAndKey} ("scope/key").
   *
   * @throws IllegalArgumentException when the name is malformed, dbutils is not available (not on
   *     Databricks), or the secret cannot be read
   */
  static String get(String scopeAndKey) {
    Settings.DATABRICKS_SECRET.check(scopeAndKey);
    int slash = scopeAndKey.indexOf('/');
    String scope = scopeAndKey.substring(0, slash);
    String key = scopeAndKey.substring(slash + 1);
    Object dbutils = dbutils();
    if (dbutils == null) {
      throw DpTextErrors.error("DATABRICKS_SECRET_NO_DBUTILS", "secret", scopeAndKey,
          "keyEnv", Settings.KEY_ENV.confKey(), "keyEnvDefault", Settings.KEY_ENV.defaultText(),
          "keyFile", Settings.KEY_FILE.confKey(), "secretKey", Settings.SECRET_KEY.confKey());
    }
    try {
      Object secrets = dbutils.getClass().getMethod("secrets").invoke(dbutils);
      Object value = secrets.getClass().getMethod("get", String.class, String.class).invoke(secrets, scope, key);
      return (String) value;
    } catch (InvocationTargetException e) {
      // The cause's message is dbutils' own (scope/key not found, no permission); it never holds the value.
      Throwable cause = e.getCause();
      throw DpTextErrors.error(cause, "DATABRICKS_SECRET_UNREADABLE", "secret", scopeAndKey,
          "reason", cause.getClass().getSimpleName() + ": " + cause.getMessage());
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw DpTextErrors.error(e, "DATABRICKS_SECRETS_API_MISSING", "reason", e, "reference",
          "{{secrets/" + scope + "/" + key + "}}");
    }
  }

  private static Object dbutils() {
    for (String[] provider : PROVIDERS) {
      try {
        Class<?> holder = Class.forName(provider[0]);
        Object module = holder.getField("MODULE$").get(null);
        return holder.getMethod(provider[1]).invoke(module);
      } catch (ClassNotFoundException e) {
        // not this runtime; try the next
      } catch (ReflectiveOperationException e) {
        throw DpTextErrors.error(e, "DATABRICKS_DBUTILS_UNREACHABLE", "provider", provider[0], "reason", e);
      }
    }
    return null;
  }
}
