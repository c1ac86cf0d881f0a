package dev.dptext.job.read;

import dev.dptext.job.base.JobException;
import java.util.Locale;

/** Input and output formats the job reads and writes. */
public enum DataFormat {
  CSV, JSON, PARQUET, TEXT, DELTA;

  public String sparkName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static DataFormat parse(String name) {
    for (DataFormat f : values()) {
      if (f.name().equalsIgnoreCase(name.strip())) {
        return f;
      }
    }
    throw JobException.of("FORMAT_UNKNOWN", "format", name);
  }

  /** Guesses the format from a path's extension; null when it cannot tell. */
  public static DataFormat guess(String path) {
    String p = path.toLowerCase(Locale.ROOT).replaceAll("/+$", "");
    if (p.endsWith(".csv") || p.endsWith(".csv.gz")) {
      return CSV;
    }
    if (p.endsWith(".json") || p.endsWith(".jsonl") || p.endsWith(".json.gz") || p.endsWith(".jsonl.gz")) {
      return JSON;
    }
    if (p.endsWith(".parquet")) {
      return PARQUET;
    }
    if (p.endsWith(".txt") || p.endsWith(".txt.gz")) {
      return TEXT;
    }
    return null;
  }
}
