package dev.dptext.knn;

import static jdk.incubator.vector.VectorOperators.XOR;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The vector kernel of {@link NearestCodes}' full scan over {@link BitSlicedCodes}, on the (incubating)
 * Vector API. Loaded only after {@link NearestCodes} has checked that the module
 * {@code jdk.incubator.vector} is in the boot layer and that the JIT compiles 256-bit long vectors to
 * hardware.
 *
 * <p>Per block and query: the counters start at each word's a = ⌊(n − |c|)/2⌋ (8 precomputed planes),
 * and only the planes the query lists are added — where it has a 1, or, if it has more than n/2 ones,
 * where it has a 0 (see {@link BitSlicedCodes}): at most n/2 planes, no XOR. They are added eight at a
 * time with carry-save adders (ones, twos, fours: a full adder is a XOR and a majority, which C2
 * compiles to two {@code vpternlogq} on AVX-512), and each group's weight-8 carry rippled into
 * bit-sliced counters c8 … c256. Then the 9-bit sums S are compared with the query's constant k
 * bit-serially, from the top bit down (S &lt; k and S = k), and the words with S &gt; k or S &lt; k
 * (plus, on equality, those of the right parity p) are the words below the bound. Java 17's Vector API
 * has no lane-wise bit count; this does without one.
 *
 * <p>Written for C2 (JDK 17): the loop body is unrolled by hand, and every operation's receiver is a
 * value whose exact vector class C2 knows (a load or another operation's result), not a loop-carried
 * accumulator, so that inlining does not depend on type profiles. The loop body is eight planes: at
 * sixteen, C2 stops inlining part-way (NodeCountInliningCutoff) and the vectors are boxed.
 *
 * <p>One class for both widths: the species must be a compile-time constant for C2 to compile the
 * operations to hardware vectors, so it is a {@code static final} chosen once per JVM by
 * {@link VectorWidth} — 512 bits (blocks of 512 words) on AVX-512 CPUs, 256 bits (blocks of 256 words) on
 * AVX2 ones or when the width is forced — and every offset below is a multiple of the constant {@link #L}.
 */
final class HammingVectorKernel implements BitSlicedCodes.Kernel {
  /** The long vectors of this JVM's width ({@link VectorWidth}): 512 bits on AVX-512, else 256. */
  static final VectorSpecies<Long> S =
      VectorWidth.choose(VectorWidth.Hardware.longBits()) == 512 ? LongVector.SPECIES_512 : LongVector.SPECIES_256;
  /** Longs per vector, hence per plane: 8 or 4. */
  private static final int L = S.length();

  @Override
  public int lanes() {
    return L;
  }

  @Override
  public String describe() {
    return "bit-sliced Vector API scan of half the planes, " + S.vectorBitSize() + "-bit vectors";
  }

  @Override
  public boolean select(long[] planes, int o, int x, int[] offsets, int m, int count, int k, boolean greater,
      boolean parity, long[] out) {
    // The counters start at the words' a = ⌊(n − |c|)/2⌋ (8 planes, least significant first).
    LongVector ones = LongVector.fromArray(S, planes, x + 0 * L);
    LongVector twos = LongVector.fromArray(S, planes, x + 1 * L);
    LongVector fours = LongVector.fromArray(S, planes, x + 2 * L);
    LongVector c8 = LongVector.fromArray(S, planes, x + 3 * L);
    LongVector c16 = LongVector.fromArray(S, planes, x + 4 * L);
    LongVector c32 = LongVector.fromArray(S, planes, x + 5 * L);
    LongVector c64 = LongVector.fromArray(S, planes, x + 6 * L);
    LongVector c128 = LongVector.fromArray(S, planes, x + 7 * L);
    LongVector zero = LongVector.zero(S);
    LongVector c256 = zero;
    for (int end = m + count; m < end; m += 8) {
      LongVector u, d0, d1;
      d0 = LongVector.fromArray(S, planes, o + offsets[m + 0]);
      d1 = LongVector.fromArray(S, planes, o + offsets[m + 1]);
      u = d0.lanewise(XOR, ones);
      LongVector twosA = d0.and(ones).or(u.and(d1));
      ones = u.lanewise(XOR, d1);
      d0 = LongVector.fromArray(S, planes, o + offsets[m + 2]);
      d1 = LongVector.fromArray(S, planes, o + offsets[m + 3]);
      u = d0.lanewise(XOR, ones);
      LongVector twosB = d0.and(ones).or(u.and(d1));
      ones = u.lanewise(XOR, d1);
      u = twosA.lanewise(XOR, twos);
      LongVector foursA = twosA.and(twos).or(u.and(twosB));
      twos = u.lanewise(XOR, twosB);
      d0 = LongVector.fromArray(S, planes, o + offsets[m + 4]);
      d1 = LongVector.fromArray(S, planes, o + offsets[m + 5]);
      u = d0.lanewise(XOR, ones);
      twosA = d0.and(ones).or(u.and(d1));
      ones = u.lanewise(XOR, d1);
      d0 = LongVector.fromArray(S, planes, o + offsets[m + 6]);
      d1 = LongVector.fromArray(S, planes, o + offsets[m + 7]);
      u = d0.lanewise(XOR, ones);
      twosB = d0.and(ones).or(u.and(d1));
      ones = u.lanewise(XOR, d1);
      u = twosA.lanewise(XOR, twos);
      LongVector foursB = twosA.and(twos).or(u.and(twosB));
      twos = u.lanewise(XOR, twosB);
      u = foursA.lanewise(XOR, fours);
      LongVector s = foursA.and(fours).or(u.and(foursB));
      fours = u.lanewise(XOR, foursB);
      // s (weight 8) into the ripple counter c8 .. c256
      LongVector c = s.and(c8);
      c8 = s.lanewise(XOR, c8);
      s = c.and(c16);
      c16 = c.lanewise(XOR, c16);
      c = s.and(c32);
      c32 = s.lanewise(XOR, c32);
      s = c.and(c64);
      c64 = c.lanewise(XOR, c64);
      c = s.and(c128);
      c128 = s.lanewise(XOR, c128);
      c256 = c.or(c256);
    }
    // S against k, from the most significant bit down: lt = S < k, eq = S = k.
    LongVector lt = zero;
    LongVector eq = zero.not();
    if ((k & 256) != 0) {
      lt = c256.not().and(eq).or(lt);
      eq = c256.and(eq);
    } else {
      eq = c256.not().and(eq);
    }
    if ((k & 128) != 0) {
      lt = c128.not().and(eq).or(lt);
      eq = c128.and(eq);
    } else {
      eq = c128.not().and(eq);
    }
    if ((k & 64) != 0) {
      lt = c64.not().and(eq).or(lt);
      eq = c64.and(eq);
    } else {
      eq = c64.not().and(eq);
    }
    if ((k & 32) != 0) {
      lt = c32.not().and(eq).or(lt);
      eq = c32.and(eq);
    } else {
      eq = c32.not().and(eq);
    }
    if ((k & 16) != 0) {
      lt = c16.not().and(eq).or(lt);
      eq = c16.and(eq);
    } else {
      eq = c16.not().and(eq);
    }
    if ((k & 8) != 0) {
      lt = c8.not().and(eq).or(lt);
      eq = c8.and(eq);
    } else {
      eq = c8.not().and(eq);
    }
    if ((k & 4) != 0) {
      lt = fours.not().and(eq).or(lt);
      eq = fours.and(eq);
    } else {
      eq = fours.not().and(eq);
    }
    if ((k & 2) != 0) {
      lt = twos.not().and(eq).or(lt);
      eq = twos.and(eq);
    } else {
      eq = twos.not().and(eq);
    }
    if ((k & 1) != 0) {
      lt = ones.not().and(eq).or(lt);
      eq = ones.and(eq);
    } else {
      eq = ones.not().and(eq);
    }
    LongVector r;
    if (greater) {
      r = lt.or(eq).not();
      if (parity) {
        r = LongVector.fromArray(S, planes, x + 8 * L).and(eq).or(r);
      }
    } else {
      r = lt;
      if (parity) {
        r = LongVector.fromArray(S, planes, x + 8 * L).not().and(eq).or(r);
      }
    }
    if (r.compare(VectorOperators.NE, 0).anyTrue()) {
      r.intoArray(out, 0);
      return true;
    }
    return false;
  }
}
