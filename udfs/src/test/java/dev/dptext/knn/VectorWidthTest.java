package dev.dptext.knn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The Vector API kernel's width is fixed per JVM (a static final species), so the test JVM exercises
 * only the width its CPU prefers. On an AVX-512 CPU this runs {@link NearestWordsTest}'s exactness
 * checks again in a child JVM forced to 256-bit vectors, the width AVX2 CPUs run; on an AVX2 CPU the
 * test JVM already runs the 256-bit kernel and there is no other width to try.
 */
class VectorWidthTest {

  @Test
  void theTestJvmRunsTheWidestVectorsOfItsCpu() {
    assertEquals(Math.min(512, VectorKernels.preferredBits()), VectorKernels.S.vectorBitSize());
  }

  @Test
  void the256BitKernelIsExactToo() throws Exception {
    assumeTrue(VectorKernels.preferredBits() >= 512, "this CPU has no vectors wider than 256 bits");
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (flag.startsWith("--add-") || flag.startsWith("-Dlog4j2")) {
        command.add(flag);
      }
    }
    command.add("-D" + VectorKernels.BITS_PROPERTY + "=256");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ExactAtThisWidth.class.getName());
    File log = File.createTempFile("dptext-vector-width", ".log");
    log.deleteOnExit();
    Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    assertTrue(child.waitFor(5, TimeUnit.MINUTES), "the child JVM did not finish in 5 minutes");
    String output = java.nio.file.Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertEquals(0, child.exitValue(), output);
    assertTrue(output.contains("exact at 256-bit vectors"), output);
  }

  /**
   * Runs the exactness checks of {@link NearestWordsTest} and {@link NeighbourSearchTest} in this JVM, at
   * its kernel's width.
   */
  public static final class ExactAtThisWidth {
    public static void main(String[] args) {
      NearestWordsTest t = new NearestWordsTest();
      t.everyKernelEqualsBruteForceOnGlove();
      t.everyKernelEqualsBruteForceOnAwkwardShapes();
      t.tiesGoToTheLowerRankOnEveryKernel();
      t.uncertifiedQueriesFallBackExactlyOnEveryKernel();
      t.adversarialScalesStayExact();
      t.queriesFarOutsideTheVocabularyStayExact();
      NeighbourSearchTest all = new NeighbourSearchTest();
      all.everyKernelEqualsBruteForceOnAwkwardShapes();
      all.tiesAndDuplicatesGoToTheLowerRankOnEveryKernel();
      all.adversarialScalesStayExact();
      System.out.println("exact at " + VectorKernels.S.vectorBitSize() + "-bit vectors");
    }
  }
}
