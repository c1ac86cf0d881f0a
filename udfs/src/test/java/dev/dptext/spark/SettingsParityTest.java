package dev.dptext.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.config.Setting;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.GeneratedBlocks;
import dev.dptext.settings.Settings;
import dev.dptext.spark.ml.DpTextSanitizer;
import dev.dptext.testing.ErrorAssertions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.spark.ml.param.Param;
import org.junit.jupiter.api.Test;

/**
 * Every surface agrees with the one table: the Spark conf keys, the ML Params, the SQL function's
 * help ({@code DESCRIBE FUNCTION EXTENDED}) and the documents' tables (docs/settings.md, docs/mechanisms.md)
 * are derived from {@link Settings}
 * and {@link Mechanisms}; a setting or mechanism that one of them misses fails here. (The command
 * line is checked by the job's {@code CommandLineParityTest}.)
 */
class SettingsParityTest {

  @Test
  void everySettingHasOneNameSpelledTheSameWayOnEverySurface() {
    Set<String> names = new HashSet<>();
    for (Setting<?> s : Settings.ALL) {
      assertTrue(names.add(s.name()), "two settings named " + s.name());
      assertTrue(s.name().matches("[a-z][A-Za-z]*"), "not camelCase: " + s.name());
      assertEquals("spark.dptext." + s.name(), s.confKey());
      assertEquals("--" + s.name().replaceAll("([A-Z])", "-$1").toLowerCase(java.util.Locale.ROOT), s.cliName());
      assertFalse(s.doc().isBlank(), s.name() + " has no doc");
      s.defaultValue().ifPresent(v -> assertEquals(v, parse(s, s.defaultText()), s.name() + ": default round trip"));
    }
    for (Setting<?> p : Mechanisms.parameters()) {
      assertTrue(Settings.ALL.contains(p), "mechanism parameter " + p.name() + " is not in the table");
    }
    assertEquals(List.of(Settings.SECRET_KEY), Settings.ALL.stream().filter(Setting::secret).toList(),
        "only the key itself is conf-only");
  }

  private static Object parse(Setting<?> s, String text) {
    return s.parse(text);
  }

