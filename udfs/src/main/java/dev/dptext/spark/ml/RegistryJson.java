package dev.dptext.spark.ml;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.dptext.config.Setting;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.settings.Settings;
import dev.dptext.spark.DpText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.ml.param.Param;

/**
 * The registry of mechanisms and settings, and the ML stage's Params, as JSON: what the Python package
 * builds its docstrings, column functions and the twin of {@link DpTextSanitizer} from, so that no
 * guarantee text, default or doc is copied by hand. The Python build writes it into the package
 * ({@code java -cp … dev.dptext.spark.ml.RegistryJson}); a Python test compares it with the running JVM's.
 */
public final class RegistryJson {
  private RegistryJson() {}

  public static void main(String[] args) {
    System.out.println(json());
  }

  /** Mechanisms (name, summary, guarantee, parameters, example), settings and Params, in documentation order. */
  public static String json() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("defaultMechanism", Mechanisms.DEFAULT);
    root.put("sqlFunction", DpText.SQL_FUNCTION);
    root.put("mechanisms", mechanisms());
    root.put("settings", settings());
    root.put("mlStage", mlStage());
    try {
      return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(root);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Map<String, Object>> mechanisms() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (MechanismDefinition d : Mechanisms.ALL) {
      List<Map<String, Object>> params = new ArrayList<>();
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", p.name());
        m.put("required", p.required());
        m.put("default", p.required() ? null : defaultText(p));
        params.add(m);
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", d.name());
      m.put("summary", d.summary());
      m.put("aliases", d.aliases());
      m.put("guarantee", d.guarantee());
      m.put("parameters", params);
      // Every parameter away from its default: the Python engine's tests run each mechanism so.
      m.put("example", d.example());
      out.add(m);
    }
    return out;
  }

  private static <T> String defaultText(MechanismDefinition.Parameter<T> p) {
    return p.setting().format(p.defaultValue());
  }

  private static List<Map<String, Object>> settings() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Setting<?> s : Settings.ALL) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", s.name());
      m.put("confKey", s.confKey());
      m.put("kind", s.type().kind().name());
      m.put("default", s.defaultValue().isPresent() ? s.defaultText() : null);
      m.put("defaultDoc", s.defaultText());
      m.put("expected", s.expected());
      m.put("doc", Settings.doc(s));
      m.put("secret", s.secret());
      // What Python checks a value with before a query runs (null: only the JVM can check it).
      m.put("check", s.rule().orElse(null));
      m.put("choices", s.type().choices());
      m.put("hint", s.hint());
      out.add(m);
    }
    return out;
  }

  /** The JVM stage's Params: name, doc and the Param class (which tells Python how to convert values). */
  private static Map<String, Object> mlStage() {
    DpTextSanitizer stage = new DpTextSanitizer("registry");
    List<Map<String, Object>> params = new ArrayList<>();
    for (Param<?> p : stage.params()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", p.name());
      m.put("doc", p.doc());
      m.put("type", p.getClass().getSimpleName());
      params.add(m);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("javaClass", DpTextSanitizer.class.getName());
    m.put("params", params);
    return m;
  }
}
