package dev.dptext.settings;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * The machine's cache of the default model ({@code --model default}): where a driver keeps the model it built,
 * so that the next run on the same machine reads it instead of rebuilding its neighbour tables (~13 s on two
 * cores). Declared here, once: the JVM system property {@value #PROPERTY}, else the environment variable
 * {@value #ENV}; unset means {@code $XDG_CACHE_HOME/dptext/models}, else {@code ~/.cache/dptext/models};
 * {@code off} (or {@code 0}, {@code false}) turns the cache off; any other value is the directory.
 *
 * <p>Why not a setting of {@link Settings}: those are the settings of one sanitization, the same on every
 * surface (a Spark conf key, an option, an ML Param, the Python package); this one is the machine's, like the
 * launcher's {@code DPTEXT_CDS_DIR}. It never changes an output (a cached model is the model the run would
 * build), and a driver reads it from its own JVM and environment, where the run's settings do not reach before
 * the model is loaded ({@code spark.driver.extraJavaOptions=-D}{@value #PROPERTY}{@code =…} on a cluster).
 */
public final class ModelCache {
  /** The JVM system property; wins over {@value #ENV}. */
  public static final String PROPERTY = "dptext.modelCache";

  /** The environment variable, for the launcher ({@code scripts/dptext}) and shells. */
  public static final String ENV = "DPTEXT_MODEL_CACHE";

  private ModelCache() {}

  /**
   * Where the default model is cached, or why it is not: {@code directory} null with {@code reason} saying
   * why (turned off, no home directory).
   */
  public record Location(Path directory, String reason) {
    /** Whether there is a directory to use. */
    public boolean enabled() {
      return directory != null;
    }
  }

  /** This JVM's location, from its system properties and environment. */
  public static Location location() {
    return location(System.getProperties(), System.getenv());
  }

  /** The location the property and environment give (the property wins). */
  public static Location location(Properties properties, Map<String, String> env) {
    String value = properties.getProperty(PROPERTY);
    String from = "-D" + PROPERTY;
    if (value == null || value.isBlank()) {
      value = env.get(ENV);
      from = ENV;
    }
    if (value != null && !value.isBlank()) {
      String v = value.strip();
      if (switch (v.toLowerCase(Locale.ROOT)) {
        case "off", "0", "false", "none" -> true;
        default -> false;
      }) {
        return new Location(null, "turned off by " + from + "=" + v);
      }
      try {
        return new Location(Path.of(v).toAbsolutePath(), from);
      } catch (InvalidPathException e) {
        return new Location(null, from + " is not a path (" + e.getMessage() + ")");
      }
    }
    // The XDG base directory specification: a relative XDG_CACHE_HOME is invalid and is ignored.
    String xdg = env.get("XDG_CACHE_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return new Location(Path.of(xdg, "dptext", "models"), "XDG_CACHE_HOME");
    }
    String home = properties.getProperty("user.home");
    // The JVM says "?" when the user has no entry in the password database (e.g. a container's random uid).
    if (home == null || home.isBlank() || home.equals("?") || !Path.of(home).isAbsolute()) {
      return new Location(null, "this user has no home directory (set " + ENV + " to a directory)");
    }
    return new Location(Path.of(home, ".cache", "dptext", "models"), "the home directory");
  }
}
