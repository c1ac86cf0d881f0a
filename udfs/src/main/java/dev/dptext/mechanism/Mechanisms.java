package dev.dptext.mechanism;

import dev.dptext.config.Check;
import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The registry of mechanisms: every surface lists, parses and documents mechanisms from here. A new
 * mechanism is a {@link WordMechanism} with its {@link MechanismDefinition}, added to {@link #BUILT_IN},
 * or, from outside dptext, named by a {@link MechanismProvider}.
 */
public final class Mechanisms {
  private Mechanisms() {}

  /** The mechanisms dptext ships, in the order documentation lists them. */
  public static final List<MechanismDefinition> BUILT_IN = List.of(
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
   * Every mechanism: {@link #BUILT_IN}, then those of the {@link MechanismProvider}s on dptext's class
   * loader sorted by name. Read once, when this class is initialised.
   */
  public static final List<MechanismDefinition> ALL = registry(BUILT_IN,
      ServiceLoader.load(MechanismProvider.class, Mechanisms.class.getClassLoader()));

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

  /**
   * {@code builtIn}, then the providers' definitions sorted by name. A name or alias claimed twice is
   * refused, naming both claimants (else {@link #get} would pick whichever came first, silently), and so is
   * one that {@link #get} could never match (upper case, '_').
   */
  static List<MechanismDefinition> registry(List<MechanismDefinition> builtIn, Iterable<MechanismProvider> providers) {
    List<Claimant> all = new ArrayList<>();
    builtIn.forEach(d -> all.add(new Claimant(d, "built in")));
    List<Claimant> provided = new ArrayList<>();
    for (MechanismProvider p : providers) {
      provided.add(new Claimant(p.definition(), "from " + p.getClass().getName()));
    }
    provided.sort(Comparator.comparing(c -> c.definition().name()));
    all.addAll(provided);
    Map<String, Claimant> claims = new HashMap<>();
    List<MechanismDefinition> out = new ArrayList<>();
    for (Claimant c : all) {
      MechanismDefinition d = c.definition();
      List<String> spellings = new ArrayList<>(List.of(d.name()));
      spellings.addAll(d.aliases());
      for (String spelling : spellings) {
        if (!d.isNamed(spelling)) {
          throw new IllegalStateException("Mechanism " + c + " has the name '" + spelling + "', which no setting "
              + "could select: names are lower case, with '-' for '_' and no space around");
        }
        Claimant first = claims.putIfAbsent(spelling, c);
        if (first != null) {
          throw new IllegalStateException("Two mechanisms claim the name '" + spelling + "': " + first + " and " + c
              + "; rename one, or remove its provider from META-INF/services/" + MechanismProvider.class.getName());
        }
      }
      out.add(d);
    }
    return List.copyOf(out);
  }

  /** A definition and where it came from, for the registry's errors. */
  private record Claimant(MechanismDefinition definition, String origin) {
    @Override
    public String toString() {
      return definition.name() + " (" + origin + ")";
    }
  }

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
