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
 * <p>Each id column read with one seed form is an id space of its own ({@link #space}): the keys of a
 * {@code BIGINT} id and of the same column read as {@code DOUBLE} or {@code STRING} are not comparable
 * (nor are the rows' seeds: {@code 5} and {@code 5.0} seed differently), so a release in one space counts
 * against every row of the others. All integral types seed alike ({@code Long.toString}): one space.
 *
 * <p>Computed with one aggregation over the released rows: keys grouped into blocks of 2^{@value
 * #FIRST_BLOCK_BITS}, each block's smallest and largest key and distinct count; a block whose keys are not
 * all present is recorded as the range covering it (a superset: {@code exact} false). When the released
 * keys fall into more than {@value #MAX_BLOCKS} blocks (sparse ids: random, hashed or time-based 64-bit
 * ids) the aggregation is repeated with blocks 2^12 times wider, up to blocks of 2^48 keys, of which a
 * 64-bit key space has at most 65,536: no block is ever dropped. More than {@value #MAX_RANGES} ranges are
 * then merged across their smallest gaps (also a superset).
 *
 * @param idColumn the id column, null for {@link Kind#NONE}
 * @param idForm how the id seeds its row: {@code integral} for an integral column, else the column's type
 *     ({@code double}, {@code string}, {@code decimal(10,2)}, …); null for {@link Kind#NONE}, {@code
 *     unknown} for a release recorded before the form was
 * @param ranges sorted, disjoint, non-adjacent ranges; null for {@link Kind#NONE}
 * @param exact whether the ranges hold exactly the released keys
 * @param rows the rows released
 */
public record ReleasedRows(String idColumn, Kind kind, String idForm, List<Range> ranges, boolean exact,
    long rows) {

  /** How rows are keyed. */
  public enum Kind {
    INTEGRAL("integral"), HASHED("hashed"), NONE("none");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  /** The seed form of every integral id type. */
  static final String INTEGRAL_FORM = "integral";

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

  /** Keys per block of the first aggregation (2^12). */
  private static final int FIRST_BLOCK_BITS = 12;

  /** How much wider each further aggregation's blocks are (2^12 times). */
  private static final int WIDER_BITS = 12;

  /** Blocks of 2^48 keys: a 64-bit key space has at most 2^16 of them, below {@link #MAX_BLOCKS}. */
  private static final int WIDEST_BLOCK_BITS = 48;

  /** Blocks collected at most by one aggregation; past it the blocks are made wider. */
  static final int MAX_BLOCKS = 100_000;

  /** Ranges recorded at most per release. */
  static final int MAX_RANGES = 10_000;

  /** The rows of {@code df}, keyed by {@code idColumn} (null: no id column). */
  public static ReleasedRows of(Dataset<Row> df, String idColumn) {
    if (idColumn == null) {
      return new ReleasedRows(null, Kind.NONE, null, null, true, df.count());
    }
    DataType type = df.schema().apply(idColumn).dataType();
    String form = idForm(type);
    boolean integral = form.equals(INTEGRAL_FORM);
    Dataset<Row> keys = df.select(key(col("`" + idColumn.replace("`", "``") + "`"), integral).as("k"));
    List<Row> blocks = null;
    for (int bits = FIRST_BLOCK_BITS; blocks == null; bits = Math.min(bits + WIDER_BITS, WIDEST_BLOCK_BITS)) {
      blocks = blocks(keys, bits, bits < WIDEST_BLOCK_BITS ? MAX_BLOCKS : Integer.MAX_VALUE);
    }
    List<Range> ranges = new ArrayList<>();
    boolean exact = true;
    long rows = 0;
    for (Row b : blocks) {
      rows += b.getLong(3);
      if (b.isNullAt(0)) {
        continue; // rows without an id (a null id is refused before any row is sanitized): no key
      }
      long lo = b.getLong(0);
      long hi = b.getLong(1);
      exact &= b.getLong(2) == hi - lo + 1; // never true when hi - lo + 1 wraps: a span over 2^63
      ranges.add(new Range(lo, hi));
    }
    List<Range> merged = merge(ranges);
    if (merged.size() > MAX_RANGES) {
      merged = coarsen(merged, MAX_RANGES);
      exact = false;
    }
    return new ReleasedRows(idColumn, integral ? Kind.INTEGRAL : Kind.HASHED, form, merged, exact, rows);
  }

  /** How an id of {@code type} seeds its row (docs/keys-and-randomness.md): one form for every integral type. */
  static String idForm(DataType type) {
    boolean integral = type.equals(DataTypes.LongType) || type.equals(DataTypes.IntegerType)
        || type.equals(DataTypes.ShortType) || type.equals(DataTypes.ByteType);
    return integral ? INTEGRAL_FORM : type.simpleString();
  }

  /** A row's key: the id itself when integral, else the bucket of its 64-bit hash. */
  static Column key(Column id, boolean integral) {
    return integral ? id.cast("long") : pmod(xxhash64(id), lit(HASH_BUCKETS));
  }

  /**
   * The blocks of {@code 2^bits} keys holding released keys: smallest key, largest, distinct keys, rows;
   * null when there are more than {@code limit} (the caller then asks for wider blocks).
   */
  private static List<Row> blocks(Dataset<Row> keys, int bits, int limit) {
    List<Row> blocks = keys.groupBy(shiftright(col("k"), bits).as("block"))
        .agg(min("k"), max("k"), countDistinct("k"), count(lit(1))).drop("block")
        .limit(limit == Integer.MAX_VALUE ? limit : limit + 1).collectAsList();
    return blocks.size() > limit ? null : blocks;
  }

  /** The id space its keys belong to, e.g. {@code id (integral)}, {@code email (hashed:string)}; null without ids. */
  public String space() {
    return kind == Kind.NONE ? null : idColumn + " (" + kindLabel() + ")";
  }

  /** What the ledger's {@code id_kind} column holds: {@code integral}, {@code hashed:<type>} or {@code none}. */
  String kindLabel() {
    return kind == Kind.HASHED ? Kind.HASHED.label + ":" + idForm : kind.label;
  }

  /** The rows recorded under {@code idKind} ({@link #kindLabel}; {@code hashed} alone in older ledgers). */
  static ReleasedRows parse(String idColumn, String idKind, List<Range> ranges, boolean exact, long rows) {
    if (idKind.equals(Kind.NONE.label)) {
      return new ReleasedRows(idColumn, Kind.NONE, null, ranges, exact, rows);
    }
    if (idKind.equals(Kind.INTEGRAL.label)) {
      return new ReleasedRows(idColumn, Kind.INTEGRAL, INTEGRAL_FORM, ranges, exact, rows);
    }
    if (idKind.equals(Kind.HASHED.label)) {
      return new ReleasedRows(idColumn, Kind.HASHED, "unknown", ranges, exact, rows);
    }
    if (idKind.startsWith(Kind.HASHED.label + ":")) {
      return new ReleasedRows(idColumn, Kind.HASHED, idKind.substring(Kind.HASHED.label.length() + 1), ranges, exact,
          rows);
    }
    throw dev.dptext.errors.DpTextErrors.error("LEDGER_ID_KIND_UNKNOWN", "kind", idKind);
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
        ranges.size(), first, exact ? "exact"
        : "a superset: every released id lies in them, other ids too");
  }
}
