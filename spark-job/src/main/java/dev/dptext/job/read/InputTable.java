package dev.dptext.job.read;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import dev.dptext.job.base.JobException;
import dev.dptext.job.base.TableName;
import dev.dptext.runtime.RowContent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * The job's input: read in one format, filtered by {@code --where}, with records that cannot be
 * sanitized identified rather than dropped.
 *
 * <p>A record is <em>rejected</em> when it is malformed (CSV/JSON that does not parse, or a value that
 * does not fit the column's type) or, with an id column, when its text is not null but its id is (the
 * row's randomness cannot be keyed). CSV and JSON are always read in Spark's PERMISSIVE mode with a
 * corrupt-record column, whatever the policy: in FAILFAST mode Spark puts the offending record's raw
 * text into the exception and the executor log, and raw text must never reach a log. The policy then
 * decides: {@code fail} stops the run before writing anything, with counts only; {@code reject} sends
 * the rejected records (raw, unsanitized) to a separate table and sanitizes the rest.
 *
 * <p>Parquet and Delta have no per-record corruption (a corrupt file fails the read). Invalid UTF-8:
 * a JSON record holding it is malformed (JSON text must be UTF-8); in text and CSV input Spark decodes
 * it to U+FFFD replacement characters, which are out-of-vocabulary symbols and so are sanitized like
 * any other token.
 */
public final class InputTable {
  /** The corrupt-record column dptext asks Spark for; removed from the sanitized output. */
  public static final String CORRUPT = "_corrupt_record";
  /** Why a record was rejected, in the rejects table. */
  public static final String REASON = "_dptext_reject_reason";

  /** What to do with rejected records. */
  public enum OnCorrupt {
    FAIL, REJECT;

    public static OnCorrupt parse(String s) {
      try {
        return valueOf(s.strip().toUpperCase(Locale.ROOT));
      } catch (IllegalArgumentException e) {
        throw JobException.of("ON_CORRUPT_UNKNOWN", "value", s);
      }
    }
  }

  /**
   * Row counts of one pass over the input; {@code overStringLimit} counts the malformed records that
   * are longer than the JSON reader's string limit, which a valid record with a longer text value
   * exceeds.
   */
  public record Counts(long rows, long malformed, long nullIds, long overStringLimit, long longestText,
      RowContent.Sums content) {
    public long rejected() {
      return malformed + nullIds;
    }
  }

  private final Dataset<Row> all;
  private final boolean hasCorruptColumn;
  private final String idColumn;
  private final String textColumn;

  private InputTable(Dataset<Row> all, boolean hasCorruptColumn, String idColumn, String textColumn) {
    this.all = all;
    this.hasCorruptColumn = hasCorruptColumn;
    this.idColumn = idColumn;
    this.textColumn = textColumn;
  }

  /**
   * Reads {@code path}.
   *
   * @param idColumn the id column, or null when rows are not keyed by a column
   * @param textColumn the column to sanitize (validated by the caller)
   */
  public static InputTable read(SparkSession spark, String path, DataFormat format, Map<String, String> options,
      String schemaDdl, String where, String idColumn, String textColumn) {
    checkReservedOptions(options);
    boolean parsed = format == DataFormat.CSV || format == DataFormat.JSON;
    StructType given = schemaDdl == null ? null : givenSchema(schemaDdl, format, parsed);
    Dataset<Row> df;
    if (TableName.is(spark, path)) {
      // A catalog table: its format is the catalog's; reader options (versionAsOf for an in-place run)
      // still apply.
      try {
        df = spark.read().options(options).table(path);
        df.schema();
      } catch (Exception e) {
        if (!(e instanceof org.apache.spark.sql.AnalysisException)) {
          throw e;
        }
        throw JobException.of(e, "INPUT_TABLE_UNREADABLE", "path", path, "reason", JobException.firstLine(e.getMessage()));
      }
      return new InputTable(filtered(df, where, false), false, idColumn, textColumn);
    }
    try {
      org.apache.spark.sql.DataFrameReader reader = spark.read().format(format.sparkName()).options(options);
      if (parsed) {
        reader = reader.option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT);
        // Inference reads the whole input once more; a scheduled job that knows its schema skips it.
        StructType inferred = given != null ? given : reader.load(path).schema();
        if (inferred.fieldNames().length == 1 && inferred.fieldNames()[0].equals(CORRUPT)) {
          throw JobException.of("INPUT_NOT_PARSED", "path", path, "format", format.sparkName());
        }
        if (!Arrays.asList(inferred.fieldNames()).contains(CORRUPT)) {
          inferred = inferred.add(CORRUPT, DataTypes.StringType, true);
        }
        reader = reader.schema(inferred);
      }
      df = reader.load(path);
      df.schema(); // resolve now: a missing path fails here with a clear message
    } catch (JobException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof org.apache.spark.sql.AnalysisException || e instanceof java.io.FileNotFoundException) {
        throw JobException.of(e, "INPUT_UNREADABLE", "format", format.sparkName(), "path", path, "reason",
            JobException.firstLine(e.getMessage()));
      }
      throw e;
    }
    return new InputTable(filtered(df, where, parsed), parsed, idColumn, textColumn);
  }

  /**
   * Reads {@code path} as a stream (Structured Streaming's file or Delta source), with the same rules
   * as {@link #read}: CSV and JSON in PERMISSIVE mode with the corrupt-record column, {@code --where}
   * applied, rejected records identified per micro-batch by {@link #over}. A stream's schema is fixed
   * when it starts: CSV and JSON need {@code --input-schema} (Spark's file stream source does not infer
   * one), Parquet takes the schema of the files already there, text and Delta carry their own.
   */
  public static InputTable readStream(SparkSession spark, String path, DataFormat format, Map<String, String> options,
      String schemaDdl, String where, String idColumn, String textColumn) {
    checkReservedOptions(options);
    boolean parsed = format == DataFormat.CSV || format == DataFormat.JSON;
    if (parsed && schemaDdl == null) {
      throw JobException.of("STREAM_SCHEMA_MISSING", "format", format.sparkName());
    }
    StructType given = schemaDdl == null ? null : givenSchema(schemaDdl, format, parsed);
    Dataset<Row> df;
    try {
      org.apache.spark.sql.streaming.DataStreamReader reader =
          spark.readStream().format(format.sparkName()).options(options);
      if (parsed) {
        reader = reader.option("mode", "PERMISSIVE").option("columnNameOfCorruptRecord", CORRUPT).schema(given);
      } else if (format == DataFormat.PARQUET) {
        reader = reader.schema(spark.read().parquet(path).schema());
      }
      df = reader.load(path);
      df.schema();
    } catch (JobException e) {
      throw e;
    } catch (Exception e) {
      if (e instanceof org.apache.spark.sql.AnalysisException || e instanceof java.io.FileNotFoundException) {
        throw JobException.of(e, "STREAM_INPUT_UNREADABLE", "format", format.sparkName(), "path", path, "reason",
            JobException.firstLine(e.getMessage()), "note",
            format == DataFormat.PARQUET ? " (a Parquet stream takes its schema from the files already there)" : "");
      }
      throw e;
    }
    return new InputTable(filtered(df, where, parsed), parsed, idColumn, textColumn);
  }

  /** The same table's rules (corrupt-record column, id column) over one micro-batch of its stream. */
  public InputTable over(Dataset<Row> batch) {
    return rules().over(batch);
  }

  /** What tells this table's accepted rows from its rejected ones, without its data. */
  public Rules rules() {
    return new Rules(hasCorruptColumn, idColumn, textColumn);
  }

  /**
   * The rules of an input (its corrupt-record column, id and text columns), serializable: a stream's
   * micro-batch function carries them, and on Spark Connect it runs on the server.
   */
  public record Rules(boolean hasCorruptColumn, String idColumn, String textColumn) implements java.io.Serializable {
    /** The micro-batch {@code batch} of the input these rules came from. */
    public InputTable over(Dataset<Row> batch) {
      return new InputTable(batch, hasCorruptColumn, idColumn, textColumn);
    }
  }

  private static void checkReservedOptions(Map<String, String> options) {
    for (String reserved : new String[] {"mode", "columnNameOfCorruptRecord"}) {
      if (options.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(reserved))) {
        throw JobException.of("INPUT_OPTION_RESERVED", "option", reserved);
      }
    }
  }

  private static Dataset<Row> filtered(Dataset<Row> df, String where, boolean parsed) {
    if (where == null || where.isBlank()) {
      return df;
    }
    try {
      // A malformed record has no column values, so it would match no predicate and vanish: keep
      // it, so it is counted and rejected (or fails the run) like every other malformed record.
      Dataset<Row> f = df.where(parsed ? org.apache.spark.sql.functions.expr(where).or(col(CORRUPT).isNotNull())
          : org.apache.spark.sql.functions.expr(where));
      f.schema();
      return f;
    } catch (Exception e) {
      if (!(e instanceof org.apache.spark.sql.AnalysisException)) {
        throw e;
      }
      throw JobException.of(e, "WHERE_INVALID", "where", where, "columns", String.join(", ",
          Arrays.stream(df.columns()).filter(c -> !c.equals(CORRUPT)).toArray(String[]::new)),
          "reason", JobException.firstLine(e.getMessage()));
    }
  }

  /**
   * The schema of {@code --input-schema}: a record whose values do not fit it (a string where a
   * number is declared, broken syntax) is a malformed record, counted and failed or rejected like any
   * other; a declared column missing from a record is null.
   */
  private static StructType givenSchema(String ddl, DataFormat format, boolean parsed) {
    if (!parsed) {
      throw JobException.of("INPUT_SCHEMA_NOT_APPLICABLE", "format", format.sparkName());
    }
    StructType schema;
    try {
      schema = StructType.fromDDL(ddl);
    } catch (Exception e) {
      throw JobException.of(e, "INPUT_SCHEMA_INVALID", "reason", JobException.firstLine(e.getMessage()));
    }
    if (Arrays.asList(schema.fieldNames()).contains(CORRUPT)) {
      throw JobException.of("INPUT_SCHEMA_RESERVED_COLUMN", "column", CORRUPT);
    }
    return schema.add(CORRUPT, DataTypes.StringType, true);
  }

  private static String quoted(String column) {
    return "`" + column.replace("`", "``") + "`";
  }

  /** Every input row, corrupt-record column included (for schema checks use {@link #accepted}). */
  public Dataset<Row> all() {
    return all;
  }

  /** The input's columns, without the corrupt-record column dptext added. */
  public StructType schema() {
    StructType s = new StructType();
    for (org.apache.spark.sql.types.StructField f : all.schema().fields()) {
      if (!(hasCorruptColumn && f.name().equals(CORRUPT))) {
        s = s.add(f);
      }
    }
    return s;
  }

  private Column malformed() {
    return hasCorruptColumn ? col(CORRUPT).isNotNull() : lit(false);
  }

  private Column nullId() {
    return idColumn == null ? lit(false) : col(textColumn).isNotNull().and(col(idColumn).isNull());
  }

  /**
   * Counts rows, malformed records and null ids in one pass. (Spark refuses a query on raw CSV/JSON
   * that reads only the corrupt-record column; this one reads every column, see below.)
   */
  public Counts count() {
    return count(false);
  }

  /**
   * As {@link #count}; with {@code content}, the same pass also sums the {@link RowContent} of the rows to
   * sanitize (their seed bytes and text, as the sanitizer will read them): what the privacy ledger tells
   * releases apart by ({@link Counts#content}, null without).
   */
  public Counts count(boolean content) {
    // Spark's CSV/JSON readers parse only the columns a query uses, and a record is malformed only if
    // a USED column does not fit (a word in a declared INT column the count never reads would be
    // found only by the write, which reads every column). The hash uses every column, so the count
    // sees exactly the malformed records that the write will.
    Column everyColumn = functions.xxhash64(Arrays.stream(all.columns()).map(c -> col(quoted(c)))
        .toArray(Column[]::new));
    List<Column> aggregates = new ArrayList<>(List.of(functions.count(lit(1)),
        sum(when(malformed(), 1).otherwise(0)),
        sum(when(not(malformed()).and(nullId()), 1).otherwise(0)),
        functions.count(col(textColumn)),
        functions.max(everyColumn),
        sum(when(malformed().and(hasCorruptColumn ? functions.length(col(CORRUPT)).gt(JSON_STRING_LIMIT) : lit(false)), 1)
            .otherwise(0)),
        functions.max(functions.length(col(textColumn)))));
    Dataset<Row> rows = all;
    if (content) {
      // A column of its own, so that the UDF runs once per row whatever the aggregation does with it.
      String lanes = "_dptext_content";
      rows = all.withColumn(lanes, when(not(malformed()).and(not(nullId())), RowContent.of(all.sparkSession(),
          col(quoted(textColumn)), idColumn == null ? null : col(quoted(idColumn)))));
      aggregates.add(functions.count(col(lanes)));
      for (int i = 0; i < RowContent.LANES; i++) {
        aggregates.add(sum(functions.element_at(col(lanes), i + 1)));
      }
    }
    Row r = rows.agg(aggregates.get(0), aggregates.subList(1, aggregates.size()).toArray(Column[]::new)).first();
    RowContent.Sums sums = null;
    if (content) {
      long[] lanes = new long[RowContent.LANES];
      for (int i = 0; i < RowContent.LANES; i++) {
        lanes[i] = r.isNullAt(8 + i) ? 0 : r.getLong(8 + i);
      }
      sums = RowContent.Sums.empty().plus(r.getLong(7), lanes);
    }
    return new Counts(r.getLong(0), r.isNullAt(1) ? 0 : r.getLong(1), r.isNullAt(2) ? 0 : r.getLong(2),
        r.isNullAt(5) ? 0 : r.getLong(5), r.isNullAt(6) ? 0 : r.getInt(6), sums);
  }

  /** The rows to sanitize: neither malformed nor unkeyable, without the corrupt-record column. */
  public Dataset<Row> accepted() {
    Dataset<Row> ok = all.where(not(malformed()).and(not(nullId())));
    return hasCorruptColumn ? ok.drop(CORRUPT) : ok;
  }

  /**
   * The rows to sanitize, as {@link #accepted}, but read through {@code guard}: a rejected record
   * fails the task that reads it instead of being left out, and the rows are counted as they pass.
   * For a run whose separate {@link #count} pass is folded into the write ({@link InputGuard}).
   */
  public Dataset<Row> acceptedCheckedBy(InputGuard guard) {
    Dataset<Row> ok = all.where(guard.passes(malformed(), nullId()));
    return hasCorruptColumn ? ok.drop(CORRUPT) : ok;
  }

  /**
   * Every input row, with the counts of {@link #count} (rows, rows sanitized, malformed records, rows
   * with a null id) observed under {@code name} ({@link Dataset#observe}): a stream reports them per
   * micro-batch in its progress ({@code StreamingQueryProgress.observedMetrics}).
   */
  public Dataset<Row> observed(String name) {
    return all.observe(name, functions.count(lit(1)).as("rowsIn"),
        sum(when(not(malformed()).and(not(nullId())), 1).otherwise(0)).as("rowsSanitized"),
        sum(when(malformed(), 1).otherwise(0)).as("rowsMalformed"),
        sum(when(not(malformed()).and(nullId()), 1).otherwise(0)).as("rowsNullId"));
  }

  /** The rejected rows as read (raw text included), with the reason. */
  public Dataset<Row> rejected() {
    return all.where(malformed().or(nullId()))
        .withColumn(REASON, when(malformed(), lit("malformed record")).otherwise(lit("null id")));
  }

  /**
   * Spark's JSON reader refuses a string value longer than this many characters (Jackson's default,
   * the reader option {@code maxStringLen}); such a record, valid JSON, shows up as malformed.
   */
  public static final int JSON_STRING_LIMIT = com.fasterxml.jackson.core.StreamReadConstraints.DEFAULT_MAX_STRING_LEN;

  /** The failure for {@code --on-corrupt fail}: counts only, never a record's content. */
  public static JobException failure(Counts c, String path, DataFormat format, Map<String, String> options) {
    return JobException.of("INPUT_MALFORMED_RECORDS", counted(c, path, format, options));
  }

  /** {@link #failure} for micro-batch {@code batchId} of a stream (the earlier ones are committed). */
  public static JobException batchFailure(long batchId, Counts c, String path, DataFormat format,
      Map<String, String> options) {
    Object[] counted = counted(c, path, format, options);
    Object[] p = java.util.Arrays.copyOf(counted, counted.length + 2);
    p[counted.length] = "batch";
    p[counted.length + 1] = batchId;
    return JobException.of("STREAM_BATCH_MALFORMED_RECORDS", p);
  }

  /** The parameters both failures name: the input, the counts, and the JSON reader's limit where it applies. */
  private static Object[] counted(Counts c, String path, DataFormat format, Map<String, String> options) {
    boolean limitRaised = options.keySet().stream().anyMatch(k -> k.equalsIgnoreCase("maxStringLen"));
    String limit = format == DataFormat.JSON && c.overStringLimit() > 0 && !limitRaised
        ? c.overStringLimit() + " of them are longer than the JSON reader's limit on one string value ("
            + String.format(Locale.ROOT, "%,d", JSON_STRING_LIMIT) + " characters): if they are valid JSON whose "
            + "text is longer, raise the limit with --input-option maxStringLen=N (each record is sanitized "
            + "whole in one task's memory: see docs/job.md 'Large records'). "
        : "";
    return new Object[] {"path", path, "malformed", c.malformed(), "nullIds",
        c.nullIds() > 0 ? " and " + c.nullIds() + " row(s) with text but a null id" : "", "rows", c.rows(), "limit",
        limit};
  }
}
