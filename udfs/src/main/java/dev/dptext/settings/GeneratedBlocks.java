package dev.dptext.settings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The documents' generated blocks: text between {@code <!-- generated:NAME:begin -->} and
 * {@code <!-- generated:NAME:end -->}, each produced from the one table it documents (the settings, the
 * mechanism registry, the error catalogue). {@link #regenerate} rewrites every block of a text; {@code main}
 * rewrites files in place ({@code scripts/regenerate-docs.sh}), and {@code SettingsParityTest} fails when a
 * committed document differs from its regenerated self — after adding a setting, a mechanism or an error, one
 * command.
 */
public final class GeneratedBlocks {
  /**
   * The documents that hold generated blocks, relative to the repository root: the mechanisms table in
   * docs/mechanisms.md, the settings table in docs/settings.md, the mechanisms with a partitioned form in
   * docs/models.md, the error catalogue in docs/errors.md. What {@code main} rewrites by default;
   * {@code SettingsParityTest} checks each of them, and that no other document has a block.
   */
  public static final List<String> DOCUMENTS =
      List.of("docs/mechanisms.md", "docs/settings.md", "docs/models.md", "docs/errors.md");

  /** Block name → its content, in the order the blocks are documented. */
  static final Map<String, Supplier<String>> BLOCKS = new LinkedHashMap<>();

  static {
    BLOCKS.put("mechanisms", Settings::mechanismsMarkdownTable);
    BLOCKS.put("settings", Settings::markdownTable);
    BLOCKS.put("partitioned-mechanisms", Settings::partitionedMechanisms);
    BLOCKS.put("errors", dev.dptext.errors.DpTextErrors::markdownTable);
  }

  private GeneratedBlocks() {}

  /** {@code text} with the content of every generated block it has replaced by the current one. */
  public static String regenerate(String text) {
    String out = text;
    for (Map.Entry<String, Supplier<String>> block : BLOCKS.entrySet()) {
      String begin = "<!-- generated:" + block.getKey() + ":begin -->";
      String end = "<!-- generated:" + block.getKey() + ":end -->";
      int b = out.indexOf(begin);
      int e = out.indexOf(end);
      if (b < 0 && e < 0) {
        continue;
      }
      if (b < 0 || e < b) {
        // Only dptext's own documents have generated blocks (a maintainer's tool): a broken one is a bug there.
        throw new IllegalStateException("A generated block '" + block.getKey() + "' is not closed: it needs "
            + begin + " before " + end);
      }
      out = out.substring(0, b + begin.length()) + "\n" + block.getValue().get().strip() + "\n" + out.substring(e);
    }
    return out;
  }

  /** Rewrites each file named in {@code args} ({@link #DOCUMENTS} by default) with its blocks regenerated. */
  public static void main(String[] args) throws IOException {
    String[] files = args.length == 0 ? DOCUMENTS.toArray(new String[0]) : args;
    for (String f : files) {
      Path path = Path.of(f);
      String before = Files.readString(path, StandardCharsets.UTF_8);
      String after = regenerate(before);
      if (!after.equals(before)) {
        Files.writeString(path, after, StandardCharsets.UTF_8);
        System.out.println("regenerated " + f);
      } else {
        System.out.println("up to date: " + f);
      }
    }
  }
}
