package dev.dptext.classic.partitioned;

import java.io.Serializable;

/**
 * The query words of one task of the blocked candidate search ({@link PartitionedModelBuilder#searchRows}):
 * a whole vocabulary shard when the model is built, or a block of the words a run uses when the rows
 * are computed on demand ({@link OnDemandRows}).
 */
interface QueryWords extends Serializable {
  /** The block's index among the query blocks (its partition). */
  int index();

  int count();

  /** The rank of the block's i-th word. */
  int rank(int i);

  /** The words' raw vectors, row-major, {@link #count()} rows. */
  float[] vectors();
}
