package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.config.Setting;
import dev.dptext.job.base.Version;
import dev.dptext.job.run.RunSummary;
import dev.dptext.settings.Settings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** The job's options agree with the settings table: every setting an option, same name and default. */
class CommandLineParityTest {

  @Test
  void everySettingIsAnOptionWithTheTablesNameDefaultAndDoc() {
    Map<String, List<Setting<?>>> expected = Map.of(
        "sanitize", Settings.options(),
        "build-model", BuildModelCommand.BUILD_SETTINGS,
        "privacy-stats", Settings.MODEL_SETTINGS,
        "calibrate", Settings.MODEL_SETTINGS,
        "evaluate", List.of(),
        "tune", Settings.MODEL_SETTINGS,
        "evaluate utility", Settings.MODEL_SETTINGS,
        "evaluate mia", Settings.MODEL_SETTINGS,
        "ledger", List.of());
    CommandLine cli = Commands.commandLine();
    java.util.Set<String> commands = new java.util.HashSet<>(cli.getSubcommands().keySet());
    cli.getSubcommands().get("evaluate").getSubcommands().keySet().forEach(s -> commands.add("evaluate " + s));
    assertEquals(expected.keySet(), commands, "every command is checked");
    expected.forEach((command, settings) -> {
      CommandLine c = cli;
      for (String part : command.split(" ")) {
        c = c.getSubcommands().get(part);
      }
      var spec = c.getCommandSpec();
      for (Setting<?> s : settings) {
        OptionSpec o = spec.findOption(s.cliName());
        assertNotNull(o, command + " has no " + s.cliName());
        assertEquals(s.defaultValue().isPresent() ? s.defaultText() : null, o.defaultValue(), command + " " + s.cliName());
        assertTrue(String.join(" ", o.description()).startsWith(Settings.doc(s)), command + " " + s.cliName());
      }
    });
    var sanitize = cli.getSubcommands().get("sanitize").getCommandSpec();
    assertNull(sanitize.findOption("--secret-key"), "the key itself is never an option");
    String help = cli.getSubcommands().get("sanitize").getUsageMessage().replaceAll("\\s+", " ");
    for (var d : dev.dptext.mechanism.Mechanisms.ALL) {
      assertTrue(help.contains(d.name() + " (") && help.contains(d.guarantee()), "sanitize --help misses " + d.name());
    }
  }

  @Test
  void helpNamesEveryCommand() {
    java.io.StringWriter out = new java.io.StringWriter();
    CommandLine cli = Commands.commandLine();
    cli.setOut(new java.io.PrintWriter(out));
    cli.execute("--help");
    for (String command : cli.getSubcommands().keySet()) {
      assertTrue(out.toString().contains(command), "--help misses " + command + ":\n" + out);
    }
  }

  /**
   * A run builds only the command it names (start-up time), with the same options as in the full
   * command line; anything else (help, version, a typo) gets every command.
   */
  @Test
  void aRunBuildsOnlyItsCommand() {
    CommandLine sanitize = Commands.commandLine("sanitize", "--input", "x");
    assertEquals(java.util.Set.of("sanitize"), sanitize.getSubcommands().keySet());
    var full = Commands.commandLine().getSubcommands().get("sanitize").getCommandSpec();
    var alone = sanitize.getSubcommands().get("sanitize").getCommandSpec();
    assertEquals(full.options().stream().map(OptionSpec::longestName).toList(),
        alone.options().stream().map(OptionSpec::longestName).toList());
    for (String[] other : new String[][] {{}, {"--help"}, {"--version"}, {"sanitise"}}) {
      assertEquals(Commands.ALL.size(), Commands.commandLine(other).getSubcommands().size(), String.join(" ", other));
    }
    assertEquals(List.of("sanitize", "build-model", "privacy-stats", "calibrate", "evaluate", "tune", "ledger"),
        List.copyOf(Commands.commandLine().getSubcommands().keySet()), "the help lists the commands in this order");
  }

  @Test
  void theVersionIsThePomsEverywhere() throws Exception {
    String pom = java.nio.file.Files.readString(java.nio.file.Path.of("..", "pom.xml"));
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(
        "<artifactId>dptext-parent</artifactId>\\s*<version>([^<]+)</version>").matcher(pom);
    assertTrue(m.find(), "the parent pom's version");
    assertEquals(m.group(1), Version.VALUE);
    assertEquals(Version.VALUE, RunSummary.VERSION);
    java.io.StringWriter printed = new java.io.StringWriter();
    CommandLine cli = Commands.commandLine("--version");
    cli.setOut(new java.io.PrintWriter(printed));
    cli.execute("--version");
    assertEquals("dptext " + m.group(1), printed.toString().strip());
  }
}