  @Test
  void theSparkConfReadsEverySettingFromItsKeyAndRejectsOthers() {
    Map<String, String> conf = new HashMap<>();
    for (Setting<?> s : Settings.ALL) {
      s.defaultValue().ifPresent(v -> conf.put(s.confKey(), s.defaultText()));
    }
    assertEquals(DpTextOptions.defaults(), DpTextOptions.fromMap(conf), "defaults written out read back equal");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> DpTextOptions.fromMap(Map.of("spark.dptext.epsilonn", "3")));
    ErrorAssertions.assertError(e, "SETTING_UNKNOWN");
    assertTrue(e.getMessage().contains("spark.dptext.epsilonn") && e.getMessage().contains("spark.dptext.epsilon"),
        e.getMessage());
  }

  /** The options key the cache of broadcast sanitizers: a setting left out of equals would share one wrongly. */
  @Test
  void everySettingTakesPartInEquality() {
    Map<String, String> other = new HashMap<>(Map.ofEntries(Map.entry("model", "other.vec"),
        Map.entry("vocabSize", "5"), Map.entry("neighbours", "8"), Map.entry("modelDistribution", "path"),
        Map.entry("mechanism", "laplace"),
        Map.entry("oov", "keep"), Map.entry("oovPlaceholder", "?"),
        Map.entry("casePolicy", "restore"), Map.entry("idMode", "fresh"), Map.entry("purpose", "other"),
        Map.entry("keyFile", "/other"), Map.entry("keyEnv", "OTHER"), Map.entry("databricksSecret", "a/b"),
        Map.entry("freshRandomness", "true"), Map.entry("secretKey", "ffeeddccbbaa99887766554433221100"),
        Map.entry("modelLayout", "partitioned"), Map.entry("nearestSearch", "hnsw")));
    // A mechanism's parameters take their values from the registry's examples (each away from its default),
    // so a new mechanism with a parameter of its own needs no line here.
    for (MechanismDefinition d : Mechanisms.ALL) {
      String example = d.example();
      int colon = example.indexOf(':');
      for (String part : colon < 0 ? new String[0] : example.substring(colon + 1).split(",")) {
        String[] kv = part.split("=", 2);
        other.putIfAbsent(kv[0], kv[1]);
      }
    }
    assertEquals(Settings.ALL.stream().map(Setting::name).collect(Collectors.toSet()), other.keySet(),
        "give every setting a non-default value here (a mechanism's parameter: in its definition's example())");
    DpTextOptions defaults = DpTextOptions.defaults();
    for (Setting<?> s : Settings.ALL) {
      DpTextOptions changed = defaults.withText(s, other.get(s.name()));
      assertFalse(changed.equals(defaults), s.name() + " is not part of equals");
      assertEquals(changed, defaults.withText(s, other.get(s.name())), s.name() + ": equal values, equal options");
      assertEquals(changed.hashCode(), defaults.withText(s, other.get(s.name())).hashCode());
    }
    assertFalse(defaults.withText(Settings.SECRET_KEY, other.get("secretKey")).toString().contains("ffeedd"),
        "toString never shows the key");
  }

  @Test
  void theMlStageHasOneParamPerSettingWithTheSameDefaultAndDoc() {
    DpTextSanitizer stage = new DpTextSanitizer();
    Map<String, Param<?>> params = Arrays.stream(stage.params()).collect(Collectors.toMap(Param::name, p -> p));
    Set<String> expected = new HashSet<>(List.of("inputCol", "outputCol", "idCol"));
    for (Setting<?> s : Settings.options()) {
      expected.add(s.name());
      Param<?> p = params.get(s.name());
      assertTrue(p != null, "no Param for setting " + s.name());
      assertEquals(Settings.doc(s), p.doc(), s.name());
      Object paramDefault = stage.getDefault(p).isDefined() ? stage.getDefault(p).get() : null;
      Object tableDefault = s.defaultValue().orElse(null);
      assertEquals(tableDefault, paramDefault instanceof double[] a ? Arrays.stream(a).boxed().toList() : paramDefault,
          s.name() + ": the Param's default is the table's");
      assertEquals(p, stage.getParam(s.name()));
    }
    assertEquals(expected, params.keySet(), "the Params are the columns and the table's settings, nothing else");
    assertFalse(params.containsKey(Settings.SECRET_KEY.name()), "the key is never a Param");
  }

  @Test
  void theDefaultMechanismIsTheSameEverywhere() {
    assertEquals("santext", Mechanisms.DEFAULT);
    assertEquals(Mechanisms.DEFAULT, DpTextOptions.defaults().mechanismSpec().name());
    assertEquals(Mechanisms.DEFAULT, DpText.sanitizer().options().mechanismSpec().name());
    assertEquals(Mechanisms.DEFAULT, new DpTextSanitizer().getMechanism());
  }

  @Test
  void everyMechanismParsesPrintsAndDescribesItself() {
    for (MechanismDefinition d : Mechanisms.ALL) {
      assertEquals(d, Mechanisms.get(d.name()));
      d.aliases().forEach(a -> assertEquals(d, Mechanisms.get(a), a));
      assertTrue(d.parameters().get(0).setting() == MechanismDefinition.EPSILON, d.name() + ": ε first");
      assertTrue(d.guarantee().contains("ε") && d.guarantee().contains(MechanismDefinition.NOT_COVERED), d.guarantee());
      Map<String, Object> given = new HashMap<>();
      d.parameters().stream().filter(MechanismDefinition.Parameter::required)
          .forEach(p -> given.put(p.name(), "0;0.5;1"));
      MechanismSpec spec = MechanismSpec.of(d.name(), given);
      assertEquals(spec, MechanismSpec.parse(spec.toSpecString()), spec.toSpecString());
      assertTrue(spec.guarantee().contains(String.valueOf(spec.epsilon())), spec.guarantee());
      assertTrue(spec.describe().startsWith(d.name() + " "), spec.describe());
      assertEquals(spec, DpTextOptions.defaults().with(spec).mechanismSpec(), "options carry every parameter");
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MechanismSpec.parse("laplace:epsilon=3,w=0.5"));
    assertTrue(e.getMessage().contains("'w'") && e.getMessage().contains("[epsilon]"), e.getMessage());
  }

  /** One message form for every bad value, whatever the surface: the name, the value, what is allowed, the fix. */
  @Test
  void everyParameterIsCheckedOnceWithOneMessage() {
    Map<String, String> epsilon = DpTextErrors.pairs("setting", "epsilon", "expected", "a positive finite number",
        "value", "-1.0", "hint", "Typical values are 1 to 10 for the embedding mechanisms");
    for (org.junit.jupiter.api.function.Executable surface : List.<org.junit.jupiter.api.function.Executable>of(
        () -> DpTextOptions.fromMap(Map.of("spark.dptext.epsilon", "-1")),
        () -> MechanismSpec.parse("laplace:epsilon=-1"),
        () -> new DpTextSanitizer().setEpsilon(-1))) {
      ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class, surface), "SETTING_INVALID", epsilon);
    }
    ErrorAssertions.assertError(assertThrows(IllegalArgumentException.class, () -> MechanismSpec.parse("santext+:w=0")),
        "SETTING_INVALID", Map.of("setting", "w", "expected", "in (0, 1]", "value", "0.0",
            "hint", "The paper uses 0.9"));
    ErrorAssertions.assertError(
        assertThrows(IllegalArgumentException.class, () -> MechanismSpec.parse("vickrey:t=0.2;0.5")),
        "SETTING_INVALID", Map.of("setting", "t", "expected", "one threshold in [0, 1] for vickrey",
            "value", "[0.2, 0.5]", "hint", "Use vickrey-topk for t_1..t_k"));
  }

  @Test
  void describeFunctionListsEveryMechanismParameterAndSetting() {
    var spark = SharedSpark.get();
    DpText.register(spark);
    String text = spark.sql("DESCRIBE FUNCTION EXTENDED dp_sanitize").collectAsList().stream()
        .map(r -> r.getString(0)).collect(Collectors.joining("\n"));
    for (MechanismDefinition d : Mechanisms.ALL) {
      assertTrue(text.contains("* " + d.name() + " ("), "DESCRIBE FUNCTION misses mechanism " + d.name());
      assertTrue(text.contains(d.guarantee()), "DESCRIBE FUNCTION misses the guarantee of " + d.name());
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        assertTrue(text.contains(p.name()), d.name() + " parameter " + p.name());
      }
    }
    for (Setting<?> s : Settings.ALL) {
      assertTrue(text.contains("* " + s.confKey() + " (" + s.defaultText() + ") - " + Settings.doc(s)),
          "DESCRIBE FUNCTION misses " + s.confKey());
    }
  }

  @Test
  void theDocumentsTablesAreTheGeneratedOnes() throws Exception {
    String settings = Files.readString(Path.of("../docs/settings.md"));
    String mechanisms = Files.readString(Path.of("../docs/mechanisms.md"));
    assertEquals(Settings.markdownTable().strip(), between(settings, "settings"),
        "docs/settings.md's settings table is stale: run scripts/regenerate-docs.sh");
    assertEquals(Settings.mechanismsMarkdownTable().strip(), between(mechanisms, "mechanisms"),
        "docs/mechanisms.md's mechanisms table is stale: run scripts/regenerate-docs.sh");
    for (String document : GeneratedBlocks.DOCUMENTS) {
      String text = Files.readString(Path.of("..", document));
      assertTrue(text.contains("<!-- generated:"), document + " has no generated block");
      assertEquals(text, GeneratedBlocks.regenerate(text), document + "'s generated blocks are stale: run "
          + "scripts/regenerate-docs.sh");
    }
    // A block in another document would be neither rewritten by the script nor checked here.
    List<Path> documents = new java.util.ArrayList<>(List.of(Path.of("../README.md"), Path.of("../BENCHMARKS.md")));
    try (var docs = Files.list(Path.of("../docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).forEach(documents::add);
    }
    for (Path p : documents) {
      String relative = Path.of("..").relativize(p).toString();
      assertEquals(GeneratedBlocks.DOCUMENTS.contains(relative), Files.readString(p).contains("<!-- generated:"),
          relative + ": a generated block belongs in GeneratedBlocks.DOCUMENTS, and only there");
    }
    // The command fixes a stale block: an edited table comes back.
    String stale = settings.replace(Settings.markdownTable().strip(), "| a stale table |");
    assertEquals(settings, GeneratedBlocks.regenerate(stale));
  }

  /**
   * A list of every mechanism written by hand goes stale the day a mechanism is added (the Python engine's
   * list did): outside the generated blocks, no paragraph of README or docs/ names more than two thirds of
   * the registry's mechanisms (a comparison of a few, or the evaluation's results, name fewer). The history
   * page is a diary, exempt.
   */
  @Test
  void noDocumentListsTheMechanismsByHand() throws Exception {
    List<Path> documents = new java.util.ArrayList<>(List.of(Path.of("../README.md")));
    try (var docs = Files.list(Path.of("../docs"))) {
      docs.filter(p -> p.toString().endsWith(".md") && !p.endsWith("benchmarks-history.md")).forEach(documents::add);
    }
    Map<MechanismDefinition, java.util.regex.Pattern> spellings = new HashMap<>();
    for (MechanismDefinition d : Mechanisms.ALL) {
      List<String> names = new java.util.ArrayList<>(d.aliases());
      names.add(d.name());
      String any = names.stream().map(java.util.regex.Pattern::quote).collect(Collectors.joining("|"));
      spellings.put(d, java.util.regex.Pattern.compile("(?<![\\w+-])(?:" + any + ")(?![\\w+-])",
          java.util.regex.Pattern.CASE_INSENSITIVE));
    }
    int limit = 2 * Mechanisms.ALL.size() / 3;
    for (Path p : documents) {
      String text = Files.readString(p).replaceAll("(?s)<!-- generated:([\\w-]+):begin -->.*?<!-- generated:\\1:end -->", "");
      for (String paragraph : text.split("\\n\\s*\\n")) {
        List<String> named = Mechanisms.ALL.stream().filter(d -> spellings.get(d).matcher(paragraph).find())
            .map(MechanismDefinition::name).toList();
        assertTrue(named.size() <= limit, p + " lists " + named + " by hand: say \"every mechanism\" and point at "
            + "docs/mechanisms.md's generated table, or generate the list (GeneratedBlocks):\n" + paragraph);
      }
    }
  }

  private static String between(String text, String name) {
    String begin = "<!-- generated:" + name + ":begin -->";
    String end = "<!-- generated:" + name + ":end -->";
    int b = text.indexOf(begin);
    int e = text.indexOf(end);
    assertTrue(b >= 0 && e > b, "no " + begin + " … " + end + " block");
    return text.substring(b + begin.length(), e).strip();
  }
}
