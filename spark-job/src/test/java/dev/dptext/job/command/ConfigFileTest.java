package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.testing.ErrorAssertions;
import dev.dptext.job.base.JobException;
import dev.dptext.job.testing.JobFixtures;
import dev.dptext.job.testing.JobFixtures.Run;
import dev.dptext.job.testing.SharedSpark;
import dev.dptext.settings.DpTextOptions;
import dev.dptext.settings.Settings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code --config FILE} on every command, by the rules sanitize's always had: a value only in the file takes
 * effect (a required option too), the command line overrides it, an unknown key is refused naming it. The
 * parse is checked for each command (what the command then reads); sanitize's and calibrate's runs, end to end.
 */
class ConfigFileTest {
  @TempDir static Path tmp;

  /**
   * Per command: its words, the arguments a run needs that the cases below do not give, one of its own
   * options with a value for the file and another for the command line.
   */
  static Stream<Arguments> commands() {
    return Stream.of(
        Arguments.of("sanitize", List.of("--output", "o"), "input", "from-file", "from-line"),
        Arguments.of("build-model", List.of(), "output", "m1.dptext", "m2.dptext"),
        Arguments.of("privacy-stats", List.of(), "words", "40", "50"),
        Arguments.of("calibrate", List.of("--epsilon-a", "1", "--mechanism-b", "brr"), "mechanism-a", "laplace",
            "mahalanobis"),
        Arguments.of("evaluate utility", List.of("--input", "x.jsonl"), "output", "report-1", "report-2"),
        Arguments.of("evaluate mia", List.of("--input", "x.jsonl", "--output", "r"), "shadows", "3", "4"),
        Arguments.of("tune", List.of("--uniform-prior"), "max-utility-loss", "0.2", "0.3"),
        Arguments.of("ledger", List.of(), "ledger", "main.dptext.ledger", "other.ledger"));
  }

