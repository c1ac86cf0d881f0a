package dev.dptext.job;

import dev.dptext.config.Setting;
import dev.dptext.config.ValueType;
import dev.dptext.spark.DpTextOptions;
import dev.dptext.spark.Settings;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command-line options of the settings table ({@link Settings}): one {@code --kebab-name} per
 * setting, with the setting's doc and default, added to a command's spec before parsing. A command
 * that takes settings implements {@link Command}; {@link DpTextJob#commandLine()} adds its options.
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
          .paramLabel(s.symbol().equals(s.name()) ? s.name().toUpperCase(Locale.ROOT) : s.symbol())
          .description(Settings.doc(s) + (s.defaultValue().isPresent() && !flag ? " Default: ${DEFAULT-VALUE}." : ""));
      s.defaultValue().ifPresent(v -> o.defaultValue(s.defaultText()));
      spec.addOption(o.build());
    }
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
    } catch (IllegalArgumentException e) {
      throw new JobException(ExitCode.USAGE, e.getMessage());
    }
    return options;
  }
}
