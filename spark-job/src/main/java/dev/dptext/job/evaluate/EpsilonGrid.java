package dev.dptext.job.evaluate;

import dev.dptext.evaluation.DownstreamUtility;
import dev.dptext.evaluation.PrivacyMatching;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.model.DpTextModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * The ε grids of {@code evaluate utility} and {@code evaluate mia} ({@code --epsilons}): a shared grid on the
 * multivariate Laplace mechanism's scale, every mechanism matched to it by the privacy ratio (BRR §5), and
 * per-mechanism grids {@code NAME=ε,ε,...} at the mechanism's own ε, unmatched. Entries are separated by
 * {@code ;} or given as repeated options: {@code --epsilons 'santext=1,3;laplace=5,10'} or
 * {@code --epsilons 4,8 --epsilons santext=1,3}.
 *
 * @param shared the grid on Laplace's scale (empty: none)
 * @param own each named mechanism's own grid
 */
public record EpsilonGrid(List<Double> shared, Map<String, List<Double>> own) {
  /** What {@code --epsilons} says, for the option descriptions. */
  public static final String SYNTAX = "Entries separated by ';' (quote them for the shell) or given as repeated options: "
      + "a list ε,ε,... is a grid on the multivariate Laplace mechanism's scale, every mechanism without a grid of its "
      + "own matched to it by the privacy ratio (BRR §5); NAME=ε,ε,... runs mechanism NAME at its own ε, unmatched, "
      + "e.g. --epsilons 'santext=1,3;laplace=5,10' compares SanText ε 3 with Laplace ε 10 in one run. Without a "
      + "shared list only the named mechanisms run (unless --mechanisms lists them).";

  /** Parses the option's entries; a bad entry is a usage error that names it. */
  public static EpsilonGrid parse(List<String> entries) {
    List<Double> shared = new ArrayList<>();
    Map<String, List<Double>> own = new LinkedHashMap<>();
    for (String raw : entries) {
      for (String entry : raw.split(";")) {
        entry = entry.strip();
        if (entry.isEmpty()) {
          continue;
        }
        int eq = entry.indexOf('=');
        if (eq < 0) {
          shared.addAll(values(entry, entry));
        } else {
          String name = entry.substring(0, eq).strip().toLowerCase(java.util.Locale.ROOT);
          if (!Mechanisms.names().contains(name)) {
            throw JobException.of("EPSILONS_UNKNOWN_MECHANISM", "entry", entry, "mechanism", name, "mechanisms",
                Mechanisms.names());
          }
          own.computeIfAbsent(name, k -> new ArrayList<>()).addAll(values(entry.substring(eq + 1), entry));
        }
      }
    }
    if (shared.isEmpty() && own.isEmpty()) {
      throw JobException.of("EPSILONS_EMPTY");
    }
    return new EpsilonGrid(List.copyOf(shared), own);
  }

  private static List<Double> values(String list, String entry) {
    List<Double> out = new ArrayList<>();
    for (String v : list.split(",")) {
      double e;
      try {
        e = Double.parseDouble(v.strip());
      } catch (NumberFormatException ex) {
        throw JobException.of("EPSILONS_NOT_A_NUMBER", "entry", entry, "value", v.strip());
      }
      if (!(e > 0) || Double.isInfinite(e)) {
        throw JobException.of("EPSILONS_NOT_POSITIVE", "entry", entry, "value", v.strip());
      }
      out.add(e);
    }
    return out;
  }

