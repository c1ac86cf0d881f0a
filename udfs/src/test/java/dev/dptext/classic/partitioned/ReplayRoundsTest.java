package dev.dptext.classic.partitioned;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dptext.embedding.Embeddings;
import dev.dptext.knn.NeighbourTable;
import dev.dptext.mechanism.ExponentialMechanism;
import dev.dptext.mechanism.MechanismSpec;
import dev.dptext.mechanism.WordMechanism;
import dev.dptext.model.DpTextModel;
import dev.dptext.model.EmbeddedDefault;
import dev.dptext.model.VocabularyCentre;
import dev.dptext.random.RandomStream;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rejection rounds of the partitioned path without Spark, over thousands of rows: a row replays
 * with provisionally accepted unknown proposals, fetches what it lacked, and replays again; its
 * outputs and its stream's final position must be the broadcast sampler's for the same stream, at
 * every ε (from mostly-uniform to mostly-excess draws). Equal draws on the same stream make the
 * partitioned path's distribution the one the statistical tests check on the broadcast path.
 */
class ReplayRoundsTest {
  @Test
  void roundsReproduceTheBroadcastSamplerExactly() {
    Embeddings e = EmbeddedDefault.embeddings().topWords(1500);
    DpTextModel model = DpTextModel.of(e, "top1500", 16);
    double[] mean = e.mean();
    double radius2 = 0;
    for (int y = 0; y < e.size(); y++) {
      for (int d = 0; d < e.dim(); d++) {
        double c = e.rawVectors()[y * e.dim() + d] - mean[d];
        radius2 += c * c;
      }
    }
    VocabularyCentre centre = new VocabularyCentre(mean, radius2 / e.size());
    for (VocabularyCentre guess : new VocabularyCentre[] {null, centre}) {
    for (String name : new String[] {"santext", "santext+"}) {
      for (double epsilon : new double[] {0.5, 3, 12}) {
        MechanismSpec spec = MechanismSpec.of(name, Map.of("epsilon", epsilon));
        WordMechanism broadcast = spec.build(model);
        ExponentialMechanism shards = (ExponentialMechanism) spec.definition().buildForShards(spec,
            new dev.dptext.model.ModelShape(e.size(), e.dim(), null));
        NeighbourTable table = model.neighbours(shards.targetStart());
        Map<Integer, dev.dptext.mechanism.CandidateEnvelope> envelopes = new java.util.HashMap<>();
        int maxRounds = 0;
        long totalRounds = 0;
        int rows = 400;
        for (int row = 0; row < rows; row++) {
          RandomStream r = RandomStream.fromSeed(1000L * row + 7);
          int[] ranks = new int[25];
          for (int t = 0; t < ranks.length; t++) {
            ranks[t] = r.nextInt(e.size());
          }
          RandomStream expectedStream = RandomStream.fromSeed(row);
          int[] expected = new int[ranks.length];
          broadcast.sanitize(ranks, ranks.length, expectedStream, expected);

          RowWork w = new RowWork(ranks, RandomStream.fromSeed(row).state());
          for (int x : ranks) {
            w.vectors.put(x, vector(e, x));
            w.envelopes.put(x, envelopes.computeIfAbsent(x, word -> {
              int k = table.rowLength(word);
              int[] ns = new int[k];
              double[] ds = new double[k];
              for (int j = 0; j < k; j++) {
                ns[j] = table.neighbour(word, j);
                ds[j] = e.distance(word, ns[j]);
              }
              return shards.envelope(ns, ds, table.outsideBound(word));
            }));
          }
          int rounds = 0;
          while (true) {
            rounds++;
            Set<Integer> missing = PartitionedSanitizer.replay(w, shards, e.dim(), guess, null);
            if (missing.isEmpty()) {
              break;
            }
            for (int y : missing) {
              w.vectors.put(y, vector(e, y));
            }
            assertTrue(rounds < 10_000, "rounds must end");
          }
          maxRounds = Math.max(maxRounds, rounds);
          totalRounds += rounds;
          assertArrayEquals(expected, w.outputs, name + " ε=" + epsilon + " row " + row);
          assertEquals(expectedStream.nextLong(), RandomStream.resume(w.state).nextLong(),
              "the stream resumes where the broadcast path's stands");
        }
        System.out.printf("%s ε=%s, %s: rounds per row of 25 tokens: mean %.2f, max %d%n", name, epsilon,
            guess == null ? "guess accept" : "guess by spread", (double) totalRounds / rows, maxRounds);
      }
    }
    }
  }

  private static float[] vector(Embeddings e, int x) {
    float[] v = new float[e.dim()];
    System.arraycopy(e.rawVectors(), x * e.dim(), v, 0, e.dim());
    return v;
  }
}
