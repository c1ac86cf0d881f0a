package dev.dptext.mechanism;

import static dev.dptext.mechanism.SamplerStatistics.assertFits;
import static dev.dptext.mechanism.SamplerStatistics.exponential;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.random.RandomStream;
import dev.dptext.testing.Fixtures;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The rejection sampler must be exact for ANY valid outside bound, not only for the tight one the
 * search produces on the fixture (there it is always d_(K+1)). Looser bounds are what
 * {@link dev.dptext.knn.NeighbourSearch} returns when float rounding forces a margin (see
 * {@link NeighbourTableInvariantTest#boundStaysValidUnderFloatCancellation}), or what a table read
 * from an older artifact may hold. They exercise the paths the tight bound never reaches:
 * neighbours inside H_x whose weight is below the flat level (zero excess, accepted with probability
 * &lt; 1 from the uniform branch), and a row with no excess at all (uniform proposals only).
 *
 * <p>Tables are built from the fixture's K = 16 rows with the bound replaced by a smaller valid one;
 * the sampler is driven directly (package-private), both with x in the target set (SanText) and x
 * outside it (SanText+'s non-sensitive words). Statistical checks at α = 1e-5 each.
 */
class SanTextEnvelopeTest {
  static final int K = 16;

  enum Bound {
    /** The table as computed: d of the nearest word outside the row. */
    TIGHT,
    /** d of the 8th row entry: the second half of the row is below the flat level. */
    MID_ROW,
    /** d of the first row entry that is not x itself: almost no excess. */
    NEAREST,
    /** 0: no excess at all, every round is a uniform proposal. */
    ZERO
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (int start : new int[] {0, 1000}) {
      for (Bound b : new Bound[] {Bound.TIGHT, Bound.MID_ROW, Bound.NEAREST}) {
        for (double eps : new double[] {1, 3, 10}) {
          for (int x : new int[] {0, 1500}) {
            out.add(Arguments.of(start, b, eps, x, 50_000));
          }
        }
      }
      // With bound 0 the acceptance rate is about P(nearest)/|T|·…: keep ε small and n moderate.
      for (int x : new int[] {0, 1500}) {
        out.add(Arguments.of(start, Bound.ZERO, 0.5, x, 20_000));
      }
    }
    return out.stream();
  }

  static NeighbourTable withBound(Embeddings e, NeighbourTable t, Bound kind) {
    double[] bounds = t.rawOutsideBounds().clone();
    for (int x = 0; x < e.size(); x++) {
      double b = switch (kind) {
        case TIGHT -> bounds[x];
        case MID_ROW -> e.distance(x, t.neighbour(x, 7));
        case NEAREST -> e.distance(x, t.neighbour(x, t.neighbour(x, 0) == x ? 1 : 0));
        case ZERO -> 0.0;
      };
      if (!(b <= bounds[x])) {
        fail("test setup: bound " + kind + " for x=" + x + " is not below the tight bound");
      }
      bounds[x] = b;
    }
    return new NeighbourTable(t.targetStart(), t.k(), t.rawNeighbours().clone(), bounds);
  }

  @ParameterizedTest(name = "start={0} bound={1} eps={2} x={3}")
  @MethodSource("cases")
  void exactForAnyValidBound(int start, Bound kind, double eps, int x, int samples) {
    Embeddings e = Fixtures.gloveTop2000();
    NeighbourTable table = withBound(e, Fixtures.gloveNeighbours(start, K), kind);
    ExponentialNeighbourSampler sampler = new ExponentialNeighbourSampler(e, table, eps);
    RandomStream r = RandomStream.fromSeed(31L * start + 17L * kind.ordinal() + Double.doubleToLongBits(eps) + x);
    long[] counts = new long[e.size()];
    for (int i = 0; i < samples; i++) {
      int y = sampler.sample(x, r);
      assertTrue(y >= start && y < e.size(), "output " + y + " outside the target set");
      counts[y]++;
    }
    SamplerStatistics.Envelope env = SamplerStatistics.envelope(e, table, x, eps);
    String what = String.format(Locale.ROOT,
        "sampler start=%d bound=%s eps=%s x=%d [P(uniform)=%.3f, rounds=%.2f]", start, kind, eps, x,
        env.uniformBranch(), env.expectedRounds());
    assertFits(counts, exponential(e, x, eps, start), what);
  }
}
