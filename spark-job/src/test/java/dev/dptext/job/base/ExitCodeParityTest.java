package dev.dptext.job.base;


import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The exit codes the Python package names (dptext.streaming.EXIT_CODES) are the job's, meaning for meaning. */
class ExitCodeParityTest {
  @Test
  void pythonNamesEveryExitCodeAsTheJobDoes() throws Exception {
    String python = Files.readString(Path.of("..", "python", "src", "dptext", "streaming.py"));
    Matcher block = Pattern.compile("(?s)EXIT_CODES = \\{(.*?)\\n\\}").matcher(python);
    assertEquals(true, block.find(), "EXIT_CODES in streaming.py");
    Map<Integer, String> named = new TreeMap<>();
    Matcher entry = Pattern.compile("(\\d+): \"([^\"]+)\"").matcher(block.group(1));
    while (entry.find()) {
      named.put(Integer.parseInt(entry.group(1)), entry.group(2));
    }
    Map<Integer, String> job = new TreeMap<>();
    for (ExitCode c : ExitCode.values()) {
      if (c != ExitCode.OK) {
        job.put(c.code, c.meaning);
      }
    }
    assertEquals(job, named);
  }
}
