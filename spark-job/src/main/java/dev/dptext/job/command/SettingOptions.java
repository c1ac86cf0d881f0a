package dev.dptext.job.command;

import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.job.base.ExitCode;
import dev.dptext.job.base.JobException;
import dev.dptext.mechanism.MechanismDefinition;
import dev.dptext.mechanism.Mechanisms;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command-line options of the settings table ({@link Settings}): one {@code --kebab-name} per
 * setting, with the setting's doc and default, added to a command's spec before parsing. A command
 * that takes settings implements {@link Command}; {@link Commands#commandLine()} adds its options.
 */
final class SettingOptions {
  private SettingOptions() {}

  /** A command that takes settings from the table. */
  interface Command {
    /** The settings it takes, as options. */
    List<Setting<?>> settings();
  }

  /** Adds one option per setting to {@code spec}. */
  static void addTo(CommandSpec spec, List<Setting<?>> settings) {
    for (Setting<?> s : settings) {
      boolean flag = s.type().kind() == ValueType.Kind.BOOLEAN;
      OptionSpec.Builder o = OptionSpec.builder(s.cliName())
          .type(flag ? boolean.class : String.class)
          .paramLabel(s.label())
          .description(Settings.doc(s) + (s.defaultValue().isPresent() && !flag ? " Default: ${DEFAULT-VALUE}." : ""));
      s.defaultValue().ifPresent(v -> o.defaultValue(s.defaultText()));
      spec.addOption(o.build());
    }
    if (settings.contains(Settings.MECHANISM)) {
      spec.usageMessage().footerHeading("%nMechanisms (" + Settings.MECHANISM.cliName() + ") and their guarantees:%n")
          .footer(mechanisms());
    }
  }

  /** One help line per mechanism of the registry: its parameters with defaults, then its guarantee. */
  private static String[] mechanisms() {
    List<String> lines = new java.util.ArrayList<>();
    for (MechanismDefinition d : Mechanisms.ALL) {
      List<String> params = new java.util.ArrayList<>();
      for (MechanismDefinition.Parameter<?> p : d.parameters()) {
        params.add(p.name() + (p.required() ? " (required)" : "=" + format(p)));
      }
      // Help lines are format strings: a literal % must be doubled.
      lines.add(("  " + d.name() + " (" + String.join(", ", params) + "): " + d.guarantee() + ".").replace("%", "%%"));
    }
    return lines.toArray(new String[0]);
  }

  private static <T> String format(MechanismDefinition.Parameter<T> p) {
    return p.setting().format(p.defaultValue());
  }

  /**
   * The options' values as settings, each parsed and checked by its setting.
   *
   * @throws JobException (usage) naming the option and the fix
   */
  static DpTextOptions read(CommandSpec spec, List<Setting<?>> settings) {
    DpTextOptions options = DpTextOptions.defaults();
    try {
      for (Setting<?> s : settings) {
        Object value = spec.findOption(s.cliName()).getValue();
        if (value != null) {
          options = options.withText(s, value.toString());
        }
      }
      options.mechanismSpec();
      options.checkNearestSearch(); // e.g. hnsw with santext: a usage error, before anything is read
    } catch (IllegalArgumentException e) {
      throw JobException.wrap(ExitCode.USAGE, e);
    }
    return options;
  }
}
