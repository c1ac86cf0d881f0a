package com.databricks.dbutils_v1;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Test stand-in for the Databricks runtime's {@code DBUtilsHolder} Scala object (compiled as
 * {@code DBUtilsHolder$} with a {@code MODULE$} singleton), so {@code DatabricksSecretsTest} and the
 * job's notebook tests can exercise the reflective lookup off Databricks. Holds secrets in a map; a missing one fails the way
 * dbutils does, naming scope and key but no value.
 */
public final class DBUtilsHolder$ {
  public static final DBUtilsHolder$ MODULE$ = new DBUtilsHolder$();
  public static final Map<String, String> SECRETS = new ConcurrentHashMap<>();

  public DbUtils dbutils() {
    return new DbUtils();
  }

  public static final class DbUtils {
    public Secrets secrets() {
      return new Secrets();
    }
  }

  public static final class Secrets {
    public String get(String scope, String key) {
      String value = SECRETS.get(scope + "/" + key);
      if (value == null) {
        throw new IllegalArgumentException("Secret does not exist with scope: " + scope + " and key: " + key);
      }
      return value;
    }
  }
}
