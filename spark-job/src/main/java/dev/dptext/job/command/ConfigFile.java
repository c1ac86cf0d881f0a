package dev.dptext.job.command;

import dev.dptext.job.ExitCode;
import dev.dptext.job.JobException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A job configuration file: Java properties whose keys are the command's long option names without
 * dashes ({@code epsilon = 3}). Command-line options override it. Picocli's default-value provider
 * does the binding; this class adds what it does not: an unknown key is an error naming it.
 */
public final class ConfigFile implements CommandLine.IDefaultValueProvider {
  private final Properties properties;
  private final Path path;

  private ConfigFile(Properties properties, Path path) {
    this.properties = properties;
    this.path = path;
  }

  public static ConfigFile load(Path path) {
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      p.load(r);
    } catch (IOException e) {
      throw new JobException(ExitCode.USAGE,
          "Cannot read the configuration file " + path + " (" + e.getClass().getSimpleName()
              + "); check the --config path");
    }
    return new ConfigFile(p, path);
  }

  /** Fails on keys that are not options of {@code spec}, listing the valid ones. */
  public void validateAgainst(CommandSpec spec) {
    Set<String> known = new TreeSet<>();
    for (OptionSpec o : spec.options()) {
      known.add(strip(o.longestName()));
    }
    known.remove("config");
    known.remove("help");
    Set<String> unknown = new TreeSet<>();
    for (String k : properties.stringPropertyNames()) {
      if (!known.contains(k)) {
        unknown.add(k);
      }
    }
    if (!unknown.isEmpty()) {
      throw new JobException(ExitCode.USAGE,
          "Unknown key(s) " + unknown + " in configuration file " + path + " for '"
              + spec.name() + "'; valid keys are " + known);
    }
  }

  @Override
  public String defaultValue(ArgSpec arg) {
    if (arg instanceof OptionSpec o) {
      return properties.getProperty(strip(o.longestName()));
    }
    return null;
  }

  private static String strip(String name) {
    return name.replaceFirst("^-+", "");
  }
}
