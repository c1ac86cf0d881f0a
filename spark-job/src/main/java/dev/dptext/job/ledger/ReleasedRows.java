package dev.dptext.job.ledger;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.shiftright;
import static org.apache.spark.sql.functions.xxhash64;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Which rows a release covers, as closed ranges of row keys that never leave a released row out.
 *
 * <p>A row's key is its id when the id column is integral ({@link Kind#INTEGRAL}): ranges of ids, exact
 * when the released ids are contiguous runs (the common case: sequence ids, one day's rows). Any other
 * id ({@link Kind#HASHED}) is keyed by one of {@value #HASH_BUCKETS} buckets of its 64-bit hash, so the
 * ledger never holds an id itself (ids can be e-mail addresses); rows sharing a bucket are accounted
 * together, which can only over-count. Without an id column ({@link Kind#NONE}) the ledger cannot tell
 * rows apart: the release counts against every row of its source.
 *
 * <p>Computed with one aggregation over the released rows: keys grouped into blocks of 4,096, each
 * block's smallest and largest key and distinct count; a block whose keys are not all present is
 * recorded as the range covering them (a superset: {@code exact} false). More than {@value #MAX_RANGES}
 * ranges are merged across their smallest gaps (also a superset).
 *
 * @param idColumn the id column, null for {@link Kind#NONE}
 * @param ranges sorted, disjoint, non-adjacent ranges; null for {@link Kind#NONE}
 * @param exact whether the ranges hold exactly the released keys
 * @param rows the rows released
 */
public record ReleasedRows(String idColumn, Kind kind, List<Range> ranges, boolean exact, long rows) {

  /** How rows are keyed. */
  public enum Kind {
    INTEGRAL("integral"), HASHED("hashed"), NONE("none");

    final String label;

    Kind(String label) {
      this.label = label;
    }

    static Kind parse(String label) {
      for (Kind k : values()) {
        if (k.label.equals(label)) {
          return k;
        }
      }
      throw new IllegalArgumentException("Unknown id kind '" + label + "' in the ledger");
    }
  }

  /** The closed range [lo, hi] of row keys. */
  public record Range(long lo, long hi) {
    /** How many keys it holds (saturating at Long.MAX_VALUE). */
    public long size() {
      long n = hi - lo + 1;
      return n <= 0 ? Long.MAX_VALUE : n;
    }
  }

  /** Buckets of hashed ids: fine enough to tell many releases apart, coarse enough to hide the ids. */
  static final long HASH_BUCKETS = 1L << 16;

  /** Keys per block of the aggregation (2^12). */
  private static final int BLOCK_BITS = 12;

  /** Blocks collected at most; beyond that the blocks are 2^32 keys wide. */
  private static final int MAX_BLOCKS = 100_000;

  /** Ranges recorded at most per release. */
  static final int MAX_RANGES = 10_000;

  /** The rows of {@code df}, keyed by {@code idColumn} (null: no id column). */
  public static ReleasedRows of(Dataset<Row> df, String idColumn) {
    if (idColumn == null) {
      return new ReleasedRows(null, Kind.NONE, null, true, df.count());
    }
    DataType type = df.schema().apply(idColumn).dataType();
    boolean integral = type.equals(DataTypes.LongType) || type.equals(DataTypes.IntegerType)
        || type.equals(DataTypes.ShortType) || type.equals(DataTypes.ByteType);
    Column id = col("`" + idColumn.replace("`", "``") + "`");
    Column key = integral ? id.cast("long") : pmod(xxhash64(id), lit(HASH_BUCKETS));
    Dataset<Row> keys = df.select(key.as("k"));
    List<Row> blocks = blocks(keys, BLOCK_BITS);
    if (blocks.size() > MAX_BLOCKS) {
      blocks = blocks(keys, 32);
    }
    List<Range> ranges = new ArrayList<>();
    boolean exact = true;
    long rows = 0;
    for (Row b : blocks) {
      long lo = b.getLong(0);
      long hi = b.getLong(1);
      exact &= b.getLong(2) == hi - lo + 1;
      rows += b.getLong(3);
      ranges.add(new Range(lo, hi));
    }
    List<Range> merged = merge(ranges);
    if (merged.size() > MAX_RANGES) {
      merged = coarsen(merged, MAX_RANGES);
      exact = false;
    }
    return new ReleasedRows(idColumn, integral ? Kind.INTEGRAL : Kind.HASHED, merged, exact, rows);
  }

  private static List<Row> blocks(Dataset<Row> keys, int bits) {
    return keys.groupBy(shiftright(col("k"), bits).as("block"))
        .agg(min("k"), max("k"), countDistinct("k"), count(lit(1))).drop("block")
        .limit(MAX_BLOCKS + 1).collectAsList();
  }

  /** Sorted, disjoint, non-adjacent ranges covering exactly the same keys. */
  static List<Range> merge(List<Range> ranges) {
    List<Range> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparingLong(Range::lo));
    List<Range> out = new ArrayList<>();
    for (Range r : sorted) {
      Range last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && (r.lo() <= last.hi() || r.lo() - 1 == last.hi())) {
        out.set(out.size() - 1, new Range(last.lo(), Math.max(last.hi(), r.hi())));
      } else {
        out.add(r);
      }
    }
    return out;
  }

  /** At most {@code limit} ranges covering {@code ranges} (sorted, disjoint): the smallest gaps are filled. */
  static List<Range> coarsen(List<Range> ranges, int limit) {
    int n = ranges.size();
    if (n <= limit) {
      return ranges;
    }
    Integer[] gaps = new Integer[n - 1]; // gap i lies between ranges i and i + 1
    for (int i = 0; i < n - 1; i++) {
      gaps[i] = i;
    }
    java.util.Arrays.sort(gaps, Comparator.comparingLong(i -> ranges.get(i + 1).lo() - ranges.get(i).hi()));
    boolean[] fill = new boolean[n - 1];
    for (int j = 0; j < n - limit; j++) {
      fill[gaps[j]] = true;
    }
    List<Range> out = new ArrayList<>();
    Range current = ranges.get(0);
    for (int i = 1; i < n; i++) {
      if (fill[i - 1]) {
        current = new Range(current.lo(), ranges.get(i).hi());
      } else {
        out.add(current);
        current = ranges.get(i);
      }
    }
    out.add(current);
    return out;
  }

  /** How many keys the ranges hold (saturating). */
  public long keys() {
    if (ranges == null) {
      return rows;
    }
    long n = 0;
    for (Range r : ranges) {
      n = n + r.size() < n ? Long.MAX_VALUE : n + r.size();
    }
    return n;
  }

  /** One line: {@code 1,000 rows, ids 1-1000 (exact)}. */
  public String describe() {
    if (kind == Kind.NONE) {
      return String.format(Locale.ROOT, "%,d rows, no id column (counted against every row of the source)", rows);
    }
    String what = kind == Kind.INTEGRAL ? "ids" : "id-hash buckets";
    String first = ranges.isEmpty() ? "none" : ranges.get(0).lo() + "-" + ranges.get(0).hi();
    return String.format(Locale.ROOT, "%,d rows, %s of %s in %,d range(s) from %s (%s)", rows, what, idColumn,
        ranges.size(), first, exact ? "exact" : "a superset");
  }
}
