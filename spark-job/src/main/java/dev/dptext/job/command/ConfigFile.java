package dev.dptext.job.command;

import dev.dptext.job.base.JobException;
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
 * A job configuration file ({@code --config}, {@link ConfigOptions}, on every command): Java properties whose keys
 * are the command's long option names without dashes ({@code epsilon = 3}). Command-line options override it.
 * Picocli's default-value provider does the binding; this class adds what it does not: an unknown key is an
 * error naming it.
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
      throw JobException.of(e, "CONFIG_FILE_UNREADABLE", "path", path, "kind", e.getClass().getSimpleName());
    }
    return new ConfigFile(p, path);
  }

  /**
   * Fails on keys that are not options of {@code spec}: a misspelt key would otherwise leave its option at the
   * default without a word (e.g. the ε of a release). The message names each unknown key, the nearest option
   * name when one is a typo away, and the valid keys.
   */
  public void validateAgainst(CommandSpec spec) {
    Set<String> known = new TreeSet<>();
    for (OptionSpec o : spec.options()) {
      known.add(strip(o.longestName()));
    }
    known.removeAll(Set.of("config", "help", "version"));
    Set<String> unknown = new TreeSet<>();
    for (String k : properties.stringPropertyNames()) {
      if (!known.contains(k)) {
        unknown.add(k);
      }
    }
    if (unknown.isEmpty()) {
      return;
    }
    StringBuilder hints = new StringBuilder();
    for (String k : unknown) {
      String near = nearest(strip(k), known);
      if (near != null) {
        hints.append(hints.isEmpty() ? " (" : "; ").append(k).append(": did you mean ").append(near).append('?');
      }
    }
    if (!hints.isEmpty()) {
      hints.append(')');
    }
    String command = spec.qualifiedName(" ").replaceFirst("^\\S+ ", "");
    throw JobException.of("CONFIG_UNKNOWN_KEYS", "keys", unknown, "path", path, "command", command, "hints", hints,
        "known", known);
  }

  /** The key of {@code known} at most two edits from {@code key} (the closest), or null. */
  private static String nearest(String key, Set<String> known) {
    String best = null;
    int bestDistance = 3;
    for (String k : known) {
      int d = distance(key, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] row = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      row[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      int diagonal = row[0];
      row[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int above = row[j];
        row[j] = Math.min(Math.min(row[j] + 1, row[j - 1] + 1), diagonal + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length()];
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
