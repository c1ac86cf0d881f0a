package dev.dptext.job.command;

import dev.dptext.job.evaluate.EpsilonGrid;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.Mechanisms;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListResourceBundle;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/**
 * The grid an evaluation runs: which mechanisms ({@code --mechanisms}) at which ε ({@code --epsilons},
 * {@link EpsilonGrid}). Mixed into {@code evaluate utility} and {@code evaluate mia}: the options are the
 * same in both, their defaults are each command's own ({@link Host#gridDefaults}), which
 * {@link Commands} gives the command's spec when it builds the command line (picocli reads them as
 * {@code ${bundle:…}} variables).
 */
final class EvaluationGrid {
  /** A command that mixes the grid in. */
  interface Host {
    /** The grid's defaults in this command. */
    Defaults gridDefaults();
  }

  /**
   * A command's defaults of the grid.
   *
   * @param epsilons {@code --epsilons}' default
   * @param mechanisms how the help names {@code --mechanisms}' default ({@link #defaultMechanismsText()} where it is
   *     {@link EvaluationGrid#defaultMechanisms()})
   */
  record Defaults(String epsilons, String mechanisms) {}

  private static final String EPSILONS = "dptext.grid.epsilons";
  private static final String MECHANISMS = "dptext.grid.mechanisms";

  @Option(names = "--mechanisms", paramLabel = "SPEC", split = " ",
      description = "Space-separated mechanisms, name[:param=value,...]. Default: " + DEFAULT_MECHANISMS + ".")
  List<String> mechanisms;

  @Option(names = "--epsilons", paramLabel = "GRID", defaultValue = "${bundle:" + EPSILONS + "}",
      description = "The ε grid(s). " + EpsilonGrid.SYNTAX + " Default: ${DEFAULT-VALUE}.")
  List<String> epsilons;

  /** The ε grid(s) of {@code --epsilons}; a bad entry is a usage error. */
  EpsilonGrid grid() {
    return EpsilonGrid.parse(epsilons);
  }

  /** The mechanisms to run on {@code grid}: {@code --mechanisms}, else {@link #defaultMechanisms()}. */
  List<MechanismSpec> mechanisms(EpsilonGrid grid) {
    return grid.mechanisms(mechanisms, defaultMechanisms());
  }

  /**
   * Every registered mechanism as the evaluations run it by default: each one's {@link
   * dev.dptext.mechanism.MechanismDefinition#evaluationDefault()} (its defaults, and its own value for a required
   * parameter).
   */
  static List<String> defaultMechanisms() {
    List<String> out = new ArrayList<>();
    for (var d : Mechanisms.ALL) {
      out.add(d.evaluationDefault());
    }
    return out;
  }

  /** How a help text names {@link #defaultMechanisms()}: the mechanisms that need a value named with it. */
  static String defaultMechanismsText() {
    List<String> required = defaultMechanisms().stream().filter(s -> s.contains(":")).toList();
    return "every mechanism with its defaults" + (required.isEmpty() ? "" : ", " + String.join(" ", required));
  }

  /** The help's variable for {@link #defaultMechanismsText()} in a command that {@link Host hosts} the grid. */
  static final String DEFAULT_MECHANISMS = "${bundle:" + MECHANISMS + "}";

  /** Gives {@code spec}, a command that mixes the grid in, its defaults. */
  static void addDefaults(CommandSpec spec, Defaults defaults) {
    spec.resourceBundle(new ListResourceBundle() {
      @Override
      protected Object[][] getContents() {
        return new Object[][] {{EPSILONS, defaults.epsilons()}, {MECHANISMS, defaults.mechanisms()}};
      }
    });
  }
}
