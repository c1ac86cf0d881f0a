package dev.dptext.sanitizer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dptext.embedding.Embeddings;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.ModelArtifact;
import dev.dptext.random.SecretKey;
import dev.dptext.spark.DpText;
import dev.dptext.testing.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The golden files both engines read (Apache DataSketches' cross-language habit): a small version-2 model, and
 * for every built-in mechanism at its defaults and at its {@code example()}, with a fixed test key, the rows of a
 * corpus with the hard Unicode cases, seeded by ids of every seedable type. The Python engine's tests
 * ({@code python/tests/engine/test_golden.py}) read them with no JVM; this test writes them again and compares
 * bytes, so a change to a sampler, the tokenizer, the seeding or the model format is a byte difference in review.
 *
 * <p>Regenerate after an intended change: {@code ./mvnw -pl udfs test -Dtest=GoldenRowsTest
 * -Ddptext.golden.write=true}, then review the diff of {@code udfs/src/test/resources/golden/}.
 */
class GoldenRowsTest {
  static final Path DIR = Path.of("src", "test", "resources", "golden");
  /** A test key, not a secret: it exists to make these files reproducible. */
  static final String KEY = "9f1c2e7a4b6d8e0f1a3c5e7092b4d6f8a0c2e4f6182a3b4c5d6e7f8091a2b3c4";
  static final int WORDS = 160;
  static final int NEIGHBOURS = 24;

  /** Texts of the corpus: review-like sentences and the cases a tokenizer gets wrong. */
  static final List<String> TEXTS = List.of(
      "The film was a great story, and the actors were good.",
      "I did not like the ending; it was too long for me.",
      "THE MUSIC WAS LOUD BUT THE PEOPLE LOVED IT!",
      "Café déjà vu: naïve coöperation in the Straße.",
      "İstanbul and ǅemal, ΟΔΟΣ and ß: case rules that differ.",
      "e\u0301 combining marks, a\u200db zero width, \u00a0non-breaking space.",
      "Emoji 👍🏽 and ❤️ and a flag 🇫🇷 between words of the day.",
      "A lone surrogate \ud800 and another \udc00 in the middle.",
      "中文 and 日本語 and العربية with the world and its time.",
      "\tTabs\tand\r\nnew lines\n\n and   runs of   space ",
      "2024 was the year; $5 or £5, 3.14 and 1,000 people.",
      "",
      "   ",
      "good good good bad bad bad the the the");

  /** Ids: one of each seedable type, paired with the texts in turn. */
  static Map<String, Object> ids() {
    Map<String, Object> ids = new LinkedHashMap<>();
    ids.put("BIGINT:9223372036854775807", Long.MAX_VALUE);
    ids.put("BIGINT:-5", -5L);
    ids.put("INT:42", 42);
    ids.put("SMALLINT:-7", (short) -7);
    ids.put("TINYINT:3", (byte) 3);
    ids.put("STRING:ticket-0001", "ticket-0001");
    ids.put("STRING:ünïcødé 👍🏽", "ünïcødé 👍🏽");
    ids.put("DECIMAL(10,2):5.00", new BigDecimal("5.00"));
    ids.put("DECIMAL(10,3):0.120", new BigDecimal("0.120"));
    ids.put("DOUBLE:1.0E20", 1.0e20);
    ids.put("DOUBLE:-0.5", -0.5);
    ids.put("BINARY:00ff10", new byte[] {0, (byte) 0xff, 0x10});
    ids.put("BOOLEAN:true", Boolean.TRUE);
    ids.put("DATE:2026-12-03", LocalDate.of(2026, 12, 3));
    return ids;
  }

  /** The built-in mechanisms, each at its defaults and at its example (both when they differ). */
  static List<String> specs() {
    List<String> specs = new ArrayList<>();
    for (MechanismDefinition d : Mechanisms.BUILT_IN) {
      if (d.parameters().stream().noneMatch(MechanismDefinition.Parameter::required)) {
        specs.add(d.name());
      }
      specs.add(d.example());
    }
    return specs;
  }

  static DpTextModel model() {
    Embeddings e = Fixtures.gloveTop2000().topWords(WORDS);
    DpTextModel model = DpTextModel.of(e, "golden: the 160 most frequent words of glove-top2000", NEIGHBOURS);
    for (String spec : specs()) {
      MechanismSpec.parse(spec).build(model); // computes the tables and the covariance the file then holds
    }
    model.covariance();
    return model;
  }

  @Test
  void theCommittedGoldenFilesAreWhatThisJvmWrites() throws IOException {
    DpTextModel model = model();
    ByteArrayOutputStream modelBytes = new ByteArrayOutputStream();
    ModelArtifact.write(model, modelBytes);
    Map<String, byte[]> files = new LinkedHashMap<>();
    files.put("model.dptext-model", modelBytes.toByteArray());
    files.put("key.hex", (KEY + "\n").getBytes(StandardCharsets.US_ASCII));
    files.put("ids.jsonl", ids().entrySet().stream()
        .map(e -> "{\"id\": " + json(e.getKey()) + ", \"bytes\": \"" + HexFormat.of().formatHex(Sanitizer.idBytes(e.getValue()))
            + "\"}\n")
        .reduce("", String::concat).getBytes(StandardCharsets.US_ASCII));
    files.put("rows.jsonl", rows(model).getBytes(StandardCharsets.US_ASCII));
    if (Boolean.getBoolean("dptext.golden.write")) {
      Files.createDirectories(DIR);
      for (Map.Entry<String, byte[]> f : files.entrySet()) {
        Files.write(DIR.resolve(f.getKey()), f.getValue());
      }
    }
    for (Map.Entry<String, byte[]> f : files.entrySet()) {
      Path committed = DIR.resolve(f.getKey());
      String why = committed + " differs from what this JVM writes: if the change is intended, regenerate with "
          + "-Ddptext.golden.write=true and review the diff (the Python engine's test_golden reads these files)";
      assertEquals(HexFormat.of().formatHex(Files.readAllBytes(committed)).length(),
          HexFormat.of().formatHex(f.getValue()).length(), why);
      if (!java.util.Arrays.equals(Files.readAllBytes(committed), f.getValue())) {
        assertEquals(new String(Files.readAllBytes(committed), StandardCharsets.ISO_8859_1),
            new String(f.getValue(), StandardCharsets.ISO_8859_1), why);
      }
    }
  }

  /** One line per (spec, row): the spec, the id's seed bytes, the text and the output, as ASCII JSON. */
  static String rows(DpTextModel model) {
    SecretKey key = SecretKey.parse(KEY, "the golden files' test key");
    List<Map.Entry<String, Object>> ids = new ArrayList<>(ids().entrySet());
    StringBuilder out = new StringBuilder();
    List<String> specs = specs();
    for (int k = 0; k < specs.size(); k++) {
      String spec = specs.get(k);
      Sanitizer sanitizer = Sanitizer.build(DpText.sanitizer().mechanism(MechanismSpec.parse(spec)).options(), model, key);
      for (int i = 0; i < TEXTS.size(); i++) {
        Object id = ids.get((i + k) % ids.size()).getValue(); // each spec sees the ids in another pairing
        String text = TEXTS.get(i);
        out.append("{\"spec\": ").append(json(spec))
            .append(", \"id\": \"").append(HexFormat.of().formatHex(Sanitizer.idBytes(id)))
            .append("\", \"text\": ").append(json(text))
            .append(", \"output\": ").append(json(sanitizer.sanitize(text, id, null)))
            .append("}\n");
      }
    }
    return out.toString();
  }

  /** A JSON string in ASCII: every char outside printable ASCII as \\uXXXX (lone surrogates included). */
  static String json(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c >= 0x20 && c < 0x7f) {
        b.append(c);
      } else {
        b.append(String.format("\\u%04x", (int) c));
      }
    }
    return b.append('"').toString();
  }
}
