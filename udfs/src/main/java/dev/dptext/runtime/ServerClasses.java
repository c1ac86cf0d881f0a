package dev.dptext.runtime;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF0;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes dptext's classes available to a Spark Connect server's tasks, for the UDF a client sends
 * ({@link ServerSanitizer#viaUdf}) and the evaluations' task functions ({@code dev.dptext.evaluation}). A Databricks JAR task's server has them (the task's jar); a cluster
 * started with the jar on its classpath too. Any other server gets this program's own jar as a session
 * artifact ({@code SparkSession.addArtifact}, Spark Connect's public way to ship a client's classes),
 * once per session, after a one-row probe shows the server cannot load them.
 */
public final class ServerClasses {
  private static final Logger LOG = LoggerFactory.getLogger(ServerClasses.class);
  private static final Map<SparkSession, Boolean> READY = Collections.synchronizedMap(new WeakHashMap<>());

  private ServerClasses() {}

  /** A UDF whose class only dptext's jar holds: it runs if and only if the server can load dptext's classes. */
  private static final class Probe implements UDF0<Boolean> {
    private static final long serialVersionUID = 1L;

    @Override
    public Boolean call() {
      return Boolean.TRUE;
    }
  }

  /**
   * Ensures the session's server can load dptext's classes, adding this program's jar as an artifact
   * when it cannot.
   *
   * @throws IllegalStateException when it cannot and this program does not run from a jar (its classes
   *     are in a directory: a development build), naming the way to add them
   */
  public static void ensure(SparkSession spark) {
    if (READY.containsKey(spark)) {
      return;
    }
    if (!probe(spark)) {
      Path jar = ownJar();
      LOG.info("The Spark Connect server cannot load dptext's classes: adding {} to the session", jar.getFileName());
      spark.addArtifact(jar.toUri());
      if (!probe(spark)) {
        throw new IllegalStateException("The Spark Connect server still cannot load dptext's classes after " + jar
            + " was added to the session; put the dptext jar on the server's classpath");
      }
    }
    READY.put(spark, Boolean.TRUE);
  }

  private static boolean probe(SparkSession spark) {
    try {
      spark.range(1).select(functions.udf(new Probe(), DataTypes.BooleanType).apply()).collectAsList();
      return true;
    } catch (Exception e) { // Spark's errors include SparkExceptions, checked, thrown undeclared
      for (Throwable t = e; t != null; t = t.getCause()) {
        String m = String.valueOf(t.getMessage());
        if (m.contains("ClassNotFound") || m.contains("NoClassDefFound") || m.contains(Probe.class.getName())) {
          return false;
        }
      }
      throw e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
    }
  }

  private static Path ownJar() {
    try {
      Path p = Path.of(ServerClasses.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (Files.isRegularFile(p) && p.toString().endsWith(".jar")) {
        return p;
      }
      throw new IllegalStateException("The Spark Connect server cannot load dptext's classes, and this program "
          + "runs from " + p + ", not a jar: add the dptext jar to the session (spark.addArtifact) or to the "
          + "server's classpath");
    } catch (java.net.URISyntaxException | SecurityException e) {
      throw new IllegalStateException("Cannot locate dptext's jar to add it to the Spark Connect session", e);
    }
  }
}
