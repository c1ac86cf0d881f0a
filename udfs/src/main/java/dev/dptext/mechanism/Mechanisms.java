package dev.dptext.mechanism;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The registry of mechanisms: every surface lists, parses and documents mechanisms from here. A new
 * mechanism is a {@link WordMechanism} with its {@link MechanismDefinition}, added to {@link #ALL}.
 */
public final class Mechanisms {
  private Mechanisms() {}

  /** Every mechanism, in the order documentation lists them. */
  public static final List<MechanismDefinition> ALL = List.of(
      SanText.DEFINITION,
      SanTextPlus.DEFINITION,
      LaplaceMechanism.DEFINITION,
      MahalanobisMechanism.DEFINITION,
      VickreyMechanism.DEFINITION,
      VickreyMechanism.TOP_K_DEFINITION,
      BrrMechanism.DEFINITION,
      TruncatedExponentialMechanism.DEFINITION,
      CusText.DEFINITION,
      CusText.PLUS_DEFINITION,
      Diffractor.DEFINITION);

  /**
   * The default mechanism on every surface: SanText, whose ε·d guarantee covers every vocabulary word
   * alike. SanText+ (faster, more useful text) emits a frequent word verbatim with probability 1 − p,
   * which a careful user should choose knowingly, not inherit.
   */
  public static final String DEFAULT = SanText.DEFINITION.name();

  /** The mechanism setting, checked against this registry. */
  public static final Setting<String> MECHANISM = Setting.define("mechanism")
      .doc("The mechanism: " + String.join(", ", names()) + ". Each one's parameters and guarantee are listed "
          + "with it (docs/mechanisms.md, DESCRIBE FUNCTION, the job's --help).")
      .createWithDefault(ValueType.choice(names(), Mechanisms::isKnown, n -> get(n).name()),
          Check.any(), DEFAULT);

  /** The canonical names. */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    ALL.forEach(d -> names.add(d.name()));
    return names;
  }

  private static boolean isKnown(String text) {
    return ALL.stream().anyMatch(d -> d.isNamed(text));
  }

  /** The mechanism named {@code text} (or one of its aliases); an unknown name lists the known ones. */
  public static MechanismDefinition get(String text) {
    String t = text == null ? "" : text;
    for (MechanismDefinition d : ALL) {
      if (d.isNamed(t)) {
        return d;
      }
    }
    throw Check.failure("mechanism", "one of " + String.join(", ", names()), text, null);
  }

  /**
   * Every mechanism parameter, each once, in order of first use (ε first). Mechanisms sharing a
   * parameter name share its setting: one name, one range, one doc.
   */
  public static List<Setting<?>> parameters() {
    Map<String, Setting<?>> byName = new LinkedHashMap<>();
    for (MechanismDefinition d : ALL) {
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        Setting<?> previous = byName.putIfAbsent(p.name(), p.setting());
        if (previous != null && previous != p.setting()) {
          throw new IllegalStateException("Two settings are named '" + p.name() + "' (" + d.name()
              + "); mechanisms that share a parameter must share its Setting");
        }
      }
    }
    return List.copyOf(byName.values());
  }

  /** The mechanisms using {@code parameter}, with their defaults: {@code mahalanobis 0.5, vickrey 0.0}. */
  public static String usage(Setting<?> parameter) {
    List<String> uses = new ArrayList<>();
    java.util.Set<String> defaults = new java.util.HashSet<>();
    for (MechanismDefinition d : ALL) {
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        if (p.setting() == parameter) {
          uses.add(d.name() + (p.required() ? " (required)" : " " + format(p)));
          defaults.add(p.required() ? "" : format(p));
        }
      }
    }
    if (uses.size() == ALL.size() && defaults.size() == 1 && !defaults.contains("")) {
      return "every mechanism " + defaults.iterator().next();
    }
    return String.join(", ", uses);
  }

  private static <T> String format(MechanismDefinition.Parameter<T> p) {
    return p.setting().format(p.defaultValue());
  }
}
