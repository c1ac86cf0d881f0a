package dev.dptext.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.SecretKey;
import dev.dptext.sanitizer.Sanitizer;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.text.TokenCounts;
import java.io.BufferedReader;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM side of the Python engine's benchmark (scripts/bench/python-engine.sh): the sanitizer the UDF runs,
 * on one thread, over the first N IMDb reviews, seeded by their ids, with a model file. Prints the build
 * (mechanism tables) and the steady rate: the third pass over the reviews, tokens (OOV included) per second of this
 * thread's CPU time, as the Python side measures its own (the second pass's rate too: it still pays one-time costs,
 * the Python side the kernel's first touch of memory its first pass did not use); and a digest of the output rows,
 * which the Python side prints too (equal digests: the same rows).
 *
 * <p>Arguments: model file, reviews JSON lines, N, then settings as {@code spark.dptext.KEY=VALUE}.
 */
public final class EngineRate {
  private EngineRate() {}

  public static void main(String[] args) throws Exception {
    DpTextModel model;
    try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
      model = ModelArtifact.read(in, args[0]);
    }
    int n = Integer.parseInt(args[2]);
    List<Long> ids = new ArrayList<>();
    List<String> texts = new ArrayList<>();
    ObjectMapper json = new ObjectMapper();
    try (BufferedReader r = Files.newBufferedReader(Path.of(args[1]), StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null && texts.size() < n) {
        JsonNode row = json.readTree(line);
        ids.add(row.get("id").asLong());
        texts.add(row.get("review").asText());
      }
    }
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 3; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      settings.put(kv[0], kv[1]);
    }
    SecretKey key = SecretKey.parse("00".repeat(32), "the benchmark's fixed key");
    var bean = java.lang.management.ManagementFactory.getThreadMXBean();
    long w0 = System.nanoTime();
    Sanitizer sanitizer = Sanitizer.build(DpTextOptions.fromMap(settings), model, key);
    String first = sanitizer.sanitize(texts.get(0), ids.get(0), null);
    double build = (System.nanoTime() - w0) / 1e9;
    long tokens = 0;
    java.security.MessageDigest rows = java.security.MessageDigest.getInstance("SHA-256");
    double second = 0;
    for (int pass = 0; pass < 3; pass++) {
      TokenCounts counts = new TokenCounts();
      long c0 = bean.getCurrentThreadCpuTime();
      String[] out = new String[texts.size()];
      for (int i = 0; i < texts.size(); i++) {
        out[i] = sanitizer.sanitize(texts.get(i), ids.get(i), counts);
      }
      if (pass == 2) {
        for (String o : out) { // what the Python side digests too: the rows are the same when the digests are
          rows.update((o + "\n").getBytes(StandardCharsets.UTF_8));
        }
      }
      double cpu = (bean.getCurrentThreadCpuTime() - c0) / 1e9;
      tokens = counts.tokens;
      if (pass == 1) {
        second = tokens / cpu;
      } else if (pass == 2) {
        System.out.printf("jvm %s: build %.2f s (wall, all threads), steady %.3f s CPU, %d tokens, %.0f tokens/s "
            + "(second pass %.0f), rows sha256 %s%n", settings, build, cpu, tokens, tokens / cpu, second,
            java.util.HexFormat.of().formatHex(rows.digest()).substring(0, 16));
      }
    }
    if (first == null) {
      throw new IllegalStateException("no output");
    }
  }
}
