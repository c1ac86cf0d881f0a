package dev.dptext.job.command;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every option of every command is in a page a user reads (README.md or docs/): an option added to a
 * command without a word in the documentation fails the build. (The help text is generated from the
 * same declarations; this checks the pages, which are written by hand.)
 */
class OptionsDocumentedTest {
  private static final Path ROOT = Path.of(System.getProperty("maven.multiModuleProjectDirectory", ".."));

  @Test
  void everyCommandLineOptionIsInADocPage() throws IOException {
    StringBuilder pages = new StringBuilder(Files.readString(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      for (Path p : docs.filter(p -> p.toString().endsWith(".md") && !p.getFileName().toString()
          .equals("benchmarks-history.md")).toList()) {
        pages.append('\n').append(Files.readString(p));
      }
    }
    String text = pages.toString();
    TreeSet<String> missing = new TreeSet<>();
    List<CommandLine> commands = new ArrayList<>();
    collect(Commands.commandLine(), commands);
    for (CommandLine c : commands) {
      for (OptionSpec o : c.getCommandSpec().options()) {
        if (o.usageHelp() || o.versionHelp() || o.hidden()) {
          continue;
        }
        String name = o.longestName();
        // The name as a whole word: --model must not be found inside --model-layout.
        if (!Pattern.compile(Pattern.quote(name) + "(?![A-Za-z0-9-])").matcher(text).find()) {
          missing.add(c.getCommandSpec().qualifiedName(" ").replaceFirst("^\\S+ ", "") + " " + name);
        }
      }
    }
    assertEquals(new TreeSet<String>(), missing, "options in no doc page (README.md, docs/*.md)");
  }

  private static void collect(CommandLine c, List<CommandLine> out) {
    out.add(c);
    c.getSubcommands().values().forEach(s -> collect(s, out));
  }
}
