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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The Vector API kernels' width is fixed per JVM ({@link VectorWidth}: a static final species in each
 * kernel), so the test JVM exercises only the width its CPU prefers. On an AVX-512 CPU this runs the
 * exactness checks of the float kernels ({@link NearestWordsTest}, {@link NeighbourSearchTest}) and of
 * the Hamming kernel ({@link NearestCodesTest}) again in a child JVM forced to 256-bit vectors, the width
 * AVX2 CPUs run; on an AVX2 CPU the test JVM already runs the 256-bit kernels and there is no other width
 * to try.
 */
@Tag("integration")
class VectorWidthTest {

  @Test
  void theTestJvmRunsTheWidestVectorsOfItsCpu() {
    assertEquals(Math.min(512, VectorWidth.Hardware.floatBits()), VectorKernels.S.vectorBitSize());
    assertEquals(Math.min(512, VectorWidth.Hardware.longBits()), HammingVectorKernel.S.vectorBitSize());
  }

  @Test
  void the256BitKernelIsExactToo() throws Exception {
    assumeTrue(VectorWidth.Hardware.floatBits() >= 512, "this CPU has no vectors wider than 256 bits");
    String output = runChild("256", ExactAtThisWidth.class);
    assertTrue(output.contains("exact at 256-bit float vectors and 256-bit long vectors"), output);
  }

  /**
   * A width the CPU does not have is an error when a search is set up, not a silent fallback to the
   * scalar or BLAS path: the checks of whether the Vector API is usable do not read the property.
   */
  @Test
  void aWidthTheCpuLacksIsAnErrorNotAFallback() throws Exception {
    assumeTrue(NearestCodes.Kernel.VECTOR.available(), "no Vector API in this JVM");
    String output = runChild("384", RejectsThisWidth.class);
    dev.dptext.testing.ErrorAssertions.assertErrorText(output, "JVM_PROPERTY_INVALID");
    assertTrue(output.contains("-D" + VectorWidth.PROPERTY + "=384 "), output);
  }

  /**
   * Runs {@code main} in a child JVM with this JVM's module flags, its {@code -XX} settings (the parent pom's
   * test.jvm) and {@value VectorWidth#PROPERTY} = {@code bits}.
   */
  private static String runChild(String bits, Class<?> main) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    for (String flag : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (flag.startsWith("--add-") || flag.startsWith("-Dlog4j2") || flag.startsWith("-XX:")) {
        command.add(flag);
      }
    }
    command.add("-D" + VectorWidth.PROPERTY + "=" + bits);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    File log = File.createTempFile("dptext-vector-width", ".log");
    log.deleteOnExit();
    Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log).start();
    assertTrue(child.waitFor(5, TimeUnit.MINUTES), "the child JVM did not finish in 5 minutes");
    String output = java.nio.file.Files.readString(log.toPath(), StandardCharsets.UTF_8);
    assertEquals(0, child.exitValue(), output);
    return output;
  }

  /** Sets up both searches in a JVM whose width property is invalid; each must fail naming the property. */
  public static final class RejectsThisWidth {
    public static void main(String[] args) {
      try {
        NearestCodes.Kernel.best();
        throw new AssertionError("NearestCodes.Kernel.best() accepted the width");
      } catch (IllegalArgumentException e) {
        System.out.println("rejected: " + e.getMessage());
      }
      try {
        new NearestWords(dev.dptext.testing.Fixtures.gloveTop2000(), NearestWords.Backend.JAVA_VECTOR);
        throw new AssertionError("the Vector API kernel of NearestWords accepted the width");
      } catch (ExceptionInInitializerError e) {
        System.out.println("rejected: " + e.getCause().getMessage());
      }
    }
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
      t.theRoundingMarginBoundsEveryKernelsErrorOnNoisyQueries();
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
      // The default BRR kernel follows the width: the vector one at 512 bits, the scalar one at 256 (as an
      // AVX2 CPU would choose, also when an AVX-512 CPU is forced to 256 bits).
      int bits = HammingVectorKernel.S.vectorBitSize();
      NearestCodes.Kernel expected = bits >= 512 ? NearestCodes.Kernel.VECTOR : NearestCodes.Kernel.SCALAR;
      if (NearestCodes.Kernel.best() != expected) {
        throw new AssertionError("at " + bits + " bits the default BRR kernel is " + NearestCodes.Kernel.best());
      }
      System.out.println("exact at " + VectorKernels.S.vectorBitSize() + "-bit float vectors and "
          + HammingVectorKernel.S.vectorBitSize() + "-bit long vectors");
    }
  }
}
