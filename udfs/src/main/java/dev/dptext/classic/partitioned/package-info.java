/**
 * The partitioned path: models too large to broadcast (millions of words × 300 dimensions) kept as
 * vocabulary shards on the executors, with the work brought to them.
 *
 * <h2>The model</h2>
 *
 * {@link dev.dptext.model.PartitionedModel}: a directory with a manifest, the vectors as Parquet,
 * one Parquet candidate table per target set (SanText: all words; SanText+: the sensitive words) with
 * each row's exact distances and outside bound, and the covariance. {@link PartitionedModelBuilder}
 * computes it over Spark partitions (blocked all-pairs search); the driver never holds the vectors.
 * A model built with its tables on demand stores none: each SanText/SanText+ run computes the rows of
 * the words its input uses ({@link OnDemandRows}) with the same search over the model's own shards,
 * which gives the stored rows bit for bit, at 2·D·|V|·m flops for D distinct words instead of
 * 2·|V|²·m.
 *
 * <h2>Why the output is the broadcast path's, byte for byte</h2>
 *
 * On the broadcast path a row's text is sanitized by one keyed stream in a fixed order
 * ({@link dev.dptext.text.TextSanitizer}): tokenize (no draws); the mechanism's draws for the
 * vocabulary tokens in order; the OOV replacements in order while assembling. The partitioned path
 * makes exactly the same draws from the same stream, moving the stream's 256-bit position
 * ({@link dev.dptext.random.RandomStream#state()}) between rounds instead of the vectors:
 *
 * <ul>
 *   <li><b>Laplace, Mahalanobis, Vickrey</b> ({@link dev.dptext.mechanism.NearestWordMechanism}). The
 *       broadcast path draws every token's noise, then searches, then makes every selection draw
 *       (Vickrey's choice between y1 and y2; Laplace and Mahalanobis draw nothing). Round 1 fetches
 *       the row's input vectors from their shards. Round 2 draws all the noise with the row's stream
 *       (same code: {@code addNoise}) and keeps the stream's position; each noisy vector (double
 *       precision, exactly φ(x) + Z as on the broadcast path) goes to every shard, which returns its
 *       exact top k by (distance, rank) ({@link dev.dptext.knn.NearestWords} over the shard: the
 *       distances are the same doubles, the local order is the global order shifted); a reduce per
 *       query keeps the k smallest (distance, rank) pairs of the union — the global exact top k, ties
 *       to the lower rank. The row then resumes its stream and makes its selection draws in order.
 *   <li><b>SanText, SanText+</b> ({@link dev.dptext.mechanism.ExponentialMechanism}). A token's draws
 *       depend on the geometry: the rejection loop continues until a proposal is accepted, and a
 *       uniform proposal y needs d(x, y). Round 1 fetches the input words' vectors and candidate rows
 *       (the envelope is computed from the stored distances by the broadcast sampler's own code, so the
 *       same numbers). Then the row replays its tokens with the broadcast path's own sampling loop; a
 *       proposal whose vector it lacks is provisionally accepted and its vector requested. A round
 *       without an unknown proposal finishes the row. Otherwise the row keeps everything before the
 *       first token that met an unknown (those draws did not depend on it), rewinds its stream to that
 *       token's start, fetches the vectors and replays next round. The first unknown of a round is
 *       always known in the next, so each round confirms at least one more proposal; rounds are few
 *       because a row asks for all the vectors on its provisional path at once and a rejected proposal
 *       costs one round.
 * </ul>
 *
 * Finally each row is tokenized again (deterministic), its stream resumed after the mechanism's draws,
 * and assembled with the OOV draws, exactly as {@link dev.dptext.text.TextSanitizer#sanitize} does.
 * Rows without vocabulary tokens skip the rounds.
 *
 * <h2>Determinism and secrets</h2>
 *
 * Each row's stream comes from HMAC-SHA256(key, purpose, row id) exactly as on the broadcast path
 * ({@link dev.dptext.sanitizer.Sanitizer#streamFor}); the internal row numbers are join keys only, so the
 * output does not depend on partitioning, retries or the number of shards. The key travels only inside
 * the broadcast; shuffled records carry row numbers, ranks, vectors and stream positions. A position is
 * xoshiro256++ state taken from a pseudo-random function of the key: it reveals neither the key nor any
 * other row's stream, only this row's remaining draws, which the row's own output already depends on.
 * Nothing here logs a text, a position or the key.
 *
 * <h2>Memory</h2>
 *
 * Driver: the words (O(|V|·word length), about 40 MB for 2 million words) and one shard at a time
 * while hashing the model. Executor: the shards its partitions hold (|V|·m·4/S bytes each, plus
 * their candidate rows) and the rows of its tasks.
 *
 * <h2>Imports</h2>
 *
 * May import {@code dev.dptext.classic} (broadcasts), {@code config}, the domain packages, {@code settings}
 * and {@code sanitizer} (the sanitizer it broadcasts, the sink it adds token counts to); never
 * {@code runtime} or {@code spark}, which call it.
 */
package dev.dptext.classic.partitioned;