  /**
   * The mechanisms to run: {@code listed} (from --mechanisms) if given, each of which needs a grid; else the
   * named ones when there is no shared grid, else every default mechanism plus any named one not among them.
   */
  public List<MechanismSpec> mechanisms(List<String> listed, List<String> defaults) {
    List<String> texts = new ArrayList<>();
    if (listed != null) {
      texts.addAll(listed);
    } else if (shared.isEmpty()) {
      for (String name : own.keySet()) {
        texts.add(defaults.stream().filter(d -> MechanismSpec.parse(d).name().equals(name)).findFirst().orElse(name));
      }
    } else {
      texts.addAll(defaults);
    }
    List<MechanismSpec> specs = new ArrayList<>();
    try {
      for (String t : texts) {
        specs.add(MechanismSpec.parse(t));
      }
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
    Set<String> names = new LinkedHashSet<>();
    specs.forEach(s -> names.add(s.name()));
    if (listed == null) {
      for (String name : own.keySet()) {
        if (!names.contains(name)) {
          specs.add(MechanismSpec.of(name));
        }
      }
    }
    if (shared.isEmpty()) {
      for (MechanismSpec s : specs) {
        if (!own.containsKey(s.name())) {
          throw JobException.of("EPSILONS_MISSING_GRID", "mechanism", s.name());
        }
      }
    }
    for (String name : own.keySet()) {
      if (specs.stream().noneMatch(s -> s.name().equals(name))) {
        throw JobException.of("EPSILONS_UNLISTED_MECHANISM", "mechanism", name);
      }
    }
    return specs;
  }

  /**
   * Each spec at each of its ε: matched to Laplace's scale on the shared grid, or at its own ε. A mechanism
   * whose metric puts some word pairs at infinite distance (CusText: nothing across its groups) has no
   * privacy ratio: on the shared grid it runs at the grid's ε values themselves, unmatched, and says so.
   */
  public List<DownstreamUtility.MatchedSpec> match(SparkSession spark, DpTextModel model, List<MechanismSpec> specs,
      long samplePairs, long seed) {
    List<MechanismSpec> unmatchable = specs.stream().filter(s -> !own.containsKey(s.name())
        && Double.isInfinite(s.metric(model).maximumUpperBound())).toList();
    for (MechanismSpec s : unmatchable) {
      System.out.println("dptext: " + s.name() + "'s metric puts some word pairs at infinite distance (its guarantee "
          + "says nothing between them), so no ε matches it by the privacy ratio: it runs at the shared grid's ε "
          + "values themselves, unmatched");
    }
    List<MechanismSpec> matched = specs.stream().filter(s -> !own.containsKey(s.name()) && !unmatchable.contains(s))
        .toList();
    Map<MechanismSpec, List<DownstreamUtility.MatchedSpec>> bySpec = new LinkedHashMap<>();
    if (!matched.isEmpty()) {
      for (DownstreamUtility.MatchedSpec m : PrivacyMatching.match(spark, model, MechanismSpec.of("laplace"), matched,
          shared.stream().mapToDouble(Double::doubleValue).toArray(), samplePairs, seed)) {
        bySpec.computeIfAbsent(key(matched, m.spec()), k -> new ArrayList<>()).add(m);
      }
    }
    List<DownstreamUtility.MatchedSpec> out = new ArrayList<>();
    for (MechanismSpec s : specs) {
      if (own.containsKey(s.name()) || unmatchable.contains(s)) {
        for (double e : own.containsKey(s.name()) ? own.get(s.name()) : shared) {
          out.add(new DownstreamUtility.MatchedSpec(e, s.with("epsilon", e)));
        }
      } else {
        out.addAll(bySpec.getOrDefault(s, List.of()));
      }
    }
    return out;
  }

  /** The spec of {@code specs} that {@code m} (the same spec at another ε) came from. */
  private static MechanismSpec key(List<MechanismSpec> specs, MechanismSpec m) {
    for (MechanismSpec s : specs) {
      if (s.with("epsilon", m.epsilon()).equals(m)) {
        return s;
      }
    }
    throw new IllegalStateException("no spec for " + m);
  }

  /** The x axis of a plot against the grids' ε. */
  public String axisLabel() {
    if (own.isEmpty()) {
      return "ε (multivariate Laplace scale; other mechanisms matched by the privacy ratio)";
    }
    String named = String.join(", ", own.keySet());
    return shared.isEmpty() ? "ε (each mechanism's own)"
        : "ε (Laplace scale, others matched by the privacy ratio; " + named + " at their own ε)";
  }
}
