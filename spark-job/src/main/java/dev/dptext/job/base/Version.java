package dev.dptext.job.base;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine;

/**
 * dptext's version, as the build wrote it into {@code version.properties} (Maven fills in
 * {@code ${project.version}}): what {@code --version} prints and what a run's audit and summary record.
 */
public final class Version implements CommandLine.IVersionProvider {
  /** The project version of this build, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static final String VALUE = read();

  private static String read() {
    try (InputStream in = Version.class.getResourceAsStream("version.properties")) {
      if (in == null) {
        throw new IllegalStateException("version.properties is missing from the dptext jar (a broken build)");
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public String[] getVersion() {
    return new String[] {"dptext " + VALUE};
  }
}
