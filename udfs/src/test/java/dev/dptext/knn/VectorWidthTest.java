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
 * The Vector API kernels' width is fixed per JVM ({@link VectorWidth}: a static final species in each
 * kernel), so the test JVM exercises only the width its CPU prefers. On an AVX-512 CPU this runs the
 * exactness checks of the float kernels ({@link NearestWordsTest}, {@link NeighbourSearchTest}) and of
 * the Hamming kernel ({@link NearestCodesTest}) again in a child JVM forced to 256-bit vectors, the width
 * AVX2 CPUs run; on an AVX2 CPU the test JVM already runs the 256-bit kernels and there is no other width
 * to try.
 */
class VectorWidthTest {

  @Test
  void theTestJvmRunsTheWidestVectorsOfItsCpu() {
    assertEquals(Math.min(512, VectorKernels.preferredBits()), VectorKernels.S.vectorBitSize());
    assertEquals(Math.min(512, HammingVectorKernel.preferredBits()), HammingVectorKernel.S.vectorBitSize());
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
    command.add("-D" + VectorWidth.PROPERTY + "=256");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(ExactAtThisWidth.class.getName());
    File log = File.createTempFile("dptext-vector-width", ".log");
    log.deleteOnExit();
    Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    assertTrue(child.waitFor(5, TimeUnit.MINUTES), "the child JVM did not finish in 5 minutes");
    String output = java.nio.file.Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertEquals(0, child.exitValue(), output);
    assertTrue(output.contains("exact at 256-bit float vectors and 256-bit long vectors"), output);
  }

  /**
   * Runs the exactness checks of {@link NearestWordsTest}, {@link NeighbourSearchTest} and
   * {@link NearestCodesTest} in this JVM, at its kernels' width.
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
      NearestCodesTest brr = new NearestCodesTest();
      brr.theTestJvmRunsAVectorKernel();
      brr.nearestEqualsBruteForceWithTiesToTheLowerRankForEveryCodeLengthAndKernel();
      brr.theBlockTestReportsExactlyTheWordsBelowEveryBound();
      brr.nearestEqualsBruteForceForQueriesOfEveryWeight();
      brr.anExactCodeMapsToTheLowestRankHoldingIt();
      // Forced to 256 bits, the JVM chooses BRR's kernel as an AVX2 CPU would: the scalar one.
      if (NearestCodes.Kernel.best() != NearestCodes.Kernel.SCALAR) {
        throw new AssertionError("at 256 bits the default BRR kernel is " + NearestCodes.Kernel.best());
      }
      System.out.println("exact at " + VectorKernels.S.vectorBitSize() + "-bit float vectors and "
          + HammingVectorKernel.S.vectorBitSize() + "-bit long vectors");
    }
  }
}
