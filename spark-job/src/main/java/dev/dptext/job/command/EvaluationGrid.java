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
   * @param mechanisms how the help names {@code --mechanisms}' default, {@link EvaluationGrid#defaultMechanisms()}
   */
  record Defaults(String epsilons, String mechanisms) {}

  private static final String EPSILONS = "dptext.grid.epsilons";
  private static final String MECHANISMS = "dptext.grid.mechanisms";

  @Option(names = "--mechanisms", paramLabel = "SPEC", split = " ",
      description = "Space-separated mechanisms, name[:param=value,...]. Default: ${bundle:" + MECHANISMS + "}.")
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

  /** The values the default mechanisms give required parameters (a constant: option descriptions quote it). */
  static final String REQUIRED_DEFAULTS = "vickrey-topk:t=0;0.5;1 custext+:verbatim=a;an;the;of;to;and;in;is;it;that";

  /**
   * Every registered mechanism with its defaults; a required parameter gets the value of
   * {@link #REQUIRED_DEFAULTS} (custext+: ten English function words kept verbatim, a short stand-in for the
   * paper's stop-word list).
   */
  static List<String> defaultMechanisms() {
    Map<String, String> required = new LinkedHashMap<>();
    for (String spec : REQUIRED_DEFAULTS.split(" ")) {
      required.put(spec.substring(0, spec.indexOf(':')), spec);
    }
    List<String> out = new ArrayList<>();
    for (String name : Mechanisms.names()) {
      out.add(required.getOrDefault(name, name));
    }
    return out;
  }

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
