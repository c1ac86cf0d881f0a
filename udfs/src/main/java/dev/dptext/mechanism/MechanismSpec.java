package dev.dptext.mechanism;

import dev.dptext.config.Setting;
import dev.dptext.embedding.WordMetric;
import dev.dptext.errors.DpTextErrors;
import dev.dptext.model.DpTextModel;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A mechanism and the values of all its parameters, complete (defaults filled in) and checked; equal
 * specs sanitize identically. {@link #build} turns it into a {@link WordMechanism} on the driver.
 *
 * <pre>{@code
 * MechanismSpec.of("mahalanobis", Map.of("epsilon", 10.0, "lambda", 0.2));
 * MechanismSpec.parse("vickrey-topk:epsilon=10,t=0;0.5;1");   // the form of --mechanisms
 * }</pre>
 */
public final class MechanismSpec implements Serializable {
  private static final long serialVersionUID = 2L;

  private final String name;
  /** Parameter name → value, in the definition's order. */
  private final Map<String, Object> values;

  private MechanismSpec(String name, Map<String, Object> values) {
    this.name = name;
    this.values = Collections.unmodifiableMap(values);
  }

  /**
   * The mechanism {@code name} (or an alias) with {@code given} parameter values (typed, or text as on
   * the command line); the others take the mechanism's defaults.
   *
   * @throws IllegalArgumentException for an unknown mechanism or parameter, a value out of range, a
   *     missing required parameter, or parameters that do not fit together
   */
  public static MechanismSpec of(String name, Map<String, ?> given) {
    MechanismDefinition d = Mechanisms.get(name);
    for (String k : given.keySet()) {
      if (d.parameters().stream().noneMatch(p -> p.name().equals(k))) {
        throw DpTextErrors.error("MECHANISM_PARAMETER_UNKNOWN", "mechanism", d.name(), "parameter", k, "parameters",
            parameterNames(d));
      }
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (MechanismDefinition.Parameter<?> p : d.parameters()) {
      Object v = given.get(p.name());
      if (v != null) {
        values.put(p.name(), p.setting().coerce(v));
      } else if (!p.required()) {
        values.put(p.name(), p.defaultValue());
      } else {
        throw DpTextErrors.error("MECHANISM_PARAMETER_REQUIRED", "mechanism", d.name(), "parameter", p.name(),
            "expected", p.setting().expected(), "doc", p.setting().doc());
      }
    }
    MechanismSpec spec = new MechanismSpec(d.name(), values);
    d.validate(spec);
    return spec;
  }

  /** The mechanism {@code name} with its defaults. */
  public static MechanismSpec of(String name) {
    return of(name, Map.of());
  }

  /**
   * Reads {@code name[:param=value,...]}, e.g. {@code mahalanobis:epsilon=10,lambda=0.5}; list values
   * are separated by ';' ({@code vickrey-topk:t=0;0.5;1}).
   */
  public static MechanismSpec parse(String text) {
    return parse(text, Map.of());
  }

  /**
   * Reads {@code name[:param=value,...]} with {@code defaults} for parameters the text does not give
   * (e.g. an ε from a separate list).
   */
  public static MechanismSpec parse(String text, Map<String, ?> defaults) {
    String[] parts = text.strip().split(":", 2);
    MechanismDefinition d = Mechanisms.get(parts[0]);
    Map<String, Object> given = new LinkedHashMap<>();
    defaults.forEach((k, v) -> {
      if (d.parameters().stream().anyMatch(p -> p.name().equals(k))) {
        given.put(k, v);
      }
    });
    if (parts.length > 1 && !parts[1].isBlank()) {
      for (String kv : parts[1].split(",")) {
        String[] e = kv.split("=", 2);
        if (e.length != 2 || e[0].isBlank()) {
          throw DpTextErrors.error("MECHANISM_SPEC_MALFORMED", "pair", kv, "spec", text, "example",
              d.name() + ":" + d.parameters().get(0).name() + "=3");
        }
        given.put(e[0].strip(), e[1].strip());
      }
    }
    return of(d.name(), given);
  }

  /** This spec with one parameter changed. */
  public MechanismSpec with(String parameter, Object value) {
    Map<String, Object> given = new LinkedHashMap<>(values);
    given.put(parameter, value);
    return of(name, given);
  }

  private static List<String> parameterNames(MechanismDefinition d) {
    List<String> names = new ArrayList<>();
    d.parameters().forEach(p -> names.add(p.name()));
    return names;
  }

  /** The canonical mechanism name. */
  public String name() {
    return name;
  }

  public MechanismDefinition definition() {
    return Mechanisms.get(name);
  }

  public double epsilon() {
    return get(MechanismDefinition.EPSILON);
  }

  /** The value of one of this mechanism's parameters. */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> parameter) {
    if (!values.containsKey(parameter.name())) {
      throw DpTextErrors.error("MECHANISM_PARAMETER_UNKNOWN", "mechanism", name, "parameter", parameter.name(),
          "parameters", parameterNames(definition()));
    }
    return (T) values.get(parameter.name());
  }

  /** Parameter name → value, complete, in the definition's order. */
  public Map<String, Object> values() {
    return values;
  }

  /** Builds the sampler (and any table or index it needs) on the driver. */
  public WordMechanism build(DpTextModel model) {
    definition().validate(this, model);
    return definition().build(this, model);
  }

  /** The metric of this mechanism's guarantee over the model's vocabulary. */
  public WordMetric metric(DpTextModel model) {
    definition().validate(this, model);
    return definition().metric(this, model);
  }

  /** The guarantee with these values, one sentence: ε, the metric, what is not covered. */
  public String guarantee() {
    return definition().guarantee(MechanismDefinition.Rendering.of(this)) + "; " + MechanismDefinition.NOT_COVERED;
  }

  /** The first rank of the output vocabulary this mechanism draws from. */
  public int outputStart(int vocabularySize) {
    return definition().outputStart(this, vocabularySize);
  }

  /** A one-line description for summaries and logs. */
  public String describe() {
    return definition().describe(this);
  }

  /** {@code name:param=value,...}, which {@link #parse} reads back to an equal spec. */
  public String toSpecString() {
    List<String> parts = new ArrayList<>();
    for (MechanismDefinition.Parameter<?> p : definition().parameters()) {
      parts.add(p.name() + "=" + format(p.setting()).replace(',', ';'));
    }
    return name + ":" + String.join(",", parts);
  }

  private <T> String format(Setting<T> s) {
    return s.format(get(s));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MechanismSpec s && s.name.equals(name) && s.values.equals(values);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + values.hashCode();
  }

  @Override
  public String toString() {
    return describe();
  }
}