  /** Every command of the job has the option: {@link #commands()} misses none. */
  @Test
  void everyCommandTakesAConfigFile() {
    List<String> all = new ArrayList<>();
    for (var e : Commands.commandLine().getSubcommands().entrySet()) {
      if (e.getValue().getSubcommands().isEmpty()) {
        all.add(e.getKey());
      }
      e.getValue().getSubcommands().keySet().forEach(s -> all.add(e.getKey() + " " + s));
    }
    assertEquals(all, commands().map(a -> (String) a.get()[0]).toList());
    for (String command : all) {
      assertNotNull(leaf(Commands.commandLine(command.split(" ")), command).getCommandSpec().findOption("--config"),
          command);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void aValueOnlyInTheFileTakesEffectAndTheCommandLineWins(String command, List<String> rest, String key,
      String inFile, String onLine) throws IOException {
    Path conf = write(command, key + " = " + inFile + "\nneighbours = 16\n");
    if (command.equals("ledger")) {
      conf = write(command, key + " = " + inFile + "\nsource = tickets\n");
    }
    CommandSpec fromFile = parse(command, rest, "--config", conf.toString());
    assertEquals(inFile, String.valueOf((Object) fromFile.findOption("--" + key).getValue()), command);
    if (fromFile.findOption("--neighbours") != null) {
      // A setting of the table, as the command reads it.
      DpTextOptions options = SettingOptions.read(fromFile,
          ((SettingOptions.Command) fromFile.userObject()).settings());
      assertEquals(16, options.get(Settings.NEIGHBOURS), command);
    } else {
      assertEquals("tickets", fromFile.findOption("--source").getValue());
    }
    CommandSpec overridden = parse(command, rest, "--" + key, onLine, "-c", conf.toString());
    assertEquals(onLine, String.valueOf((Object) overridden.findOption("--" + key).getValue()), command);
    CommandSpec equalsForm = parse(command, rest, "--config=" + conf, "--" + key + "=" + onLine);
    assertEquals(onLine, String.valueOf((Object) equalsForm.findOption("--" + key).getValue()), command);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void anUnknownKeyIsRefusedNamingItAndTheFix(String command, List<String> rest, String key, String inFile,
      String onLine) throws IOException {
    String typo = key + "s";
    Path conf = write(command, key + " = " + inFile + "\n" + typo + " = " + inFile + "\n");
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(List.of("--config", conf.toString()));
    Run r = JobFixtures.run(args.toArray(new String[0]));
    assertEquals(2, r.exitCode(), r.err());
    ErrorAssertions.assertErrorText(r.err(), "CONFIG_UNKNOWN_KEYS");
    assertTrue(r.err().contains("Unknown key(s) [" + typo + "] in configuration file " + conf), r.err());
    assertTrue(r.err().contains("not options of '" + command + "'"), r.err());
    assertTrue(r.err().contains(typo + ": did you mean " + key + "?"), r.err());
    assertTrue(r.err().contains("the valid keys are") && r.err().contains(key), r.err());
  }

  /** A key nothing is near still gets the list of valid keys; a key with an option's dashes gets the hint. */
  @Test
  void unknownKeysFarFromAnyOptionAndWithDashes() throws IOException {
    Path conf = write("far", "colour = blue\n--trials = 3\n");
    CommandLine cli = Commands.commandLine("evaluate", "utility");
    JobException e = org.junit.jupiter.api.Assertions.assertThrows(JobException.class,
        () -> Commands.applyConfigFile(cli, new String[] {"evaluate", "utility", "--config", conf.toString()}));
    ErrorAssertions.assertError(e, "CONFIG_UNKNOWN_KEYS");
    assertEquals("[--trials, colour]", e.parameters().get("keys"));
    assertTrue(e.getMessage().contains("--trials: did you mean trials?") && !e.getMessage().contains("colour: did"),
        e.getMessage());
    assertTrue(e.getMessage().contains("trials, vocab-size]"), e.getMessage());
  }

  /** sanitize end to end: DpTextJobTest.configFileWithOverridesAndUnknownKeys. calibrate, from the file alone. */
  @Test
  void calibrateRunsFromTheFile() throws IOException {
    SharedSpark.get();
    Path glove = JobFixtures.gloveFile(tmp, 600);
    Path conf = write("calibrate-run", String.join("\n", "model = " + glove, "vocab-size = 300",
        "mechanism-a = laplace", "epsilon-a = 10", "mechanism-b = brr:bits=64", "sample-pairs = 2000", ""));
    Run r = JobFixtures.run("calibrate", "--config", conf.toString());
    assertEquals(0, r.exitCode(), r.err());
    assertTrue(r.out().contains("300 words") && r.out().contains("2,000 uniform ordered pairs")
        && r.out().contains("Hamming (64 bits) metric"), r.out());
    Run overridden = JobFixtures.run("calibrate", "--config", conf.toString(), "--sample-pairs", "3000");
    assertEquals(0, overridden.exitCode(), overridden.err());
    assertTrue(overridden.out().contains("3,000 uniform ordered pairs"), overridden.out());
  }

  private static Path write(String name, String text) throws IOException {
    Path conf = Files.createTempFile(tmp, name.replace(' ', '-'), ".properties");
    Files.writeString(conf, text);
    return conf;
  }

  /** The spec of {@code command} after parsing its words, {@code options} and {@code rest}, as the job does. */
  private static CommandSpec parse(String command, List<String> rest, String... options) {
    List<String> args = new ArrayList<>(List.of(command.split(" ")));
    args.addAll(List.of(options));
    args.addAll(rest);
    String[] a = args.toArray(new String[0]);
    CommandLine cli = Commands.commandLine(a);
    Commands.applyConfigFile(cli, a);
    ParseResult r = cli.parseArgs(a);
    while (r.hasSubcommand()) {
      r = r.subcommand();
    }
    return r.commandSpec();
  }

  private static CommandLine leaf(CommandLine cli, String command) {
    for (String part : command.split(" ")) {
      cli = cli.getSubcommands().get(part);
    }
    return cli;
  }
}
