package dev.dptext.classic.partitioned;

import dev.dptext.mechanism.CandidateEnvelope;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * One row's mechanism work while it travels between rounds: its vocabulary tokens' ranks in text
 * order, its random stream's position (never the key, never the text), the outputs decided so far
 * and what the shards have told it. Rows with no vocabulary token never enter the rounds.
 */
final class RowWork implements Serializable {
  private static final long serialVersionUID = 1L;

  final int[] ranks;
  /** The stream position to resume from: after the last confirmed draw. */
  long[] state;
  /** The first token not yet confirmed; outputs[0 .. next) are final. */
  int next;
  final int[] outputs;
  /** Vectors fetched from the shards: the input words' and, for SanText, proposals'. */
  final Map<Integer, float[]> vectors = new HashMap<>();
  /** The input words' envelopes (exponential mechanisms only). */
  final Map<Integer, CandidateEnvelope> envelopes = new HashMap<>();

  /** The noisy vectors between the noise draws and the search (nearest-word mechanisms only). */
  double[] points;
  /** The ranks this row asked the shards for in the current round. */
  java.util.Set<Integer> wanted;

  RowWork(int[] ranks, long[] state) {
    this.ranks = ranks;
    this.state = state;
    this.outputs = new int[ranks.length];
  }

  /**
   * A copy to mutate: Spark may keep the previous round's objects cached and recompute from them, so
   * every round works on its own copy (the vectors themselves are shared, never modified).
   */
  RowWork copy() {
    RowWork c = new RowWork(ranks, state.clone(), outputs.clone());
    c.next = next;
    c.vectors.putAll(vectors);
    c.envelopes.putAll(envelopes);
    c.points = points;
    c.wanted = wanted;
    return c;
  }

  private RowWork(int[] ranks, long[] state, int[] outputs) {
    this.ranks = ranks;
    this.state = state;
    this.outputs = outputs;
  }

}
