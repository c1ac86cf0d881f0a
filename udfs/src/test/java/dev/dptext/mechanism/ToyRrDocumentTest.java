package dev.dptext.mechanism;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/adding-a-mechanism.md shows the toy mechanism's whole diff: each of its files, named on the line
 * before a fenced block, is the block's content exactly, so the document cannot drift from the code the
 * tests run.
 */
class ToyRrDocumentTest {
  private static final Path DOCUMENT = Path.of("../docs/adding-a-mechanism.md");
  /** `path`: then a blank line and a fenced block, whose content is the file's. */
  private static final Pattern SHOWN_FILE =
      Pattern.compile("^`(udfs/[^`\\n]+)`:\\n\\n```[a-z]*\\n(.*?)^```$", Pattern.MULTILINE | Pattern.DOTALL);

  @Test
  void theDocumentShowsEachOfTheToysFilesAsItIs() throws Exception {
    Matcher m = SHOWN_FILE.matcher(Files.readString(DOCUMENT));
    List<String> shown = new ArrayList<>();
    while (m.find()) {
      shown.add(m.group(1));
      assertEquals(Files.readString(Path.of("..", m.group(1))), m.group(2),
          m.group(1) + " differs from what docs/adding-a-mechanism.md shows of it");
    }
    assertEquals(List.of("udfs/src/test/java/dev/dptext/mechanism/ToyRr.java",
        "udfs/src/test/java/dev/dptext/mechanism/ToyRrDistributionTest.java",
        "udfs/src/test/toy-mechanism/META-INF/services/dev.dptext.mechanism.MechanismProvider"), shown);
  }
}
