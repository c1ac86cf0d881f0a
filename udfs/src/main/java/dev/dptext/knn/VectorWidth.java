package dev.dptext.knn;

import dev.dptext.errors.DpTextErrors;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;

/**
 * The one vector width of every Vector API kernel in a JVM: the float kernels of {@link NearestWords}
 * ({@code VectorKernels}) and the Hamming kernel of {@link NearestCodes} ({@code HammingVectorKernel}).
 *
 * <p>Each kernel reads it once, into the {@code static final} species its loops are compiled for: C2
 * compiles vector operations to hardware only when the species is a compile-time constant (a species
 * read from an instance field boxes every vector), so a kernel can have only one width per JVM. One
 * property ({@value #PROPERTY}) rather than one per kernel because its purpose is to run a JVM as it
 * would run on a CPU of the other width (tests and benchmarks on an AVX-512 machine standing in for an
 * AVX2 one); no deployment wants different widths for the two searches.
 *
 * <p>The choice ({@link #choose}) names no Vector API type, so it can run without the incubator module;
 * the probe of what the JIT compiles ({@link Hardware}) does, and is loaded only once the module is known
 * to be present. The probe is kept out of the kernels' classes on purpose: calling a kernel class's
 * static method initialises its species, so a bad {@value #PROPERTY} would fail inside the callers'
 * "is the Vector API usable" checks, which treat any failure as "no" — a silent fallback to the scalar
 * or BLAS path instead of the error {@link #choose} means to raise.
 */
final class VectorWidth {
  private VectorWidth() {}

  /** Overrides the vector width of the Vector API kernels in a JVM: {@code 256} or {@code 512}. */
  static final String PROPERTY = "dptext.knn.vectorBits";

  /**
   * The width the kernels run at given the widest vectors the JIT compiles to hardware
   * ({@code preferredBits}, ≥ 256): 512 if that is at least 512 and {@value #PROPERTY} does not ask for
   * 256, else 256.
   *
   * @throws IllegalArgumentException (JVM_PROPERTY_INVALID) if {@value #PROPERTY} names a width other than 256
   *     or 512, or 512 on a CPU without it (failing loudly, since a benchmark would otherwise measure the wrong
   *     width)
   */
  static int choose(int preferredBits) {
    String forced = System.getProperty(PROPERTY, "").trim();
    if (forced.isEmpty()) {
      return preferredBits >= 512 ? 512 : 256;
    }
    if (forced.equals("256")) {
      return 256;
    }
    if (forced.equals("512") && preferredBits >= 512) {
      return 512;
    }
    throw DpTextErrors.error("JVM_PROPERTY_INVALID", "property", PROPERTY, "value", forced, "what",
        "a vector width of this CPU", "choices", preferredBits >= 512 ? "256 or 512" : "256");
  }

  /** The widest vectors this JVM compiles to hardware on this CPU (256 on AVX2, 512 on AVX-512), per element type. */
  static final class Hardware {
    private Hardware() {}

    static int floatBits() {
      return FloatVector.SPECIES_PREFERRED.vectorBitSize();
    }

    static int longBits() {
      return LongVector.SPECIES_PREFERRED.vectorBitSize();
    }
  }
}
