package dev.dptext.knn;

import java.io.Serializable;

/**
 * How an approximate nearest-word search did against exact search on the queries it checked: the
 * sampled queries, the neighbours they asked for (k each) and how many of those the approximate search
 * also returned (recall@k = found / wanted). Filled per row by {@link HnswNearestWords}, summed per run;
 * counts only, never a query.
 */
public final class SearchTally implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Queries checked against exact search. */
  public long queries;
  /** Neighbours those queries asked for: the sum of their k. */
  public long wanted;
  /** Of those, the neighbours the approximate search returned too. */
  public long found;

  public void add(SearchTally other) {
    queries += other.queries;
    wanted += other.wanted;
    found += other.found;
  }

  /** found / wanted, or NaN when nothing was checked. */
  public double recall() {
    return wanted == 0 ? Double.NaN : (double) found / wanted;
  }
}
